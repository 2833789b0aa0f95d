/* SPDX-License-Identifier: MIT */
#pragma once

/* Every file numaplan keeps beside the drop-ins, named here once: apply's lock and its runtime
 * directory (/run/numaplan for systemd's unit directories, which a reboot clears), what it holds,
 * and the two records that live elsewhere (the generator's marker in the generator's directory,
 * the units apply handed to the generator beside apply's drop-ins). Each is written through
 * write_file_path() (basic/fileio.h). */

#include <stdbool.h>

struct plan;

#define STATE_RUNTIME_DIR "/run/numaplan"
/* For a unit directory other than systemd's (a test's, a staging tree): <unit-dir>/.numaplan. */
#define STATE_RUNTIME_SUBDIR ".numaplan"
/* Beside the runtime directory: <runtime-dir>.lock. */
#define STATE_LOCK_SUFFIX ".lock"
/* There while a boot step has not placed the replicas (apply --boot made it, no apply has
 * succeeded since): apply's drop-ins assert it is not. */
#define STATE_UNPLACED "unplaced"
/* What an earlier numaplan's apply created, and its drop-ins asserted. */
#define STATE_APPLIED_OLD "applied"
/* model-copies = per-node: the copies, and prepare's files naming them (core/dropin.h). */
#define STATE_MODELS "models"
/* prepare --nics: each replica's adapters, as variables (<nics>/<unit>). */
#define STATE_NICS "nics"
/* The huge pages numaplan reserved: "NODE PAGE_KB PAGES OTHERS" a pool. */
#define STATE_HUGEPAGES "hugepages"
/* The interrupts numaplan steered: "IRQ PCI BEFORE SET" each. */
#define STATE_IRQS "irqs"
/* Held while numaplan bench runs (in STATE_RUNTIME_DIR, whatever the unit directory: it restarts
 * this host's units): one bench at a time, since two would measure each other. */
#define STATE_BENCH_LOCK "bench.lock"
/* Units remove took out of the generator's output until the next boot, one a line, "*" all. */
#define STATE_GENERATOR_REMOVED "generator-removed"
/* In the generator's directory: the marker it writes last, which its drop-ins assert. */
#define STATE_GENERATOR_MARKER ".numaplan/applied"
/* Beside apply's drop-ins (so across boots): the units of the last plan apply handed to the
 * generator, which the generator keeps from starting when it cannot read the configuration. */
#define STATE_GENERATOR_UNITS ".numaplan-units"

/* The paths of one run's state, from its runtime directory. */
struct state_paths {
        char *runtime_dir, *lock, *unplaced, *applied_old, *models, *nics, *hugepages, *irqs, *removed;
};
void state_paths_init(struct state_paths *s, const char *runtime_dir);
void state_paths_done(struct state_paths *s);

/* The units of the record `removed` (STATE_GENERATOR_REMOVED), NULL-terminated; *ret_all for
 * "*"; empty when there is none (*ret_exists false). */
char **state_read_removed(const char *removed, bool *ret_all, bool *ret_exists);
/* The record of the plan's units (STATE_GENERATOR_UNITS), as its text; written into `dir` unless
 * it holds it already. Logs; -errno. */
char *state_units_record_text(const struct plan *plan);
int state_write_units_record(const char *dir, const struct plan *plan);
/* The units a record of the plan's units in `dir` names, as written (a template's as
 * "tp@%i.service"), NULL-terminated; empty when there is none. */
char **state_read_units_record(const char *dir);
