/* SPDX-License-Identifier: MIT */
#pragma once

/* What the deploy step (stage/deploy.h) is asked to do, and what it returns. */

#include <stdbool.h>
#include <stddef.h>

#include "core/irqs.h"
#include "live/hugepages.h"
#include "live/irq-steer.h"
#include "stage/inputs.h"
#include "systemd/changeset.h"
#include "systemd/journal.h"

enum deploy_kind {
        DEPLOY_APPLY,    /* the plan's drop-ins, and numaplan's of units that left it removed */
        DEPLOY_REMOVE,   /* numaplan's drop-ins taken away: of `units`, or all */
        DEPLOY_GENERATE, /* the generator at boot: the plan into its own directory, then its marker */
};

struct deploy_options {
        enum deploy_kind kind;
        bool check;         /* apply: reckon only, write nothing */
        bool reload;        /* apply, remove: tell systemd, once, when anything changed */
        bool restart;       /* apply: restart the running replicas whose drop-in changed */
        char *const *units; /* remove: these units, NULL-terminated; none: all */
};

/* One directory's changes, and what the report says after each (NULL: nothing). */
struct deploy_set {
        struct changeset cs;
        const char *note;
};

struct deploy_outcome {
        /* The plan's directory first (the generator's, in generator mode), then apply's own
         * directories in generator mode, whose drop-ins the generator's take over. */
        struct deploy_set sets[INPUTS_APPLY_DIRS_MAX + 1];
        size_t n_sets;
        struct irq_targets targets; /* the interrupts the plan steers */
        struct pool_changes pools;
        struct irq_changes irqs;
        const char *generator_dir; /* generator mode: where the drop-ins are, the generator's */
        bool changed;              /* anything changed, or with `check` would */
        bool removal;              /* remove's: an unchanged unit had nothing of numaplan's */
        enum {
                DEPLOY_SHOWN_NOTHING, /* it failed before anything was, or would be, done */
                DEPLOY_SHOWN_DIFF,    /* about to write when it failed: the diff shows what it tried */
                DEPLOY_SHOWN_ALL,     /* the diff and the report show what was, or would be, done */
        } shown;
        size_t placed, left_out; /* the generator's drop-ins written, and left out for remove */
        char *placed_names;      /* "UNIT on node N, ..." of those written, cut at a line's worth */
        int exit;                /* EXIT_*: the outcome's exit code */
};

void deploy_outcome_done(struct deploy_outcome *o);
#define _cleanup_deploy_outcome_ _cleanup_(deploy_outcome_done)
/* Whether the deployment changes, or would change, anything. */
bool deploy_any_change(const struct deploy_outcome *o);
/* Each change as a journal entry of `kind`, when the journal is enabled: done (its action), or,
 * with `failed`, not done. */
void deploy_journal_changes(const struct changeset *cs, enum journal_kind kind, bool failed);
