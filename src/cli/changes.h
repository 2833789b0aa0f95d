/* SPDX-License-Identifier: MIT */
#pragma once

/* The end apply and remove share: print or deploy a changeset, report it, and choose the exit
 * code. */

#include <stdbool.h>
#include <stdio.h>

#include "systemd/journal.h"

struct changeset;
struct globals;
struct inputs;
struct irq_changes;
struct irq_targets;
struct pool_changes;

/* The interrupts of a deployment (irq-affinity = yes): steered once the drop-ins are committed and
 * systemd restarted irqbalance with numaplan's (so that the irqbalance that runs from then on
 * leaves them alone), and only when the drop-ins go to systemd's directories of this (`live`)
 * host; reckoned for --check. `want` NULL: none, which gives numaplan's back (remove). */
struct irq_step {
        const struct inputs *in;
        bool live;
        const struct irq_targets *want;
        struct irq_changes *done; /* filled by deploy_and_report() */
        int exit;                 /* EXIT_OK, or EXIT_ENV: a record not kept, an interrupt not set */
};

/* --diff prints a unified diff; --check reports what would change (exit 1 when something
 * would); otherwise the changes are deployed (systemd/deploy.h) and reported, as JSON with
 * `json`: {"changed": ..., "units": [{"unit", "action"}], "hugepages": [...], "interrupts": [...]}.
 * The huge page pools (reserved, or with `check` reckoned, by the caller; NULL for none) and the
 * interrupts (`irqs`, steered here after the commit; NULL for none) are reported beside the
 * drop-ins. `unplaced` (apply's boot marker; NULL for remove) goes once all is done, and counts
 * as a change for --check while it is there. Returns the exit code. */
int deploy_and_report(const struct changeset *cs, const struct pool_changes *pools, struct irq_step *irqs,
                      const char *unplaced, bool check, bool diff, bool reload, bool restart, bool json);

/* The huge page pools of a deployment: as JSON ([{"node", "page_kb", "wanted", ...}]), and as
 * report lines ("would be" with `check`). */
struct json_object *changes_pools_json(const struct pool_changes *pools);
void changes_print_pools(const struct pool_changes *pools, bool check);
/* The report of a deployment, one line a unit: "UNIT: [would be ]ACTION PATH[NOTE]", then the
 * pools and the interrupts, then `nothing` when nothing changed; as JSON with `json` (and, in generator mode,
 * `generator_dir` and each drop-in's path). With `removal`, an unchanged unit is one numaplan had
 * nothing of. */
struct change_line {
        const char *unit, *action, *path, *note;
};
void changes_lines(struct change_line **v, size_t *n, const struct changeset *cs, const char *note);
void changes_report(const struct change_line *v, size_t n, const struct pool_changes *pools,
                    const struct irq_changes *irqs, bool check, bool changed, const char *generator_dir, bool removal,
                    const char *nothing, bool json);
/* The unified diff of each change, on `f`. */
void changes_print_diff(const struct changeset *cs, FILE *f);
/* Each change as a journal entry of `kind` (apply's or remove's), when the journal is enabled:
 * done (its action), or, with `failed`, not done. */
void changes_journal(const struct changeset *cs, enum journal_kind kind, bool failed);

struct inputs;
struct plan;
/* Name of the record of numaplan's huge pages in the runtime directory. */
#define HUGEPAGES_RECORD "hugepages"
/* The huge page pools of `plan` (NULL: none, which gives numaplan's pages back), reserved when
 * the drop-ins go to systemd's directories of this (`live`) host, with `dry` only reckoned; a
 * test's tree or a replayed host reserves nothing. Returns EXIT_OK, or EXIT_ENV for a record that
 * cannot be kept or a shortfall (said, pool by pool). */
int changes_pools(const struct inputs *in, bool live, const struct plan *plan, bool dry, struct pool_changes *ret);

/* Name of the record of numaplan's interrupts in the runtime directory. */
#define IRQS_RECORD "irqs"
/* The interrupts of `step` (host/irq-steer.h), into step->done: steered (or, `dry`, reckoned) for
 * systemd's unit directories of this host; a test's tree or a replayed host steers nothing, and
 * says so. Sets step->exit. */
void changes_irqs(struct irq_step *step, bool dry);
/* The interrupts of a deployment: as JSON, and as report lines ("would be" with `check`). */
struct json_object *changes_irqs_json(const struct irq_changes *irqs);
void changes_print_irqs(const struct irq_changes *irqs, bool check);

/* The directories of model copies (model-copies = per-node) that `plan` (NULL: none) no longer
 * reads, taken away when the drop-ins are systemd's on this (`live`) host. */
void changes_copies(const struct inputs *in, bool live, const struct plan *plan);
/* Refuses, with EXIT_USAGE, to deploy a replayed host's plan (or, for remove, anything under a
 * replayed root) to this host's systemd or unit directories. */
int inputs_check_replay(const struct inputs *in, const struct globals *g, bool reload, const char *verb);
