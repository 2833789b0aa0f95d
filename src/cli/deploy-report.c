/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "basic/diff.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/deploy-report.h"
#include "cli/verbs.h"
#include "host/root.h"
#include "stage/deploy-outcome.h"

static void print_diff(const struct deploy_outcome *o, FILE *f) {
        struct strbuf b = {0};
        for (size_t k = 0; k < o->n_sets; k++) {
                const struct changeset *cs = &o->sets[k].cs;
                for (size_t i = 0; i < cs->n; i++)
                        diff_unified(&b, cs->v[i].path, cs->v[i].old, cs->v[i].path, cs->v[i].new);
        }
        if (b.len)
                fputs(b.s, f);
        strbuf_done(&b);
}

static json_object *pools_json(const struct pool_changes *pools) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < pools->n; i++) {
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

static json_object *irqs_json(const struct irq_changes *irqs) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < irqs->n; i++) {
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

static void print_json(const struct deploy_outcome *o) {
        _cleanup_json_ json_object *obj = json_object_new_object();
        json_object *units = json_object_new_array();

        for (size_t k = 0; k < o->n_sets; k++)
                for (size_t i = 0; i < o->sets[k].cs.n; i++) {
                        const struct change *c = &o->sets[k].cs.v[i];
                        json_object *u = json_object_new_object();
                        json_object_object_add(u, "unit", json_object_new_string(c->unit));
                        json_object_object_add(u, "action", json_object_new_string(action_to_string(c->action)));
                        if (o->generator_dir) /* the drop-ins are the generator's: say where */
                                json_object_object_add(u, "path", json_object_new_string(c->path));
                        json_object_array_add(units, u);
                }
        json_object_object_add(obj, "changed", json_object_new_boolean(o->changed));
        if (o->generator_dir)
                json_object_object_add(obj, "generator_dir", json_object_new_string(o->generator_dir));
        json_object_object_add(obj, "units", units);
        json_object_object_add(obj, "hugepages", pools_json(&o->pools));
        json_object_object_add(obj, "interrupts", irqs_json(&o->irqs));
        json_print(obj);
}

static void print_pools(const struct pool_changes *pools, bool check) {
        for (size_t i = 0; i < pools->n; i++) {
                const struct pool_change *p = &pools->v[i];
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), p->page_kb * 1024);
                if (p->after == p->before && p->ours == p->wanted)
                        continue;
                printf("huge pages: node %d: %" PRIu64 " of %s %s numaplan's (nr_hugepages %" PRIu64 " -> %" PRIu64
                       ")\n",
                       p->node, check ? p->wanted : p->ours, size, check ? "would be" : "are", p->before, p->after);
        }
}

static void print_irqs(const struct irq_changes *irqs, bool check) {
        for (size_t i = 0; i < irqs->n; i++) {
                const struct irq_change *q = &irqs->v[i];
                if ((q->action != IRQ_STEERED && q->action != IRQ_RESTORED) || cpuset_equal(&q->before, &q->after))
                        continue;
                _cleanup_free_ char *before = cpuset_format(&q->before), *after = cpuset_format(&q->after);
                printf("IRQ %u of %s: %s%s CPUs %s (%s %s)\n", q->irq, q->pci, check ? "would be " : "",
                       q->action == IRQ_STEERED ? "steered to" : "given back", after, check ? "now" : "was", before);
        }
}

/* "nothing to do: 8 drop-ins up to date", "nothing removed". */
static void print_nothing(const struct deploy_outcome *o) {
        size_t n = o->sets[0].cs.n;
        if (o->removal)
                printf("nothing removed\n");
        else if (o->generator_dir)
                printf("nothing to do: the generator's drop-ins are up to date\n");
        else
                printf("nothing to do: %zu drop-in%s up to date\n", n, n == 1 ? "" : "s");
}

static void print_text(const struct deploy_outcome *o, bool check) {
        /* In generator mode a unit the generator keeps is not one apply had nothing of. */
        bool removal = o->removal && !o->generator_dir;

        for (size_t k = 0; k < o->n_sets; k++)
                for (size_t i = 0; i < o->sets[k].cs.n; i++) {
                        const struct change *c = &o->sets[k].cs.v[i];
                        if (c->action != ACTION_UNCHANGED)
                                printf("%s: %s%s %s%s\n", c->unit, check ? "would be " : "",
                                       action_to_string(c->action), c->path,
                                       c->helper ? "" : strempty(o->sets[k].note));
                        else if (removal)
                                printf("%s: no drop-in of numaplan's to remove\n", c->unit);
                }
        print_pools(&o->pools, check);
        print_irqs(&o->irqs, check);
        if (!o->changed)
                print_nothing(o);
}

void deploy_report(const struct deploy_outcome *o, const struct report_options *r) {
        if (o->shown == DEPLOY_SHOWN_NOTHING)
                return;
        if (r->diff)
                print_diff(o, r->json ? stderr : stdout);
        if (o->shown != DEPLOY_SHOWN_ALL)
                return;
        if (r->json)
                print_json(o);
        else if (log_get_max_level() >= LOG_NOTICE) /* -q: errors only */
                print_text(o, r->check);
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
                return verb_usage_error(verb,
                                        "--sysfs-root %s replays another host: its plan is not this host's; "
                                        "give --unit-dir a directory of your own",
                                        g->sysfs_root);
        if (reload)
                return verb_usage_error(verb,
                                        "--sysfs-root %s replays another host: add --no-reload, this host's "
                                        "systemd has nothing to load from it",
                                        g->sysfs_root);
        return EXIT_OK;
}
