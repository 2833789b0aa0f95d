/* SPDX-License-Identifier: MIT */
#pragma once

/* Reading numaplan's configuration files: which files (the default file and its conf.d, or -c),
 * who may own them, and the sizes of the models they name. Parsing is core/config.c's. */

#include "core/config.h"

#define CONFIG_FILE "/etc/numaplan/numaplan.conf"
#define CONFIG_DROPIN_DIR "/etc/numaplan/conf.d"

/* Reads `path`, or CONFIG_FILE and CONFIG_DROPIN_DIR/ *.conf when NULL (absent files are an empty
 * configuration). Errors are printed as "path:line: message"; returns -EINVAL (bad
 * configuration), -EPERM (an unsafe file when running as root) or -ENOENT (no -c file). With no
 * replica section anywhere, the built-in default template is added. */
int config_load(const char *path, struct config **ret);
