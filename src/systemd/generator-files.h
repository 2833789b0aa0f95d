/* SPDX-License-Identifier: MIT */
#pragma once

/* Where numaplan-generator is installed and writes (its records: stage/state.h). */

#include <stdbool.h>

#define GENERATOR_NAME "numaplan-generator"
/* The generator's normal directory: drop-ins there rank below /etc/systemd/system and
 * /run/systemd/system (an admin's override wins) and above the vendor's units. */
#define GENERATOR_DIR "/run/systemd/generator"
/* The drop-in the generator adds to a unit that still has apply's drop-in in a directory that
 * outranks its own: it keeps the unit from starting with that other placement. */
#define GENERATOR_CONFLICT_NAME "49-numaplan-conflict.conf"
/* A generator that has not finished after this long stops, leaving what it wrote unmarked, so
 * that those replicas do not start: a generator must never hold up the boot. */
#define GENERATOR_TIMEOUT_S 20

/* Whether argv[0] names the generator. */
bool is_generator_name(const char *argv0);
/* Whether numaplan-generator is installed in one of systemd's generator directories (the first
 * of $SYSTEMD_GENERATOR_PATH, or systemd's, that has one; a link to /dev/null masks it). */
bool generator_installed(void);
/* The generator's directory in generator mode: `option` (--generator-dir), or GENERATOR_DIR when
 * the generator is installed and neither `unit_dir` (--unit-dir) nor `sysfs_root` points
 * elsewhere; else NULL. */
const char *generator_dir_for(const char *option, const char *unit_dir, const char *sysfs_root);
/* The binary the drop-ins name in generator mode, as the installed generator resolves (a copy
 * of numaplan runs its commands under that name too), or NULL for this one (and with `option`). */
char *generator_exe_for(const char *option);
