/* SPDX-License-Identifier: MIT */
#pragma once

/* The stage the verbs and the generator both start from: the host (through its root), the
 * configuration, the plan, the run's warnings, and where drop-ins and apply's state go. Loading
 * it turns failures into exit codes (stage/globals.h), which only the two programs above use. */

#include <stdbool.h>

#include "core/dropin.h"
#include "core/warnings.h"
#include "stage/globals.h"
#include "stage/state.h"

struct config;
struct placement;
struct plan;
struct root;
struct topology;

/* apply writes into one of systemd's two directories; NULL-terminated. */
#define INPUTS_APPLY_DIRS_MAX 3

struct inputs {
        struct root *root;
        struct topology *topology;
        struct config *config;
        struct plan *plan;
        struct warnings warnings; /* of the host and of the plan: one list */
        const char *unit_dir;     /* where the drop-ins are: the generator's directory in generator mode */
        bool system_dirs;         /* unit_dir is one of systemd's: this host's units, not a test's tree */
        bool live;                /* the root is this host's own, live (not a replayed one, not recording) */
        /* Generator mode (cli/generator-mode.h): the generator writes the drop-ins into unit_dir, and
         * apply_dirs (NULL-terminated) are where apply writes without it, from which apply and
         * remove take numaplan's drop-ins away. */
        bool generator;
        const char *apply_dirs[INPUTS_APPLY_DIRS_MAX];
        struct state_paths state; /* apply's runtime directory and what it holds (stage/state.h) */
        char *marker;             /* what the drop-ins assert: state.unplaced absent, or the generator's marker there */
        char *exe;                /* this binary, which the drop-ins run before a replica starts */
        struct dropin_env env;    /* the marker, the binary, state.models and state.nics, for dropin_render() */
};

#define UNIT_DIR_PERSISTENT "/etc/systemd/system"
#define UNIT_DIR_RUNTIME "/run/systemd/system"

enum {
        INPUTS_RECORD = 1 << 0,     /* keep every file read, for `numaplan snapshot` */
        INPUTS_NAMES = 1 << 1,      /* what `show` alone prints: names from the PCI ID database, local CPUs */
        INPUTS_DEVICES = 1 << 2,    /* network adapters and NVMe drives too */
        INPUTS_TUNING = 1 << 3,     /* the host's tuning, PCIe links and config space (core/tuning.h) */
        INPUTS_NICS = 1 << 4,       /* network adapters, for the plan's nics = */
        INPUTS_IRQS = 1 << 5,       /* the devices' interrupts (core/irqs.h), and irqbalance with INPUTS_TUNING */
        INPUTS_IRQS_ASKED = 1 << 6, /* (inputs_load) network adapters and interrupts when the configuration
                                     * asks for irq-affinity = yes */
        INPUTS_NAMED = 1 << 7,      /* (inputs_load) warn of what the configuration names that is not there: a
                                * model (model-missing), a unit systemd does not know (unit-unknown) */
        INPUTS_CPU_KINDS = 1 << 8,  /* the CPU kinds (core/cpu-kinds.h); inputs_load() reads them for the plan */
        INPUTS_L3 = 1 << 9,         /* the L3 caches; inputs_load() reads them where replicas may share a node */
};

/* Where drop-ins go and where apply keeps its state. The state follows the unit directory: for
 * one of systemd's (the defaults), STATE_RUNTIME_DIR, which a reboot clears; for any other (a
 * test's, a staging tree), <unit-dir>/.numaplan, so that nothing of this host's /run is touched. */
void inputs_dirs(const struct globals *g, bool runtime, struct inputs *in);
/* Opens the root and reads the host; the configuration's accelerator-nodes, when `config` is
 * given, then the host's warnings. Returns an exit code; after EXIT_USAGE (an override naming
 * what this host lacks, printed) the host is read all the same. */
int inputs_host(const struct globals *g, unsigned flags, const struct config *config, struct inputs *in);
/* Whether every planned unit is a name systemd takes (a template's, as expanded), before any path
 * is built from one; an unfit one is said at its line. Apply and the generator ask it. */
bool plan_units_valid(const struct plan *plan);
/* The audit's warnings (core/tuning.h) for a host read with its tuning, into in->warnings: with
 * in->plan, or else, where they need one, the plan of `config` made quietly (none without it). */
void inputs_tuning_warnings(struct inputs *in, const struct config *config);
/* Reads the tuning of a host loaded without it (verify --metrics), then its warnings. */
void inputs_read_tuning(struct inputs *in);
/* The configuration (-c, or /etc/numaplan), the host (with INPUTS_* `flags`), and the plan.
 * Returns an exit code: EXIT_OK, EXIT_USAGE for a bad configuration (printed as path:line),
 * EXIT_ENV for an unreadable host. */
int inputs_load(const struct globals *g, const char *config_path, bool runtime, unsigned flags, struct inputs *ret);
void inputs_done(struct inputs *in);
#define _cleanup_inputs_ _cleanup_(inputs_done)
/* What a run does to replica units goes to this host's journal (systemd/journal.h) only when it
 * acts on this host's systemd: the `live` root, systemd's own unit directories (and the
 * generator's own, in generator mode). A replayed host, a test's unit directory, a staging tree
 * never write there. */
void inputs_journal(const struct inputs *in, bool live);
/* The replicas a verb acts on: all of the plan's, or those whose units are named (a name without
 * a suffix is the service, as systemctl takes it). Returns EXIT_OK, or EXIT_USAGE after saying
 * which name is no replica's unit. *ret has room for every replica. */
int inputs_select(const struct inputs *in, int argc, char **argv, const struct placement ***ret, size_t *ret_n);

/* How long apply and remove wait for another holding the lock: $NUMAPLAN_LOCK_TIMEOUT seconds, by
 * default this long (an apply --restart waits for its restarts under the lock). */
#define LOCK_TIMEOUT_S 300
/* Takes apply's lock (<runtime_dir>.lock), creating it and its directory with `create`; without,
 * only a lock that exists. EXIT_OK with the descriptor in *ret_fd (-1: no lock to take), or
 * EXIT_ENV, said. */
int inputs_lock(const struct inputs *in, bool create, int *ret_fd);
/* Whether `dir` is one of systemd's unit directories (this host's units, not a test's tree). */
bool is_systemd_unit_dir(const char *dir);
/* The run's warnings on stderr, for a run whose stdout is its report, or that has none: worst
 * first, a code found for several devices or replicas once (core/warnings.h), each in full with
 * `each` (-v, or the generator, whose kernel log has no -v to ask for them). */
void log_warnings(const struct warnings *w, bool each);
