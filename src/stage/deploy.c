/* SPDX-License-Identifier: MIT */
#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "stage/deploy.h"
#include "stage/deploy-generator.h"
#include "stage/deploy-host.h"
#include "stage/trust.h"
#include "systemd/bus.h"
#include "systemd/deploy.h"
#include "systemd/journal.h"

/* Without the reload, this host's irqbalance runs on with its old bans until systemd reloads and
 * restarts it. */
static void say_irqbalance_waits(const struct inputs *in, const struct changeset *cs, bool live) {
        for (size_t i = 0; live && in->system_dirs && i < cs->n; i++)
                if (cs->v[i].helper && cs->v[i].action != ACTION_UNCHANGED)
                        log_notice("%s: its drop-in takes effect when systemd reloads and it restarts (systemctl "
                                   "daemon-reload; systemctl try-restart %s)",
                                   cs->v[i].unit, cs->v[i].unit);
}

/* The change set written, systemd told, the running units restarted or named, and last (apply)
 * the boot marker removed; then the interrupts. The exit code. */
static int commit_and_tell(const struct inputs *in, const struct deploy_options *o, bool live, bool irqs,
                           struct deploy_outcome *ret) {
        const struct changeset *cs = &ret->sets[0].cs;
        struct deploy_options_systemd so = {.reload = o->reload,
                                            .restart = o->restart,
                                            .unplaced = o->kind == DEPLOY_APPLY ? in->state.unplaced : NULL};
        struct deploy_result res = {.stage = DEPLOY_CONNECT};
        struct deployment d = {0};

        /* systemd first: a change it could not be told of is a half step. */
        if (deploy_prepare(cs, &so, &d) < 0) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        ret->shown = DEPLOY_SHOWN_DIFF;
        int r = deploy(&d, cs, &so, &res);
        deployment_done(&d);
        /* Once committed, the drop-ins are what they are, whatever a reload or restart did. */
        deploy_journal_changes(cs, o->kind == DEPLOY_REMOVE ? JOURNAL_REMOVE : JOURNAL_APPLY,
                               res.stage == DEPLOY_COMMIT);
        if (res.stage == DEPLOY_CONNECT || res.stage == DEPLOY_COMMIT)
                return EXIT_ENV; /* the commit said what it restored */
        ret->shown = DEPLOY_SHOWN_ALL;
        if (res.stage == DEPLOY_RELOAD)
                log_error("the drop-ins are written but systemd did not reload: run systemctl daemon-reload");
        int e = EXIT_OK;
        if (irqs) {
                if (!o->reload)
                        say_irqbalance_waits(in, cs, live);
                e = deploy_irqs(in, live, o->kind == DEPLOY_APPLY, false, ret);
        }
        return r < 0 ? EXIT_ENV : e;
}

/* What a deployment to apply's own directory does: reckoned with `check`, else written. */
static int apply_or_remove(const struct inputs *in, const struct deploy_options *o, bool live,
                           struct deploy_outcome *ret) {
        /* remove gives back every interrupt numaplan steered when it removes all, like the pools. */
        bool irqs = o->kind == DEPLOY_APPLY || !o->units || !o->units[0];

        if (o->check) {
                int r = irqs ? deploy_irqs(in, live, true, true, ret) : EXIT_OK;
                ret->changed = deploy_any_change(ret);
                ret->shown = DEPLOY_SHOWN_ALL;
                bool blocked = access(in->state.unplaced, F_OK) == 0;
                if (blocked)
                        log_notice("%s is there: the boot step has not placed the replicas at this boot, and their "
                                   "drop-ins "
                                   "keep them from starting until an apply succeeds",
                                   in->state.unplaced);
                return r != EXIT_OK ? r : ret->changed || blocked ? EXIT_FAILED : EXIT_OK;
        }
        int r = commit_and_tell(in, o, live, irqs, ret);
        ret->changed = deploy_any_change(ret);
        return r;
}

/* An empty plan removes every drop-in: what a read that came back empty (no accelerators seen, a
 * trimmed sysfs) would do. Removing all is remove's job, asked for by name. */
static bool plan_empties(const struct inputs *in, const struct changeset *cs) {
        size_t removed = changeset_count(cs, ACTION_REMOVED);
        if (in->plan->n_replicas > 0 || removed == 0)
                return false;
        log_error(
                "the plan holds no replica (this host shows none of the accelerators or nodes the configuration "
                "places replicas by): applying it would remove all %zu of numaplan's drop-ins in %s; nothing written. "
                "To remove them, run numaplan remove",
                removed, in->unit_dir);
        return true;
}

/* apply: the plan's drop-ins, irqbalance's beside them, and the huge pages before both: a
 * replica must find its pages when it starts. A shortfall is said and fails the apply, yet the
 * drop-ins are written: the placement is right, and a server that falls back to small pages still
 * runs. */
static int apply(const struct inputs *in, const struct deploy_options *o, bool live, char *irqbalance,
                 struct deploy_outcome *ret) {
        _cleanup_free_ char *ib = irqbalance;

        ret->n_sets = 1;
        if (changeset_for_plan(in->unit_dir, &in->env, in->topology, in->config, in->plan, &ret->sets[0].cs) < 0)
                return EXIT_ENV;
        if (plan_empties(in, &ret->sets[0].cs))
                return EXIT_ENV;
        int rp = deploy_pools(in, live, in->plan, o->check, ret);
        if (rp == EXIT_ENV && ret->pools.n == 0)
                return rp;
        int r;
        if (in->generator)
                r = deploy_generator_apply(in, o, TAKE_PTR(ib), ret);
        else if (changeset_put(&ret->sets[0].cs, IRQBALANCE_UNIT, TAKE_PTR(ib)) < 0)
                return EXIT_ENV;
        else
                r = apply_or_remove(in, o, live, ret);
        if (r == EXIT_OK && !o->check)
                deploy_copies(in, live, in->plan);
        return r == EXIT_OK ? rp : r;
}

/* remove: numaplan's drop-ins of the units named, or all; removing all gives back every huge page
 * numaplan reserved and takes every copy away, removing some leaves them to the next apply, which
 * sizes them for what stays. */
static int remove_dropins(const struct inputs *in, const struct deploy_options *o, bool live,
                          struct deploy_outcome *ret) {
        bool all = !o->units || !o->units[0];

        ret->removal = true;
        if (!in->generator) {
                ret->n_sets = 1;
                if (changeset_recover(in->unit_dir) < 0 ||
                    changeset_for_removal(in->unit_dir, o->units, &ret->sets[0].cs) < 0)
                        return EXIT_ENV;
        }
        int rp = all ? deploy_pools(in, live, NULL, false, ret) : EXIT_OK;
        int r = in->generator ? deploy_generator_remove(in, o, ret) : apply_or_remove(in, o, live, ret);
        if (r == EXIT_OK && all)
                deploy_copies(in, live, NULL);
        return r == EXIT_OK ? rp : r;
}

/* What apply must know before anything is written, the lock included: what its drop-ins hand to
 * root, and that there is a systemd to tell. */
static int before_writing(const struct inputs *in, const struct deploy_options *o, const char *irqbalance) {
        if (in->plan) {
                int r = inputs_check_trusted(in, irqbalance ? irqbalance_exe() : NULL);
                if (r != EXIT_OK)
                        return r;
                /* What hurts pinning on this host and what the planner decided, on stderr. */
                log_warnings(&in->warnings, false);
        }
        if (o->reload && !o->check && !booted_with_systemd()) {
                log_error(NOT_BOOTED_WITH_SYSTEMD);
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        return EXIT_OK;
}

/* Apply's lock: made by what writes; remove makes it only where there is something to remove. */
static int take_lock(const struct inputs *in, const struct deploy_options *o, int *ret_fd) {
        bool create = !o->check;
        if (o->kind == DEPLOY_REMOVE) {
                _cleanup_strv_free_ char **ours = changeset_our_units(in->unit_dir);
                create = (ours && ours[0]) || access(in->state.runtime_dir, F_OK) == 0;
        }
        return inputs_lock(in, create, ret_fd);
}

int deploy_boot_begin(const struct globals *g, bool runtime) {
        _cleanup_inputs_ struct inputs in = {0};
        inputs_dirs(g, runtime, &in);
        return deploy_block_replicas(in.state.unplaced) < 0 ? EXIT_ENV : EXIT_OK;
}

int deploy_run(const struct inputs *in, const struct deploy_options *o, struct deploy_outcome *ret) {
        _cleanup_close_ int lock = -1;
        _cleanup_free_ char *irqbalance = NULL;
        bool live = in->live;

        *ret = (struct deploy_outcome){.generator_dir = in->generator ? in->unit_dir : NULL};
        if (o->kind == DEPLOY_GENERATE)
                return ret->exit = deploy_generate(in, ret);
        if (in->plan) {
                /* irqbalance's drop-in, which bans the interrupts the plan steers, goes beside the replicas'. */
                irq_targets_for_plan(in->topology, in->plan, &ret->targets);
                irqbalance = dropin_render_irqbalance(&ret->targets, in->config, irqbalance_exe());
        }
        int r = before_writing(in, o, irqbalance);
        if (r == EXIT_OK)
                r = take_lock(in, o, &lock);
        if (r != EXIT_OK)
                return ret->exit = r;
        /* A commit that was interrupted is finished first; --check writes nothing and says so. */
        if (o->check && changeset_interrupted(in->unit_dir)) {
                log_notice("an interrupted apply is recorded in %s/" CHANGESET_JOURNAL ": the next apply finishes it",
                           in->unit_dir);
                return ret->exit = EXIT_FAILED;
        }
        if (o->kind == DEPLOY_APPLY && !o->check && changeset_recover(in->unit_dir) < 0)
                return ret->exit = EXIT_ENV;
        if (o->kind == DEPLOY_APPLY)
                r = apply(in, o, live, TAKE_PTR(irqbalance), ret);
        else
                r = remove_dropins(in, o, live, ret);
        return ret->exit = r;
}
