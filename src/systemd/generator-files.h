/* SPDX-License-Identifier: MIT */
#pragma once

/* Where numaplan-generator is installed and writes, and the records it shares with apply and
 * remove in generator mode (generator/generator.h, cli/generator-mode.h). */

#include <stdbool.h>

struct plan;

#define GENERATOR_NAME "numaplan-generator"
/* The generator's normal directory: drop-ins there rank below /etc/systemd/system and
 * /run/systemd/system (an admin's override wins) and above the vendor's units. */
#define GENERATOR_DIR "/run/systemd/generator"
/* The drop-in the generator adds to a unit that still has apply's drop-in in a directory that
 * outranks its own: it keeps the unit from starting with that other placement. */
#define GENERATOR_CONFLICT_NAME "49-numaplan-conflict.conf"
/* In the runtime directory: units `remove` took out of the generator's output until the next
 * boot, one a line, or "*" for all. */
#define GENERATOR_REMOVED "generator-removed"
/* A generator that has not finished after this long stops, leaving what it wrote unmarked, so
 * that those replicas do not start: a generator must never hold up the boot. */
#define GENERATOR_TIMEOUT_S 20
/* Beside apply's drop-ins (in /etc/systemd/system, so across boots): the units of the last plan
 * apply handed to the generator, one a line, which the generator keeps from starting when it
 * cannot read the configuration. */
#define GENERATOR_UNITS_RECORD ".numaplan-units"

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
/* "<dir>/.numaplan/applied": the marker the generator writes last and its drop-ins assert. */
char *generator_marker(const char *dir);

/* The units remove took out of the generator's output (the record GENERATOR_REMOVED in
 * `runtime_dir`), NULL-terminated; *ret_all for "*"; empty when there is none. */
char **generator_read_removed(const char *runtime_dir, bool *ret_all, bool *ret_exists);
/* The record GENERATOR_UNITS_RECORD of the plan's units, as its text and written into `dir`
 * (apply's directory, where it lasts across boots) unless it holds it already; -errno, said. */
char *generator_units_record_text(const struct plan *plan);
int generator_write_units_record(const char *dir, const struct plan *plan);
