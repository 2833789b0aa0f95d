/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <unistd.h>

#include "basic/diff.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/changes.h"
#include "cli/verbs.h"
#include "core/irqs.h"
#include "core/placement.h"
#include "host/copy-place.h"
#include "host/hugepages.h"
#include "host/irq-steer.h"
#include "host/root.h"
#include "stage/inputs.h"
#include "systemd/changeset.h"
#include "systemd/deploy.h"
#include "systemd/journal.h"

void changes_print_diff(const struct changeset *cs, FILE *f) {
        struct strbuf b = {0};
        for (size_t i = 0; i < cs->n; i++)
                diff_unified(&b, cs->v[i].path, cs->v[i].old, cs->v[i].path, cs->v[i].new);
        if (b.len)
                fputs(b.s, f);
        strbuf_done(&b);
}

void changes_journal(const struct changeset *cs, enum journal_kind kind, bool failed) {
        for (size_t i = 0; journal_enabled() && i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                /* A removal's unchanged unit had nothing of numaplan's; a failure left it as it was. */
                if (c->action == ACTION_UNCHANGED && (cs->removal || failed))
                        continue;
                _cleanup_free_ char *dropin = xasprintf("NUMAPLAN_DROPIN=%s", c->path);
                char *fields[] = {dropin, NULL};
                const char *action = action_to_string(c->action);
                if (failed)
                        journal_event(kind, LOG_ERR, c->unit, "failed", fields, "%s: %s not %s: %s", c->unit, c->path,
                                      c->action == ACTION_REMOVED ? "removed" : "written",
                                      log_first_error() ? log_first_error() : "see the messages before");
                else
                        journal_event(kind, LOG_INFO, c->unit, action, fields, "%s: drop-in %s: %s", c->unit, action,
                                      c->path);
        }
}

json_object *changes_pools_json(const struct pool_changes *pools) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; pools && i < pools->n; i++) {
                const struct pool_change *p = &pools->v[i];
                json_object *o = json_object_new_object();
                json_object_object_add(o, "node", json_object_new_int(p->node));
                json_object_object_add(o, "page_kb", json_uint64(p->page_kb));
                json_object_object_add(o, "wanted", json_uint64(p->wanted));
                json_object_object_add(o, "reserved", json_uint64(p->ours));
                json_object_object_add(o, "nr_hugepages_before", json_uint64(p->before));
                json_object_object_add(o, "nr_hugepages_after", json_uint64(p->after));
                json_object_object_add(o, "short", json_object_new_boolean(p->ours < p->wanted));
                json_object_array_add(a, o);
        }
        return a;
}

void changes_print_pools(const struct pool_changes *pools, bool check) {
        for (size_t i = 0; pools && i < pools->n; i++) {
                const struct pool_change *p = &pools->v[i];
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), p->page_kb * 1024);
                if (p->after == p->before && p->ours == p->wanted)
                        continue;
                printf("huge pages: node %d: %" PRIu64 " of %s %s numaplan's (nr_hugepages %" PRIu64 " -> %" PRIu64 ")\n",
                       p->node, check ? p->wanted : p->ours, size, check ? "would be" : "are", p->before, p->after);
        }
}

json_object *changes_irqs_json(const struct irq_changes *irqs) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; irqs && i < irqs->n; i++) {
                const struct irq_change *q = &irqs->v[i];
                json_object *o = json_object_new_object();
                json_object_object_add(o, "irq", json_object_new_int64(q->irq));
                json_object_object_add(o, "pci", json_object_new_string(q->pci));
                json_object_object_add(o, "action", json_object_new_string(irq_action_to_string(q->action)));
                json_object_object_add(o, "before", q->has_before ? json_cpuset(&q->before) : NULL);
                json_object_object_add(o, "after", q->has_before ? json_cpuset(&q->after) : NULL);
                json_object_array_add(a, o);
        }
        return a;
}

void changes_print_irqs(const struct irq_changes *irqs, bool check) {
        for (size_t i = 0; irqs && i < irqs->n; i++) {
                const struct irq_change *q = &irqs->v[i];
                if ((q->action != IRQ_STEERED && q->action != IRQ_RESTORED) || cpuset_equal(&q->before, &q->after))
                        continue;
                _cleanup_free_ char *before = cpuset_format(&q->before), *after = cpuset_format(&q->after);
                printf("IRQ %u of %s: %s%s CPUs %s (%s %s)\n", q->irq, q->pci, check ? "would be " : "",
                       q->action == IRQ_STEERED ? "steered to" : "given back", after, check ? "now" : "was", before);
        }
}

void changes_report(const struct change_line *v, size_t n, const struct pool_changes *pools,
                    const struct irq_changes *irqs, bool check, bool changed, const char *generator_dir, bool removal,
                    const char *nothing, bool json) {
        if (json) {
                _cleanup_json_ json_object *obj = json_object_new_object();
                json_object *units = json_object_new_array();
                for (size_t i = 0; i < n; i++) {
                        json_object *u = json_object_new_object();
                        json_object_object_add(u, "unit", json_object_new_string(v[i].unit));
                        json_object_object_add(u, "action", json_object_new_string(v[i].action));
                        if (generator_dir) /* the drop-ins are the generator's: say where */
                                json_object_object_add(u, "path", json_object_new_string(v[i].path));
                        json_object_array_add(units, u);
                }
                json_object_object_add(obj, "changed", json_object_new_boolean(changed));
                if (generator_dir)
                        json_object_object_add(obj, "generator_dir", json_object_new_string(generator_dir));
                json_object_object_add(obj, "units", units);
                json_object_object_add(obj, "hugepages", changes_pools_json(pools));
                json_object_object_add(obj, "interrupts", changes_irqs_json(irqs));
                json_print(obj);
                return;
        }
        if (log_get_max_level() < LOG_NOTICE) /* -q: errors only */
                return;
        for (size_t i = 0; i < n; i++)
                if (!streq(v[i].action, "unchanged"))
                        printf("%s: %s%s %s%s\n", v[i].unit, check ? "would be " : "", v[i].action, v[i].path,
                               strempty(v[i].note));
                else if (removal)
                        printf("%s: no drop-in of numaplan's to remove\n", v[i].unit);
        changes_print_pools(pools, check);
        changes_print_irqs(irqs, check);
        if (!changed)
                printf("%s\n", nothing);
}

void changes_lines(struct change_line **v, size_t *n, const struct changeset *cs, const char *note) {
        for (size_t i = 0; i < cs->n; i++) {
                *v = xrealloc(*v, (*n + 1) * sizeof(**v));
                (*v)[(*n)++] = (struct change_line){cs->v[i].unit, action_to_string(cs->v[i].action), cs->v[i].path,
                                                    cs->v[i].helper ? NULL : note};
        }
}

/* Whether the deployment changes, or would change, anything. */
static bool any_change(const struct changeset *cs, const struct pool_changes *pools, const struct irq_changes *irqs) {
        return changeset_changed(cs) || (pools && pool_changes_any(pools)) || (irqs && irq_changes_any(irqs));
}

static void print_changes(const struct changeset *cs, const struct pool_changes *pools, const struct irq_changes *irqs,
                          bool check, bool json) {
        bool changed = any_change(cs, pools, irqs);
        _cleanup_free_ struct change_line *lines = NULL;
        _cleanup_free_ char *nothing = cs->removal ? xstrdup("nothing removed")
                                                   : xasprintf("nothing to do: %zu drop-in%s up to date", cs->n,
                                                               cs->n == 1 ? "" : "s");
        size_t n = 0;

        changes_lines(&lines, &n, cs, NULL);
        changes_report(lines, n, pools, irqs, check, changed, NULL, cs->removal, nothing, json);
}

/* Without the reload, this host's irqbalance runs on with its old bans until systemd reloads and
 * restarts it. */
static void say_irqbalance_waits(const struct changeset *cs, const struct irq_step *irqs, bool reload) {
        for (size_t i = 0; !reload && irqs->live && irqs->in->system_dirs && i < cs->n; i++)
                if (cs->v[i].helper && cs->v[i].action != ACTION_UNCHANGED)
                        log_notice("%s: its drop-in takes effect when systemd reloads and it restarts (systemctl "
                                   "daemon-reload; systemctl try-restart %s)",
                                   cs->v[i].unit, cs->v[i].unit);
}

int deploy_and_report(const struct changeset *cs, const struct pool_changes *pools, struct irq_step *irqs,
                      const char *unplaced, bool check, bool diff, bool reload, bool restart, bool json) {
        struct deploy_options o = {.reload = reload, .restart = restart, .unplaced = unplaced};
        struct deploy_result res = {.stage = DEPLOY_CONNECT};
        struct deployment d = {0};

        /* systemd first: a diff printed and then "cannot reach systemd" reads as done. */
        if (!check && deploy_prepare(cs, &o, &d) < 0) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        if (diff)
                changes_print_diff(cs, json ? stderr : stdout);
        if (check) {
                if (irqs)
                        changes_irqs(irqs, true);
                print_changes(cs, pools, irqs ? irqs->done : NULL, true, json);
                bool blocked = unplaced && access(unplaced, F_OK) == 0;
                if (blocked)
                        log_notice("%s is there: the boot step has not placed the replicas at this boot, and their drop-ins keep "
                                   "them from starting until an apply succeeds",
                                   unplaced);
                return any_change(cs, pools, irqs ? irqs->done : NULL) || blocked ? EXIT_FAILED : EXIT_OK;
        }
        int r = deploy(&d, cs, &o, &res);
        deployment_done(&d);
        /* Once committed, the drop-ins are what they are, whatever a reload or restart did. */
        changes_journal(cs, cs->removal ? JOURNAL_REMOVE : JOURNAL_APPLY, res.stage == DEPLOY_COMMIT);
        switch (res.stage) {
        case DEPLOY_CONNECT:
                return EXIT_ENV; /* not reached: prepared above */
        case DEPLOY_COMMIT:
                return EXIT_ENV; /* the commit said what it restored */
        case DEPLOY_RELOAD:
                log_error("the drop-ins are written but systemd did not reload: run systemctl daemon-reload");
                break;
        case DEPLOY_RESTART:
        case DEPLOY_MARKER:
        case DEPLOY_DONE:
                break;
        }
        if (irqs) {
                say_irqbalance_waits(cs, irqs, reload);
                changes_irqs(irqs, false);
        }
        print_changes(cs, pools, irqs ? irqs->done : NULL, false, json);
        return r < 0 ? EXIT_ENV : irqs ? irqs->exit : EXIT_OK;
}

void changes_irqs(struct irq_step *step, bool dry) {
        const struct inputs *in = step->in;
        step->exit = EXIT_OK;
        if (!step->live || !in->system_dirs) {
                /* A test's tree or a replayed host: this host's interrupts are not the plan's. */
                if (step->want && irq_targets_any(step->want))
                        log_notice("interrupts are steered only by an apply to systemd's unit directories of this "
                                   "host: none steered");
                return;
        }
        _cleanup_free_ char *record = xasprintf("%s/" IRQS_RECORD, in->runtime_dir);
        if (irqs_steer(PROC_IRQ_DIR, record, step->want, dry, step->done) < 0)
                step->exit = EXIT_ENV;
        else if (!dry && irq_changes_failed(step->done))
                step->exit = EXIT_ENV;
}

int changes_pools(const struct inputs *in, bool live, const struct plan *plan, bool dry, struct pool_changes *ret) {
        struct pools want = {0};
        *ret = (struct pool_changes){0};
        if (plan)
                pools_for_plan(plan, &want);
        if (!live || !in->system_dirs) {
                /* A test's tree or a replayed host: this host's memory is not the plan's. */
                if (want.n)
                        log_notice("huge pages are reserved only by an apply to systemd's unit directories of this "
                                   "host: none reserved");
                pools_done(&want);
                return EXIT_OK;
        }
        _cleanup_free_ char *record = xasprintf("%s/" HUGEPAGES_RECORD, in->runtime_dir);
        int r = hugepages_reserve(SYS_NODE_DIR, record, &want, dry, ret);
        pools_done(&want);
        if (r < 0)
                return EXIT_ENV;
        for (size_t i = 0; i < ret->n; i++) {
                const struct pool_change *p = &ret->v[i];
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), p->page_kb * 1024);
                if (p->no_pool && p->wanted) {
                        _cleanup_free_ char *sizes = hugepages_sizes(SYS_NODE_DIR, p->node);
                        log_error("node %d has no pool of %s huge pages: the plan's %" PRIu64 " cannot be reserved there "
                                  "(its pools: %s)",
                                  p->node, size, p->wanted, sizes);
                } else if (!dry && p->ours < p->wanted)
                        log_error("node %d: the plan needs %" PRIu64 " huge pages of %s there and the kernel granted %" PRIu64
                                  " (its memory is in use or fragmented): free memory on node %d and run numaplan apply "
                                  "again; at boot numaplan.service reserves them before the replicas start, when memory "
                                  "is least fragmented",
                                  p->node, p->wanted, size, p->ours, p->node);
        }
        bool missing = false;
        for (size_t i = 0; i < ret->n; i++)
                missing = missing || (ret->v[i].no_pool && ret->v[i].wanted);
        return (pool_changes_short(ret) && !dry) || missing ? EXIT_ENV : EXIT_OK;
}

void changes_copies(const struct inputs *in, bool live, const struct plan *plan) {
        /* The copies prepare made on this host, in the runtime directory of these drop-ins: for a
         * test's unit directory, the test's own. */
        if (!live)
                return;
        char **keep = xmalloc0(((plan ? plan->n_replicas : 0) + 1) * sizeof(char *));
        size_t n = 0;
        for (size_t i = 0; plan && i < plan->n_replicas; i++)
                if (plan->replicas[i].copies && !strv_contains(keep, plan->replicas[i].copies))
                        keep[n++] = plan->replicas[i].copies;
        int k = copy_places_prune(in->models, keep);
        if (k > 0)
                log_notice("took away %d director%s of model copies in %s that no replica reads now", k, k == 1 ? "y" : "ies",
                           in->models);
        free(keep);
}

int inputs_check_replay(const struct inputs *in, const struct globals *g, bool reload, const char *verb) {
        _cleanup_root_ struct root *own = NULL;
        struct root *root = in->root;

        /* remove reads no host: open the root only to learn whether it is this machine's. */
        if (!root && root_open(g->sysfs_root, 0, &own) >= 0)
                root = own;
        if (!root || !root_is_capture(root))
                return EXIT_OK;
        if (!g->unit_dir || is_systemd_unit_dir(in->unit_dir))
                return verb_usage_error(verb, "--sysfs-root %s replays another host: its plan is not this host's; "
                                              "give --unit-dir a directory of your own",
                                        g->sysfs_root);
        if (reload)
                return verb_usage_error(verb, "--sysfs-root %s replays another host: add --no-reload, this host's "
                                              "systemd has nothing to load from it",
                                        g->sysfs_root);
        return EXIT_OK;
}
