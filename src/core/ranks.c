/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "basic/util.h"
#include "core/ranks.h"

void ranks_init(struct placement *pl, const int *node_of) {
        free(pl->ranks);
        pl->ranks = xmalloc0((pl->n_accels + 1) * sizeof(*pl->ranks));
        pl->n_ranks = pl->n_accels;
        for (size_t j = 0; j < pl->n_accels; j++)
                pl->ranks[j] = (struct placement_rank){.accel = pl->accels[j], .node = node_of[j]};
}

/* Where an accelerator comes among the replica's visible devices: the rule-9 variables' in the
 * order the drop-in names them (NVIDIA's, then AMD's), then the rest. */
static int visible_group(const struct topology *t, const struct placement *pl, size_t accel) {
        const struct pci_device *a = &t->accels[accel];
        if (!pl->visible_devices || !a->ids_known || !a->compute)
                return 2;
        return a->vendor == 0x10de ? 0 : a->vendor == 0x1002 ? 1 : 2;
}

/* Stable: within a group, PCI order, as the variables list the indices. */
static void order_visible(const struct topology *t, struct placement *pl) {
        for (size_t i = 1; i < pl->n_ranks; i++) {
                struct placement_rank r = pl->ranks[i];
                int g = visible_group(t, pl, r.accel);
                size_t j = i;
                for (; j > 0 && visible_group(t, pl, pl->ranks[j - 1].accel) > g; j--)
                        pl->ranks[j] = pl->ranks[j - 1];
                pl->ranks[j] = r;
        }
}

unsigned ranks_on(const struct placement *pl, int node) {
        unsigned n = 0;
        for (size_t i = 0; i < pl->n_ranks; i++)
                n += pl->ranks[i].node == node;
        return n;
}

struct cpuset ranks_nodes(const struct placement *pl) {
        struct cpuset s = {0};
        for (size_t i = 0; i < pl->n_ranks; i++)
                if (pl->ranks[i].node >= 0)
                        cpuset_set(&s, (unsigned) pl->ranks[i].node);
        return s;
}

bool ranks_span_nodes(const struct placement *pl) {
        struct cpuset s = ranks_nodes(pl);
        return cpuset_count(&s) > 1;
}

/* The replica's CPUs on node `id`. */
static struct cpuset cpus_on(const struct topology *t, const struct placement *pl, int id) {
        const struct node *n = topology_node(t, id);
        struct cpuset s = n ? n->cpus : (struct cpuset){0};
        cpuset_and(&s, &pl->cpus);
        return s;
}

/* A rank whose accelerator has no node goes where the replica runs fewest ranks (the lower id on
 * ties): it still gets CPUs of its own, on a node of the replica's. */
static void home_nodeless(const struct topology *t, struct placement *pl) {
        for (size_t i = 0; i < pl->n_ranks; i++) {
                if (pl->ranks[i].node >= 0)
                        continue;
                int best = -1;
                unsigned best_n = 0;
                for (size_t ni = 0; ni < t->n_nodes; ni++) {
                        int id = t->nodes[ni].id;
                        struct cpuset on = cpus_on(t, pl, id);
                        unsigned k = ranks_on(pl, id);
                        if (!cpuset_is_empty(&on) && (best < 0 || k < best_n)) {
                                best = id;
                                best_n = k;
                        }
                }
                pl->ranks[i].node = best;
        }
}

/* Numbers the units `cpus` splits into from 0, in the order of the CPU list: its physical cores
 * (SMT siblings one unit) with `by_core`, else its CPUs. unit_of spans CPUSET_MAX. */
static size_t number_units(const struct topology *t, const struct cpuset *cpus, bool by_core, int *unit_of) {
        size_t n = 0;
        _cleanup_free_ int *key_unit = xmalloc(CPUSET_MAX * sizeof(int));
        for (size_t i = 0; i < CPUSET_MAX; i++)
                key_unit[i] = -1;
        CPUSET_FOREACH(c, cpus) {
                int key = by_core && t->core_of && c <= t->max_cpu && t->core_of[c] >= 0 ? t->core_of[c] : c;
                if (key_unit[key] < 0)
                        key_unit[key] = (int) n++;
                unit_of[c] = key_unit[key];
        }
        return n;
}

/* "0, 1, 2 and 3" of the ranks on `node`, and their accelerators. */
static void describe_node_ranks(const struct topology *t, const struct placement *pl, int node, struct strbuf *b) {
        struct strbuf accels = {0};
        unsigned k = 0;
        for (size_t i = 0; i < pl->n_ranks; i++)
                if (pl->ranks[i].node == node) {
                        strbuf_printf(b, "%s%zu", k ? ", " : "", i);
                        strbuf_printf(&accels, "%s%s", k++ ? ", " : "", t->accels[pl->ranks[i].accel].pci);
                }
        strbuf_printf(b, " (%s)", accels.s);
        strbuf_done(&accels);
}

/* The CPUs of the ranks on `node`: `units` split evenly, earlier ranks one more. With fewer units
 * than ranks, rank r takes unit r modulo their number: a CPU then serves two ranks. */
static void split_node(const struct topology *t, struct placement *pl, int node, struct cpuset *given) {
        struct cpuset cpus = cpus_on(t, pl, node);
        cpuset_andnot(&cpus, given); /* a CPU firmware lists in two nodes goes to one rank */
        cpuset_or(given, &cpus);
        unsigned k = ranks_on(pl, node);
        _cleanup_free_ int *unit_of = xmalloc(CPUSET_MAX * sizeof(int));
        size_t units = number_units(t, &cpus, true, unit_of);
        bool by_core = units >= k;
        if (!by_core)
                units = number_units(t, &cpus, false, unit_of);
        size_t base = units / k, extra = units % k, next = 0, seen = 0;
        struct strbuf lists = {0};

        for (size_t i = 0; i < pl->n_ranks; i++) {
                struct placement_rank *r = &pl->ranks[i];
                if (r->node != node)
                        continue;
                size_t take = base + (seen < extra), from = next;
                next += take;
                cpuset_clear(&r->cpus);
                CPUSET_FOREACH(c, &cpus)
                        if (take ? unit_of[c] >= (int) from && unit_of[c] < (int) next
                                 : units && unit_of[c] == (int) (seen % units))
                                cpuset_set(&r->cpus, (unsigned) c);
                seen++;
                _cleanup_free_ char *list = cpuset_format(&r->cpus);
                strbuf_printf(&lists, "%s%s", lists.len ? "; " : "", list);
        }
        struct strbuf ranks = {0};
        describe_node_ranks(t, pl, node, &ranks);
        placement_explain(pl,
                          "rank%s %s on node %d: its %zu %s of the replica there split evenly%s: CPUs %s "
                          "(NUMAPLAN_RANK_CPUS)",
                          k > 1 ? "s" : "", ranks.s, node, units,
                          by_core ? (units == 1 ? "physical core" : "physical cores") : "CPUs",
                          by_core      ? ", SMT siblings together"
                          : units >= k ? " (fewer physical cores than ranks)"
                                       : " (fewer CPUs than ranks: some serve two)",
                          lists.s);
        strbuf_done(&lists);
        strbuf_done(&ranks);
}

void ranks_place(const struct topology *t, struct placement *pl) {
        struct cpuset given = {0};
        order_visible(t, pl);
        home_nodeless(t, pl);
        for (size_t ni = 0; ni < t->n_nodes; ni++) {
                int id = t->nodes[ni].id;
                if (ranks_on(pl, id) == 0)
                        continue;
                if (pl->n_ranks > 1)
                        split_node(t, pl, id, &given);
                else
                        pl->ranks[0].cpus = cpus_on(t, pl, id);
        }
}

char *ranks_nodes_text(const struct placement *pl) {
        struct strbuf b = {0};
        for (size_t i = 0; i < pl->n_ranks; i++)
                strbuf_printf(&b, "%s%d", i ? "," : "", pl->ranks[i].node);
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

char *ranks_cpus_text(const struct placement *pl) {
        struct strbuf b = {0};
        for (size_t i = 0; i < pl->n_ranks; i++) {
                _cleanup_free_ char *list = cpuset_format(&pl->ranks[i].cpus);
                strbuf_printf(&b, "%s%s", i ? ";" : "", list);
        }
        return b.len ? strbuf_steal(&b) : xstrdup("");
}
