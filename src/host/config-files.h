/* SPDX-License-Identifier: MIT */
#pragma once

/* Reading numaplan's configuration files: which files (the default file and its conf.d, or -c),
 * who may own them, and the sizes of the models they name. Parsing is core/config.c's. */

#include "core/config.h"

#define CONFIG_FILE "/etc/numaplan/numaplan.conf"
#define CONFIG_DROPIN_DIR "/etc/numaplan/conf.d"

/* The files of the configuration, in the order they are read (NULL-terminated, to free): `path`
 * alone, or CONFIG_FILE (which may be absent) and CONFIG_DROPIN_DIR/ *.conf, sorted. */
char **config_files(const char *path);
/* Reads config_files(path) (an absent CONFIG_FILE is an empty configuration). Errors are printed as "path:line: message"; returns -EINVAL (bad
 * configuration), -EPERM (an unsafe file when running as root) or -ENOENT (no -c file). With no
 * replica section anywhere, the built-in default template is added. */
int config_load(const char *path, struct config **ret);

struct warnings;
/* model-missing: each replica section whose model config_load() found missing or empty, where
 * that is no error (memory = set, no copies), at its model = line. */
void config_model_warnings(const struct config *c, struct warnings *w);
