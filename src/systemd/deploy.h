/* SPDX-License-Identifier: MIT */
#pragma once

/* The end apply and remove share: write a changeset (its commit), tell systemd, restart or name
 * the running units it concerns, and let the replicas start (apply's boot marker removed). Returns -errno; the verb turns
 * that and `struct deploy_result` into its report and exit code. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

struct changeset;

struct deploy_options_systemd {
        bool reload;          /* reload systemd after a change (and ask it first, before writing) */
        bool restart;         /* restart running units whose drop-in changed */
        const char *unplaced; /* remove this file once all is done (apply's boot marker); NULL for none */
};

enum deploy_stage {
        DEPLOY_CONNECT, /* systemd could not be asked: nothing written */
        DEPLOY_COMMIT,  /* writing failed: everything restored, or named if it could not be */
        DEPLOY_RELOAD,  /* written, but systemd did not reload */
        DEPLOY_RESTART, /* written and reloaded; a restart failed */
        DEPLOY_MARKER,  /* written and reloaded; the boot marker could not be removed */
        DEPLOY_DONE,
};

struct deploy_result {
        enum deploy_stage stage; /* how far it got */
};

/* What deploy_prepare() found out before anything is written: systemd, reachable. */
struct deployment {
        sd_bus *bus;
};

/* Asks systemd (when the change needs a reload) before anything is written or shown as done: a
 * write it could not reload is a half step. Logs; -errno. */
int deploy_prepare(const struct changeset *cs, const struct deploy_options_systemd *o, struct deployment *ret);
int deploy(struct deployment *d, const struct changeset *cs, const struct deploy_options_systemd *o,
           struct deploy_result *ret);
void deployment_done(struct deployment *d);

/* Pinning takes effect when a unit starts: restarts the running units of `cs` that changed, or
 * says they run with their old placement; a helper (irqbalance) whose drop-in changed is restarted
 * whenever it runs. Returns the number of restarts that failed, or -errno. */
int deploy_restart_or_tell(sd_bus *bus, const struct changeset *cs, bool restart);
/* Only the helpers of `cs`: restarts a running one whose drop-in changed. Returns as above. */
int deploy_restart_helpers(sd_bus *bus, const struct changeset *cs);
/* Creates `marker` (and its directory) atomically; with WRITE_VOLATILE into a directory made
 * anew (a generator's): nothing there to look at first, and no fsync. Logs; -errno. */
int deploy_write_marker(const char *marker, unsigned flags);
/* Creates apply's boot marker, as the boot step starts: until an apply succeeds and removes it,
 * apply's drop-ins keep the replicas from starting. Logs; -errno. */
int deploy_block_replicas(const char *unplaced);
/* Removes apply's boot marker, which keeps the replicas from starting while it is there; logs;
 * -errno. */
int deploy_remove_marker(const char *unplaced);
