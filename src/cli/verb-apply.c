/* SPDX-License-Identifier: MIT */
/* numaplan apply: write the plan's drop-ins, atomically and idempotently, and reload systemd. */

#include "basic/log.h"
#include "basic/util.h"
#include "cli/changes.h"
#include "cli/generator-mode.h"
#include "cli/verbs.h"
#include "core/dropin.h"
#include "core/irqs.h"
#include "core/placement.h"
#include "host/hugepages.h"
#include "host/irq-steer.h"
#include "host/root.h"
#include "stage/inputs.h"
#include "stage/trust.h"
#include "systemd/boot-step.h"
#include "systemd/deploy.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"

struct apply_args {
        const char *config;
        bool check, diff, runtime, no_reload, restart, json, boot;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct apply_args),
        VERB_FLAG("check", 0, struct apply_args, check,
                  "change nothing; exit 1 when changes are pending"),
        VERB_FLAG("diff", 0, struct apply_args, diff,
                  "print a unified diff of every change"),
        VERB_FLAG("runtime", 0, struct apply_args, runtime,
                  "write under " UNIT_DIR_RUNTIME " (gone at reboot)"),
        VERB_FLAG("no-reload", 0, struct apply_args, no_reload,
                  "do not reload systemd"),
        VERB_FLAG("restart", 0, struct apply_args, restart,
                  "restart running replica units whose drop-in changed"),
        VERB_FLAG("json", 0, struct apply_args, json,
                  "{\"changed\": ..., \"units\": [{\"unit\", \"action\"}]} on stdout"),
        VERB_FLAG("boot", 0, struct apply_args, boot,
                  "as the boot step: the replicas do not start until this apply succeeds"),
        {},
};

/* The boot step's first act, before the configuration is read: the replicas' drop-ins keep them
 * from starting until an apply succeeds, however this one ends (a bad configuration, a host that
 * no longer fits it, a hang stopped by numaplan.service's time limit). */
static int block_replicas(const struct globals *g, bool runtime) {
        _cleanup_inputs_ struct inputs in = {0};
        inputs_dirs(g, runtime, &in);
        return deploy_block_replicas(in.unplaced) < 0 ? EXIT_ENV : EXIT_OK;
}

/* Which boot step will place the replicas at the next boot: said by --check; warned of by apply
 * to this host's units when there is none. */
static void say_boot_step(const struct inputs *in, bool check) {
        _cleanup_(boot_step_done) struct boot_step b = {0};
        boot_step_find(in->generator ? NULL : in->unit_dir, in->system_dirs, in->generator, &b);
        _cleanup_free_ char *text = boot_step_describe(&b);
        if (b.kind == BOOT_STEP_NONE && (check || in->system_dirs))
                log_warning("%s", text);
        else if (check)
                log_notice("%s", text);
}

/* What apply knows before it writes anything but the boot step's marker: the plan, irqbalance's
 * drop-in (*ret_irqbalance, NULL for none), and that root may run what they name. */
static int load(const struct apply_args *a, const struct globals *g, struct inputs *in, struct irq_targets *targets,
                char **ret_irqbalance) {
        if (a->restart && a->no_reload)
                return verb_usage_error("apply", "--restart needs the reload that --no-reload skips");
        if (a->boot && a->check)
                return verb_usage_error("apply", "--boot writes the marker that --check must not");
        int r = a->boot ? block_replicas(g, a->runtime) : EXIT_OK;
        if (r != EXIT_OK)
                return r;
        r = inputs_load(g, a->config, a->runtime, INPUTS_IRQS_ASKED, in);
        if (r != EXIT_OK)
                return r;
        r = inputs_check_replay(in, g, !a->no_reload && !a->check, "apply");
        if (r != EXIT_OK)
                return r;
        if (!a->check)
                inputs_journal(in, root_is_live(in->root));
        if (!plan_units_valid(in->plan))
                return EXIT_USAGE;
        /* irqbalance's drop-in, which bans the interrupts the plan steers, goes beside the replicas'. */
        irq_targets_for_plan(in->topology, in->plan, targets);
        _cleanup_free_ char *irqbalance = dropin_render_irqbalance(targets, in->config, irqbalance_exe());
        r = inputs_check_trusted(in, irqbalance ? irqbalance_exe() : NULL);
        if (r != EXIT_OK)
                return r;
        /* What hurts pinning on this host and what the planner decided: stderr, since stdout is
         * the report. */
        log_warnings(&in->warnings);
        *ret_irqbalance = TAKE_PTR(irqbalance);
        return EXIT_OK;
}

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct apply_args *a = args;
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_changeset_ struct changeset cs = {0};
        _cleanup_pool_changes_ struct pool_changes pools = {0};
        _cleanup_(irq_targets_done) struct irq_targets targets = {0};
        _cleanup_irq_changes_ struct irq_changes irqs_done = {0};
        _cleanup_free_ char *irqbalance = NULL;
        _cleanup_close_ int lock = -1;

        (void) argc;
        (void) argv;
        int r = load(a, g, &in, &targets, &irqbalance);
        if (r != EXIT_OK)
                return r;

        /* Said before anything, the lock included, is written. */
        if (!a->no_reload && !a->check && !booted_with_systemd()) {
                log_error(NOT_BOOTED_WITH_SYSTEMD);
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        r = inputs_lock(&in, !a->check, &lock);
        if (r != EXIT_OK)
                return r;
        /* A commit that was interrupted is finished first; --check writes nothing and says so. */
        if (a->check && changeset_interrupted(in.unit_dir)) {
                log_notice("an interrupted apply is recorded in %s/" CHANGESET_JOURNAL ": the next apply finishes it",
                           in.unit_dir);
                return EXIT_FAILED;
        }
        if (!a->check && changeset_recover(in.unit_dir) < 0)
                return EXIT_ENV;
        if (changeset_for_plan(in.unit_dir, &in.env, in.topology, in.config, in.plan, &cs) < 0)
                return EXIT_ENV;
        struct irq_step irqs = {.in = &in, .live = root_is_live(in.root), .want = &targets, .done = &irqs_done};
        /* An empty plan removes every drop-in: what a read that came back empty (no accelerators
         * seen, a trimmed sysfs) would do. Removing all is remove's job, asked for by name. */
        size_t removed = changeset_count(&cs, ACTION_REMOVED);
        if (in.plan->n_replicas == 0 && removed > 0) {
                log_error("the plan holds no replica (this host shows none of the accelerators or nodes the "
                          "configuration places replicas by): applying it would remove all %zu of numaplan's drop-ins "
                          "in %s; nothing written. To remove them, run numaplan remove",
                          removed, in.unit_dir);
                return EXIT_ENV;
        }
        /* The pools before the drop-ins and their marker: a replica must find its huge pages
         * when it starts. A shortfall is said and fails the apply, yet the drop-ins are written:
         * the placement is right, and a server that falls back to small pages still runs. */
        int rp = changes_pools(&in, root_is_live(in.root), in.plan, a->check, &pools);
        if (rp == EXIT_ENV && pools.n == 0)
                return rp;
        if (in.generator)
                r = generator_apply(&in, &cs, &pools, TAKE_PTR(irqbalance), &irqs, a->check, a->diff, !a->no_reload,
                                    a->restart, a->json);
        else if (changeset_put(&cs, IRQBALANCE_UNIT, TAKE_PTR(irqbalance)) < 0)
                return EXIT_ENV;
        else
                r = deploy_and_report(&cs, &pools, &irqs, in.unplaced, a->check, a->diff, !a->no_reload, a->restart,
                                      a->json);
        if (r == EXIT_OK && !a->check)
                changes_copies(&in, root_is_live(in.root), in.plan);
        if (r == EXIT_OK || (a->check && r == EXIT_FAILED))
                say_boot_step(&in, a->check);
        return r == EXIT_OK ? rp : r;
}

const struct verb verb_apply = {
        .name = "apply",
        .rank = 30,
        .summary = "write the drop-ins, reload systemd",
        .options = options,
        .args_size = sizeof(struct apply_args),
        .max_args = 0,
        .run = run,
        .usage = "numaplan apply [-c FILE] [--check] [--diff] [--runtime] [--no-reload] [--restart] [--json] [--boot]",
        .description = "Write one drop-in per replica unit (" UNIT_DIR_PERSISTENT "/UNIT.d/50-numaplan.conf),\n"
                       "remove numaplan's drop-ins of replicas that left the configuration, and reload systemd\n"
                       "once if anything changed. All or nothing: a failed write restores every file. Once all\n"
                       "is done, removes the marker the boot step creates as it starts (" RUNTIME_DIR "/" UNPLACED_MARKER "),\n"
                       "whose presence keeps the replicas from starting: the drop-ins assert it is not there.",
        .epilogue = "With numaplan-generator installed, the drop-ins are the generator's: apply checks the\n"
                    "plan, removes its own drop-ins, reloads (which runs the generator) and checks the result.\n"
                    "\nPinning takes effect when a unit starts: a running unit keeps its placement until it\n"
                    "restarts, and apply says so.",
};
