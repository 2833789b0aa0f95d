/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan as a systemd generator (systemd.generator(7)), and generator mode.
 *
 * Run as "numaplan-generator" by systemd at boot and at every daemon-reload, numaplan writes the
 * replicas' drop-ins into the generator's normal directory (/run/systemd/generator): the plan of
 * this configuration on this boot's hardware, with no reload on the boot path. Generator mode is
 * when the generator is installed (or --generator-dir names its directory): the drop-ins are the
 * generator's, `plan`, `verify` and `status` look there, and `apply` and `remove` never write a
 * drop-in of their own: they take apply's persistent drop-ins away (a same-named drop-in in
 * /etc/systemd/system or /run/systemd/system would win over the generator's), record what
 * `remove` took out, and reload, which runs the generator again. */

#include <stdbool.h>

#include "cli/verbs.h"

struct changeset;
struct inputs;
struct pool_changes;

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

/* The units a configuration's text names (NULL-terminated), as the generator keeps them from
 * starting when it has no plan: from the configuration when the text parses alone, else from its
 * `unit =` lines; a template's unit as its template ("tp@.service"). */
char **generator_units_of_text(const char *text, size_t len, const char *name);
/* The drop-in that keeps a unit from starting: it asserts `marker`, with `why`, escaped, on its
 * second line. */
char *generator_block_text(const char *why, const char *marker);

/* Whether argv[0] names the generator. */
bool is_generator_name(const char *argv0);
/* numaplan-generator NORMAL [EARLY LATE]. Never fails the boot: exits 0 whatever the plan; 2 only
 * for a command line systemd never gives. */
int generator_main(int argc, char **argv);

/* Whether numaplan-generator is installed in one of systemd's generator directories (the first
 * of $SYSTEMD_GENERATOR_PATH, or systemd's, that has one; a link to /dev/null masks it). */
bool generator_installed(void);
/* The generator's directory in generator mode: --generator-dir, or GENERATOR_DIR when the
 * generator is installed and neither --unit-dir nor --sysfs-root points elsewhere; else NULL. */
const char *generator_dir(const struct globals *g);
/* The binary the drop-ins name in generator mode, as the installed generator resolves (a copy
 * of numaplan runs its commands under that name too), or NULL for this one. */
char *generator_exe(const struct globals *g);
/* "<dir>/.numaplan/applied": the marker the generator writes last and its drop-ins assert. */
char *generator_marker(const char *dir);

/* apply in generator mode: `gen` is the generator's directory against the plan. Removes apply's
 * drop-ins and the record of `remove`, reloads (the generator writes the plan), and checks that
 * the generator's directory then holds the plan. Returns the exit code. */
int generator_apply(const struct inputs *in, const struct changeset *gen, const struct pool_changes *pools, bool check,
                    bool diff, bool reload, bool restart, bool json);
/* remove in generator mode: apply's drop-ins of `units` (all when empty) are removed, the units
 * recorded for the generator to leave out until the next boot, and systemd reloaded. */
int generator_remove(const struct inputs *in, char *const *units, const struct pool_changes *pools, bool reload,
                     bool json);
