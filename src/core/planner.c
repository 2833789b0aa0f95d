/* SPDX-License-Identifier: MIT */
/* Placement, in the order the rules of numaplan.conf(5), PLACEMENT, build on each other:
 *   1. expand the configuration into replicas and give each its accelerators (rule 7);
 *   2. find each replica's home nodes (rules 1 and 6);
 *   3. fit memory, extending to the nearest nodes when the home cannot hold it (rules 2-4);
 *   4. split the CPUs of shared nodes by physical core (rule 5);
 *   5. name the visible devices (rule 9).
 * Every loop runs in a fixed order (config order, %i order, node id, PCI address), so the same
 * input gives the same plan (rule 8). */

#include <inttypes.h>
#include <stdarg.h>

#include "basic/util.h"
#include "core/cpu-split.h"
#include "core/memory-place.h"
#include "core/planner-nics.h"
#include "core/planner.h"
#include "core/ranks.h"
#include "core/unit-name.h"

/* What the planner works with, from the host and the configuration to the plan it fills. */
struct planning {
        const struct topology *t;
        const struct config *c;
        struct plan *p;
        struct warnings *w;
        struct error_at *err;
        uint64_t *usable, *assigned;            /* by topology node index */
        struct cpuset *cpus;                    /* each node's CPUs for planning, by node index (see below) */
        unsigned *replicas_on;                  /* replicas whose mask holds the node, by node index */
        struct cpuset *cpu_nodes;               /* the nodes each replica runs on, by replica (see place_cpus) */
        const struct replica_conf **claimed_by; /* by accelerator index */
};

_printf_(3, 4) static int fail(struct planning *pn, struct where at, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        int r = error_at_setv(pn->err, at, fmt, ap);
        va_end(ap);
        return r;
}

/* A decision and its reasons, in words, for `numaplan plan -v` and plan --json's "why". */
#define explain placement_explain
static char *format_size(uint64_t v) {
        char buf[FORMAT_BYTES_MAX];
        format_bytes(buf, sizeof(buf), v);
        return xstrdup(buf);
}

static int node_index(const struct planning *pn, int node) {
        return topology_node_index(pn->t, node);
}

static uint64_t free_on(const struct planning *pn, int node) {
        int i = node_index(pn, node);
        /* A preferred replica may be counted beyond usable (the kernel spills it): none left. */
        return pn->usable[i] > pn->assigned[i] ? pn->usable[i] - pn->assigned[i] : 0;
}

static bool has_cpus(const struct planning *pn, int node) {
        return !cpuset_is_empty(&pn->cpus[node_index(pn, node)]);
}

/* Whether the node at index `i` can be a home: CPUs, and memory that is the CPUs' own (DRAM, or
 * nothing says otherwise), not GPU memory, NVM, CXL or HBM. */
static bool local_node(const struct planning *pn, size_t i) {
        return !cpuset_is_empty(&pn->cpus[i]) && memory_kind_allowed(pn->t->nodes[i].memory.kinds, 0);
}

/* Whether node `id` is a GPU's own memory (Grace Hopper, GB200: the GPU's numa_node). */
static bool gpu_memory_node(const struct planning *pn, int id) {
        const struct node *n = topology_node(pn->t, id);
        return n && (n->memory.kinds & MEMORY_GPU);
}

/* The node with CPUs and DRAM nearest `node` (lower id on ties); -1 if there is none. */
static int nearest_with_cpus(const struct planning *pn, int node) {
        int best = -1, best_d = 0;
        for (size_t i = 0; i < pn->t->n_nodes; i++) {
                const struct node *n = &pn->t->nodes[i];
                int d = topology_distance(pn->t, node, n->id);
                if (local_node(pn, i) && (best < 0 || d < best_d)) {
                        best = n->id;
                        best_d = d;
                }
        }
        return best;
}

/* The node an accelerator is planned on: its own, or, when its node is its own GPU memory, the
 * node with CPUs and DRAM nearest that memory. */
static int accel_node(const struct planning *pn, size_t accel) {
        int n = pn->t->accels[accel].numa_node;
        return n >= 0 && gpu_memory_node(pn, n) ? nearest_with_cpus(pn, n) : n;
}

/* ---- 1. replicas and their accelerators ---- */

static struct placement *add_placement(struct planning *pn, const struct replica_conf *r, int instance) {
        struct plan *p = pn->p;
        p->replicas = xgrow(p->replicas, p->n_replicas, sizeof(*p->replicas));
        struct placement *pl = &p->replicas[p->n_replicas++];
        *pl = (struct placement){.conf = r};
        char n[16] = "";
        if (instance >= 0)
                snprintf(n, sizeof(n), "%d", instance);
        pl->name = instance < 0 ? xstrdup(r->name) : xasprintf("%s-%s", r->name, n);
        /* Outside a template neither holds %i: the configuration refuses it there. */
        pl->unit = unit_template_instance(r->unit, n);
        pl->container = r->container ? unit_template_instance(r->container, n) : NULL;
        pl->min_local_bp = replica_min_local(pn->c, r);
        pl->warmup_timeout_ms = replica_warmup_timeout(pn->c, r);
        pl->warmup_url = r->warmup_url ? unit_template_instance(r->warmup_url, n) : NULL;
        pl->warmup_body = r->warmup_body;
        pl->visible_devices = replica_visible_devices(pn->c, r);
        pl->irq_affinity = replica_irq_affinity(pn->c, r);
        return pl;
}

/* Keeps a replica's accelerators in PCI-address order (the topology's order): device 0 in the
 * process is its lowest address, as CUDA_DEVICE_ORDER=PCI_BUS_ID counts them. */
static void give_accelerator(struct planning *pn, struct placement *pl, size_t accel) {
        size_t j = pl->n_accels;
        pl->accels = xrealloc(pl->accels, (pl->n_accels + 1) * sizeof(size_t));
        for (; j > 0 && pl->accels[j - 1] > accel; j--)
                pl->accels[j] = pl->accels[j - 1];
        pl->accels[j] = accel;
        pl->n_accels++;
        pn->claimed_by[accel] = pl->conf;
}

static int claim_listed(struct planning *pn, struct placement *pl) {
        const struct replica_conf *r = pl->conf;

        for (size_t j = 0; j < r->accelerators.n; j++) {
                const struct pci_device *a = topology_accel(pn->t, r->accelerators.pci[j]);
                if (!a) {
                        _cleanup_free_ char *found = topology_list_accelerators(pn->t);
                        return fail(pn, replica_where(r, REPLICA_ACCELERATORS),
                                    "replica %s: unknown accelerator %s; this host has: %s", r->name,
                                    r->accelerators.pci[j], found);
                }
                size_t i = (size_t) (a - pn->t->accels);
                if (!a->compute)
                        warnings_add(pn->w, WARNING_ACCELERATOR_NOT_COMPUTE, a->pci,
                                     "replica %s names %s, a display controller of a board-management or emulated "
                                     "display (vendor 0x%04x), not a compute accelerator: placed by it as asked",
                                     r->name, a->pci, a->vendor);
                if (pn->claimed_by[i])
                        return fail(pn, replica_where(r, REPLICA_ACCELERATORS),
                                    "replica %s: accelerator %s already belongs to replica %s (%s:%u)", r->name, a->pci,
                                    pn->claimed_by[i]->name,
                                    replica_where(pn->claimed_by[i], REPLICA_ACCELERATORS).file,
                                    replica_where(pn->claimed_by[i], REPLICA_ACCELERATORS).line);
                give_accelerator(pn, pl, i);
        }
        return 0;
}

/* count:N: N unclaimed compute accelerators on as few nodes as possible. Greedy by how many each
 * node still has is optimal for that; ties go to the node nearest those already chosen, then to
 * the lower id. */
static int claim_count(struct planning *pn, struct placement *pl) {
        const struct topology *t = pn->t;
        const struct replica_conf *r = pl->conf;
        unsigned need = r->accelerators.count, have = 0;
        struct cpuset chosen = {0};

        for (size_t i = 0; i < t->n_accels; i++)
                have += t->accels[i].compute && !pn->claimed_by[i] && accel_node(pn, i) >= 0;
        if (have < need)
                return fail(pn, replica_where(r, REPLICA_ACCELERATORS),
                            "replica %s: count:%u asks for %u compute accelerators with a node; %u are left", r->name,
                            need, need, have);

        while (need > 0) {
                int best = -1;
                unsigned best_n = 0, best_d = 0;
                for (size_t ni = 0; ni < t->n_nodes; ni++) {
                        int id = t->nodes[ni].id;
                        unsigned n = 0, d = 0;
                        if (cpuset_isset(&chosen, id))
                                continue;
                        for (size_t i = 0; i < t->n_accels; i++)
                                n += t->accels[i].compute && !pn->claimed_by[i] && accel_node(pn, i) == id;
                        CPUSET_FOREACH(c, &chosen) {
                                unsigned dd = (unsigned) topology_distance(t, c, id);
                                d = d == 0 || dd < d ? dd : d;
                        }
                        if (n > best_n || (n == best_n && n > 0 && d < best_d)) {
                                best = id;
                                best_n = n;
                                best_d = d;
                        }
                }
                cpuset_set(&chosen, (unsigned) best);
                for (size_t i = 0; i < t->n_accels && need > 0; i++)
                        if (t->accels[i].compute && !pn->claimed_by[i] && accel_node(pn, i) == best) {
                                give_accelerator(pn, pl, i);
                                need--;
                        }
        }
        return 0;
}

/* A template that placed nothing would otherwise pass unseen beside the sections that did. */
static void say_places_nothing(struct planning *pn, const struct replica_conf *r, bool per_node) {
        const struct topology *t = pn->t;
        const struct where at = replica_where(r, REPLICA_PER);
        size_t compute = 0;

        for (size_t i = 0; i < t->n_accels; i++)
                compute += t->accels[i].compute;
        warnings_add(pn->w, WARNING_PLACES_NOTHING, r->name, "%s:%u: [replicas %s] places no replica: %s", at.file,
                     at.line, r->name,
                     per_node   ? "per = node, and no node of this host has both CPUs and memory of its own (DRAM)"
                     : !compute ? "per = accelerator, and this host shows no compute accelerator (per = node "
                                  "places one on each node)"
                                : "per = accelerator, and every compute accelerator of this host is another "
                                  "section's");
}

static void expand_template(struct planning *pn, const struct replica_conf *r) {
        const struct topology *t = pn->t;
        bool per_node = r->per == PER_NODE;
        int instance = 0;

        /* The built-in default: per accelerator where there are compute accelerators. */
        if (pn->c->builtin_default) {
                per_node = true;
                for (size_t i = 0; i < t->n_accels; i++)
                        per_node = per_node && !t->accels[i].compute;
        }

        if (!per_node) {
                for (size_t i = 0; i < t->n_accels; i++)
                        if (t->accels[i].compute && !pn->claimed_by[i])
                                give_accelerator(pn, add_placement(pn, r, instance++), i);
                if (instance == 0 && !pn->c->builtin_default)
                        say_places_nothing(pn, r, false);
                return;
        }
        for (size_t ni = 0; ni < t->n_nodes; ni++) {
                const struct node *n = &t->nodes[ni];
                /* Never a node whose memory is GPU memory, NVM, CXL or HBM. */
                if (!local_node(pn, ni))
                        continue;
                struct placement *pl = add_placement(pn, r, instance++);
                cpuset_set(&pl->home, (unsigned) n->id);
                for (size_t i = 0; i < t->n_accels; i++)
                        if (t->accels[i].compute && !pn->claimed_by[i] && accel_node(pn, i) == n->id)
                                give_accelerator(pn, pl, i);
        }
        if (instance == 0 && !pn->c->builtin_default)
                say_places_nothing(pn, r, true);
}

/* Puts v[order[k]] at v[k] for each k, in place, one cycle of the permutation at a time: a
 * placement is 3 KiB, and a copy of them all would be a second array. Leaves `order` the identity. */
static void reorder(struct placement *v, size_t *order, size_t n) {
        for (size_t i = 0; i < n; i++) {
                if (order[i] == i)
                        continue;
                struct placement held = v[i];
                size_t j = i;
                while (order[j] != i) {
                        size_t k = order[j];
                        v[j] = v[k];
                        order[j] = j;
                        j = k;
                }
                v[j] = held;
                order[j] = j;
        }
}

/* Listed accelerators are claimed first wherever their section stands, then count:N in config
 * order, then templates; the plan keeps config order, templates expanded in place. */
static int expand(struct planning *pn) {
        const struct config *c = pn->c;
        struct plan *p = pn->p;
        size_t *first = xmalloc0((c->n_replicas + 1) * sizeof(size_t));
        int r = 0;

        /* Explicit replicas get their slots now, templates a marker to expand later. */
        for (size_t i = 0; i < c->n_replicas; i++) {
                first[i] = p->n_replicas;
                if (!c->replicas[i].is_template)
                        add_placement(pn, &c->replicas[i], -1);
        }
        first[c->n_replicas] = p->n_replicas;
        for (size_t i = 0; r == 0 && i < p->n_replicas; i++)
                if (p->replicas[i].conf->accelerators.mode == ACCEL_LIST)
                        r = claim_listed(pn, &p->replicas[i]);
        for (size_t i = 0; r == 0 && i < p->n_replicas; i++)
                if (p->replicas[i].conf->accelerators.mode == ACCEL_COUNT)
                        r = claim_count(pn, &p->replicas[i]);
        if (r < 0) {
                free(first);
                return r;
        }

        /* Templates expand at the end of the array; then everything is put back in config order. */
        size_t *tfirst = xmalloc0((c->n_replicas + 1) * sizeof(size_t));
        for (size_t i = 0; i < c->n_replicas; i++) {
                tfirst[i] = p->n_replicas;
                if (c->replicas[i].is_template)
                        expand_template(pn, &c->replicas[i]);
        }
        tfirst[c->n_replicas] = p->n_replicas;

        size_t *order = xmalloc0((p->n_replicas + 1) * sizeof(size_t)), n = 0;
        for (size_t i = 0; i < c->n_replicas; i++) {
                size_t from = c->replicas[i].is_template ? tfirst[i] : first[i];
                size_t to = c->replicas[i].is_template ? tfirst[i + 1] : first[i] + 1;
                for (size_t j = from; j < to; j++)
                        order[n++] = j;
        }
        reorder(p->replicas, order, n);
        free(order);
        free(first);
        free(tfirst);

        for (size_t i = 0; i < p->n_replicas; i++)
                for (size_t j = 0; j < i; j++)
                        if (streq(p->replicas[i].unit, p->replicas[j].unit))
                                return fail(pn, replica_where(p->replicas[i].conf, REPLICA_UNIT),
                                            "replica %s: unit %s is also replica %s's", p->replicas[i].name,
                                            p->replicas[i].unit, p->replicas[j].name);
        return 0;
}

/* ---- 2. home nodes ---- */

static void find_home(struct planning *pn, struct placement *pl) {
        for (size_t j = 0; j < pl->n_accels; j++) {
                const struct pci_device *a = &pn->t->accels[pl->accels[j]];
                if (a->numa_node < 0 || node_index(pn, a->numa_node) < 0) {
                        /* One warning for one cause: the host's about this accelerator, with what it
                         * means for this replica, and one piece of advice. */
                        warnings_put(pn->w, WARNING_ACCELERATOR_NO_NODE, a->pci,
                                     "accelerator %s reports no NUMA node (numa_node is -1 and its local CPUs do not "
                                     "fall in one node): replica %s is placed as a CPU-only replica; set "
                                     "accelerator-nodes = %s=NODE in [numaplan]",
                                     a->pci, pl->name, a->pci);
                        explain(pl, "accelerator %s reports no NUMA node: no home from it", a->pci);
                        continue;
                }
                int home = a->numa_node;
                if (gpu_memory_node(pn, home)) {
                        home = nearest_with_cpus(pn, a->numa_node);
                        explain(pl,
                                "accelerator %s's node %d is its own GPU memory, never a replica's: home node %d, "
                                "the nearest with CPUs and DRAM (rule 6)",
                                a->pci, a->numa_node, home);
                } else if (!local_node(pn, (size_t) node_index(pn, home))) {
                        /* Rule 6: a memory-only node is never a CPU home. */
                        int near = nearest_with_cpus(pn, home);
                        unsigned kinds = topology_node(pn->t, home)->memory.kinds;
                        _cleanup_free_ char *advice =
                                memory_kind_forbidden(kinds)
                                        ? xasprintf("its %s never holds a replica's memory", memory_kind_words(kinds))
                                        : xasprintf("memory-nodes = %d adds that node's memory", home);
                        warnings_add(pn->w, WARNING_MEMORY_ONLY_HOME, pl->name,
                                     "replica %s: accelerator %s sits on memory-only node %d; homed on node %d, the "
                                     "nearest with CPUs (%s)",
                                     pl->name, a->pci, home, near, advice);
                        explain(pl,
                                "accelerator %s sits on memory-only node %d: home node %d, the nearest with CPUs "
                                "(rule 6)",
                                a->pci, home, near);
                        home = near;
                } else
                        explain(pl, "home node %d: accelerator %s is on it (%s, rule 1)", home, a->pci,
                                numa_source_to_string(a->numa_source));
                if (home >= 0)
                        cpuset_set(&pl->home, (unsigned) home);
        }
}

/* Each accelerator's rank on the node find_home() homed it on: its own, or the nearest with CPUs
 * for one on a memory-only node; -1 for one without a node (core/ranks.h places it later). */
static void find_rank_nodes(struct planning *pn, struct placement *pl) {
        _cleanup_free_ int *node_of = xmalloc0((pl->n_accels + 1) * sizeof(int));
        for (size_t j = 0; j < pl->n_accels; j++) {
                int n = pn->t->accels[pl->accels[j]].numa_node, i = n >= 0 ? node_index(pn, n) : -1;
                node_of[j] = i < 0 ? -1 : local_node(pn, (size_t) i) ? n : nearest_with_cpus(pn, n);
        }
        ranks_init(pl, node_of);
}

/* Rule 1 for CPU-only replicas: the node with CPUs with the most usable memory left, then the
 * fewest replicas, then the lowest id. */
static int roomiest_node(const struct planning *pn) {
        int best = -1;
        for (size_t i = 0; i < pn->t->n_nodes; i++) {
                if (!local_node(pn, i))
                        continue;
                if (best < 0) {
                        best = (int) i;
                        continue;
                }
                uint64_t f = free_on(pn, pn->t->nodes[i].id), bf = free_on(pn, pn->t->nodes[best].id);
                if (f > bf || (f == bf && pn->replicas_on[i] < pn->replicas_on[best]))
                        best = (int) i;
        }
        return best < 0 ? -1 : pn->t->nodes[best].id;
}

/* ---- 3. memory ---- */

/* How much of a bound replica's memory each node of its set takes first: its ranks' share there
 * (each rank allocates on its own node, the nearest to its CPUs), else its home's, else the first
 * node's. weight[] is by node id, over `set`; returns their sum. */
static unsigned bind_weights(const struct placement *pl, const struct cpuset *set, unsigned *weight) {
        unsigned total = 0;
        CPUSET_FOREACH(n, set)
                total += weight[n] = ranks_on(pl, n);
        CPUSET_FOREACH(n, set)
                if (total == 0 && cpuset_isset(&pl->home, n))
                        total += weight[n] = 1;
        if (total == 0)
                total = weight[cpuset_next(set, 0)] = 1;
        return total;
}

/* The node of `set` with room left nearest a weighted one (then the lower id); -1 when none. */
static int nearest_with_room(const struct planning *pn, const struct cpuset *set, const unsigned *weight) {
        int best = -1, best_d = 0;
        CPUSET_FOREACH(n, set) {
                int d = -1;
                if (free_on(pn, n) == 0)
                        continue;
                CPUSET_FOREACH(w, set)
                        if (weight[w]) {
                                int dd = topology_distance(pn->t, w, n);
                                d = d < 0 || dd < d ? dd : d;
                        }
                if (best < 0 || d < best_d) {
                        best = n;
                        best_d = d;
                }
        }
        return best;
}

/* Books bound memory as the kernel places it: a page comes from the allowed node nearest the CPU
 * that asks for it (set_mempolicy(2)), so each node takes its weight's share, and what a full node
 * cannot hold goes to the nearest node with room. The caller made sure the set holds it all. */
static void book_bind(struct planning *pn, const struct placement *pl, const struct cpuset *set, uint64_t mem) {
        int last = 0;
        CPUSET_FOREACH(n, set)
                last = n;
        /* By node id up to the set's last: a few entries, where CPUSET_MAX's cost a 32 KiB clear a call. */
        _cleanup_free_ unsigned *weight = xmalloc0(((size_t) last + 1) * sizeof(unsigned));
        unsigned total = bind_weights(pl, set, weight), before = 0;
        uint64_t excess = 0;
        CPUSET_FOREACH(n, set) {
                if (!weight[n])
                        continue;
                /* Cumulative shares: they add up to `mem` exactly, whatever the rounding. */
                uint64_t lo = (uint64_t) ((unsigned __int128) mem * before / total);
                before += weight[n];
                uint64_t share = (uint64_t) ((unsigned __int128) mem * before / total) - lo,
                         take = share < free_on(pn, n) ? share : free_on(pn, n);
                pn->assigned[node_index(pn, n)] += take;
                excess += share - take;
        }
        for (int n; excess > 0 && (n = nearest_with_room(pn, set, weight)) >= 0;) {
                uint64_t take = excess < free_on(pn, n) ? excess : free_on(pn, n);
                pn->assigned[node_index(pn, n)] += take;
                excess -= take;
        }
}

/* Whether `mem` fits `set` under `policy`; with `commit`, books it the way the kernel fills
 * memory: bound near each rank (book_bind()), interleaved evenly, preferred on its one node. */
static bool fits(struct planning *pn, const struct placement *pl, const struct cpuset *set, enum policy policy,
                 uint64_t mem, bool commit) {
        unsigned k = cpuset_count(set);
        if (k == 0)
                return false;
        if (policy == POLICY_INTERLEAVE) {
                uint64_t share = mem / k, extra = mem % k;
                unsigned j = 0;
                CPUSET_FOREACH(n, set)
                        if (share + (j++ < extra) > free_on(pn, n))
                                return false;
                j = 0;
                if (commit)
                        CPUSET_FOREACH(n, set)
                                pn->assigned[node_index(pn, n)] += share + (j++ < extra);
                return true;
        }
        uint64_t left = mem;
        CPUSET_FOREACH(n, set)
                left -= left < free_on(pn, n) ? left : free_on(pn, n);
        if (left > 0 || !commit)
                return left == 0;
        book_bind(pn, pl, set, mem);
        return true;
}

static char *describe_room(const struct planning *pn, const struct cpuset *set) {
        struct strbuf b = {0};
        CPUSET_FOREACH(n, set) {
                _cleanup_free_ char *f = format_size(free_on(pn, n)), *u = format_size(pn->usable[node_index(pn, n)]);
                strbuf_printf(&b, "%snode %d: %s left of %s usable", b.len ? "; " : "", n, f, u);
        }
        return strbuf_steal(&b);
}

/* Rule 3: nodes added nearest first (by distance to the closest node already in the set, then
 * id), only nodes with CPUs and memory: memory-only nodes join a mask only on request. */
static int nearest_candidate(const struct planning *pn, const struct cpuset *set) {
        int best = -1, best_d = 0;
        for (size_t i = 0; i < pn->t->n_nodes; i++) {
                const struct node *n = &pn->t->nodes[i];
                if (cpuset_isset(set, n->id) || !local_node(pn, i) || pn->usable[i] == 0)
                        continue;
                int d = -1;
                CPUSET_FOREACH(s, set) {
                        int dd = topology_distance(pn->t, s, n->id);
                        d = d < 0 || dd < d ? dd : d;
                }
                if (best < 0 || d < best_d) {
                        best = n->id;
                        best_d = d;
                }
        }
        return best;
}

/* Planning counts MemTotal less headroom; what a node can hand out now (free plus reclaimable) may
 * be less, if something else fills it. A bind replica cannot fall back: say so. */
static void check_available(struct planning *pn, const struct placement *pl, const struct cpuset *set, uint64_t mem) {
        uint64_t available = 0;
        CPUSET_FOREACH(n, set) {
                const struct node *node = topology_node(pn->t, n);
                if (!node->memory_known || node->mem_available == 0)
                        return; /* unknown: nothing to say */
                available += node->mem_available;
        }
        if (mem <= available)
                return;
        _cleanup_free_ char *need = format_size(mem), *have = format_size(available), *nodes = cpuset_format(set);
        char subject[16];
        snprintf(subject, sizeof(subject), "%d", cpuset_next(set, 0));
        warnings_add(pn->w, WARNING_NODE_MEMORY_LOW, subject,
                     "replica %s needs %s bound to node%s %s, which %s %s available now (free plus reclaimable): it "
                     "will not start, or will swap, until something there is freed",
                     pl->name, need, cpuset_count(set) > 1 ? "s" : "", nodes, cpuset_count(set) > 1 ? "have" : "has",
                     have);
}

/* The line that set the memory: memory =, or model = when the model's size is the memory. */
static struct where memory_where(const struct replica_conf *r) {
        return replica_has(r, REPLICA_MEMORY) || !r->models ? replica_where(r, REPLICA_MEMORY)
                                                            : replica_where(r, REPLICA_MODEL);
}

/* Whether the node at index `i` is one of tier `bit` (TIERS_CXL, TIERS_HBM) that a replica with
 * memory-tiers `tiers` may take: memory of that kind, none it may never have, some to use. */
static bool tier_node(const struct planning *pn, size_t i, unsigned bit, unsigned tiers) {
        unsigned kinds = pn->t->nodes[i].memory.kinds;
        return (memory_kind_tiers(kinds) & bit) && memory_kind_allowed(kinds, tiers) && pn->usable[i] > 0;
}

/* Whether the node at index `i` has plain memory (DRAM, or a kind nothing said) to hold a
 * replica's: the memory of a home node that has none. */
static bool local_memory_node(const struct planning *pn, size_t i, unsigned bit, unsigned tiers) {
        unsigned kinds = pn->t->nodes[i].memory.kinds;
        (void) bit, (void) tiers;
        return pn->t->nodes[i].mem_total > 0 && memory_kind_tiers(kinds) == 0 && memory_kind_allowed(kinds, 0);
}

/* The nodes that pass `test` nearest node `h` by node distance: all of them at the smallest
 * distance, so that an expander split in two nodes, or a socket's several HBM nodes, come whole. */
static struct cpuset nearest_nodes(const struct planning *pn, int h,
                                   bool (*test)(const struct planning *, size_t, unsigned, unsigned), unsigned bit,
                                   unsigned tiers) {
        struct cpuset s = {0};
        int best = -1;
        for (size_t i = 0; i < pn->t->n_nodes; i++)
                if (test(pn, i, bit, tiers)) {
                        int d = topology_distance(pn->t, h, pn->t->nodes[i].id);
                        if (best < 0 || d < best) {
                                cpuset_clear(&s);
                                best = d;
                        }
                        if (d == best)
                                cpuset_set(&s, (unsigned) pn->t->nodes[i].id);
                }
        return s;
}

/* memory-tiers = local+cxl, local+hbm: each home node's nearest CXL or HBM nodes join the set. */
static void add_tiers(struct planning *pn, struct placement *pl, struct cpuset *set) {
        unsigned tiers = replica_memory_tiers(pn->c, pl->conf);

        for (unsigned bit = TIERS_CXL; bit <= TIERS_HBM; bit <<= 1) {
                const char *name = bit == TIERS_CXL ? "CXL memory" : "HBM";
                struct cpuset add = {0};
                if (!(tiers & bit))
                        continue;
                CPUSET_FOREACH(h, &pl->home) {
                        struct cpuset near = nearest_nodes(pn, h, tier_node, bit, tiers);
                        cpuset_or(&add, &near);
                }
                _cleanup_free_ char *a = cpuset_format(&add), *h = cpuset_format(&pl->home);
                if (cpuset_is_empty(&add))
                        explain(pl, "memory-tiers = %s: this host has no %s node to add", memory_tiers_to_string(tiers),
                                name);
                else
                        explain(pl,
                                "memory-tiers = %s: adds node%s %s, the %s nearest its home node%s %s by node "
                                "distance",
                                memory_tiers_to_string(tiers), cpuset_count(&add) > 1 ? "s" : "", a, name,
                                cpuset_count(&pl->home) > 1 ? "s" : "", h);
                cpuset_or(set, &add);
        }
}

/* Why memory-nodes may not name node `n`: NULL when it may. */
static char *memory_node_problem(const struct planning *pn, const struct placement *pl, int n) {
        int i = node_index(pn, n);
        unsigned tiers = replica_memory_tiers(pn->c, pl->conf);

        if (i < 0 || pn->t->nodes[i].mem_total == 0)
                return xstrdup(i < 0 ? "this host does not have" : "has no memory");
        unsigned kinds = pn->t->nodes[i].memory.kinds;
        if (memory_kind_forbidden(kinds)) {
                _cleanup_free_ char *where = memory_forbidden_where(pn->t, n);
                return xasprintf("is %s: a replica's memory never goes there", where);
        }
        if (!memory_kind_allowed(kinds, tiers)) {
                unsigned want = tiers | memory_kind_tiers(kinds);
                return xasprintf("is %s, which memory-tiers = %s leaves out: set memory-tiers = %s",
                                 memory_kind_words(kinds), memory_tiers_to_string(tiers), memory_tiers_to_string(want));
        }
        return NULL;
}

/* The memory of the replica's home: each home node's own, or for a node without memory (CPUs
 * only, on hosts whose memory sits in nodes of its own) the nearest nodes that have some, which
 * a mask of that node alone would not give it: the kernel refuses a policy of no memory. */
static struct cpuset home_memory(struct planning *pn, struct placement *pl) {
        struct cpuset set = {0};
        CPUSET_FOREACH(h, &pl->home) {
                int i = node_index(pn, h);
                if (i < 0 || pn->t->nodes[i].mem_total > 0 || !pn->t->nodes[i].memory_known) {
                        cpuset_set(&set, h);
                        continue;
                }
                struct cpuset near = nearest_nodes(pn, h, local_memory_node, 0, 0);
                _cleanup_free_ char *s = cpuset_format(&near);
                if (cpuset_is_empty(&near))
                        cpuset_set(&set, h);
                else
                        explain(pl,
                                "home node %u has no memory: its memory goes to node%s %s, the nearest with "
                                "memory by node distance",
                                h, cpuset_count(&near) > 1 ? "s" : "", s);
                cpuset_or(&set, &near);
        }
        return set;
}

/* The replica's memory nodes: its home's, those memory-nodes adds, and those memory-tiers adds. */
static int memory_node_set(struct planning *pn, struct placement *pl, struct cpuset *ret) {
        const struct replica_conf *r = pl->conf;
        struct cpuset set = home_memory(pn, pl);

        CPUSET_FOREACH(n, &r->memory_nodes) {
                _cleanup_free_ char *why = memory_node_problem(pn, pl, n);
                if (why)
                        return fail(pn, replica_where(r, REPLICA_MEMORY_NODES),
                                    "replica %s: memory-nodes names node %d, which %s", pl->name, n, why);
                cpuset_set(&set, (unsigned) n);
        }
        add_tiers(pn, pl, &set);
        *ret = set;
        return 0;
}

/* For the messages of a replica that does not fit: the nodes it was never given, when there are. */
static char *never_used(const struct planning *pn) {
        struct cpuset bad = memory_forbidden_nodes(pn->t);
        if (cpuset_is_empty(&bad))
                return xstrdup("");
        _cleanup_free_ char *s = cpuset_format(&bad);
        return xasprintf("; GPU memory and NVM never hold a replica's memory (node%s %s)",
                         cpuset_count(&bad) > 1 ? "s" : "", s);
}

/* policy = preferred: one node, asked for, not guaranteed. */
static int place_preferred(struct planning *pn, struct placement *pl, const struct cpuset *set) {
        _cleanup_free_ char *nodes = cpuset_format(set);
        uint64_t mem = pl->memory;
        if (cpuset_count(set) != 1)
                return fail(pn, replica_where(pl->conf, REPLICA_POLICY),
                            "replica %s: policy = preferred needs exactly one node, and it would have nodes %s (its "
                            "memory-nodes or memory-tiers)",
                            pl->name, nodes);
        _cleanup_free_ char *need = format_size(mem), *room = describe_room(pn, set);
        struct cpuset bad = memory_forbidden_nodes(pn->t);
        if (!cpuset_is_empty(&bad) && !fits(pn, pl, set, POLICY_PREFERRED, mem, false)) {
                /* The kernel spills by distance, and GPU memory may well be the nearest. */
                _cleanup_free_ char *b = cpuset_format(&bad);
                return fail(pn, replica_where(pl->conf, REPLICA_POLICY),
                            "replica %s needs %s but its preferred node %s has less (%s): the kernel would spill the "
                            "rest to the nearest nodes, and on this host those may be GPU memory or NVM (nodes %s); "
                            "use policy = bind or auto, or less memory",
                            pl->name, need, nodes, room, b);
        }
        if (!fits(pn, pl, set, POLICY_PREFERRED, mem, true)) {
                /* Counted there in full, and the kernel takes the rest from the nearest nodes. */
                pn->assigned[node_index(pn, cpuset_next(set, 0))] += mem;
                warnings_add(pn->w, WARNING_PREFERRED_SPILLS, pl->name,
                             "replica %s needs %s but its preferred node has less (%s): the kernel will spill the rest "
                             "to the nearest nodes (policy = preferred)",
                             pl->name, need, room);
        }
        explain(pl, "policy preferred, as asked, on node %s: needs %s (%s) (rule 3)", nodes, need, room);
        pl->policy = POLICY_PREFERRED;
        pl->nodes = *set;
        return 0;
}

/* Rule 3: a replica that does not fit its nodes extends to the nearest, bound across them unless
 * interleave was asked. */
static int extend_to_fit(struct planning *pn, struct placement *pl, struct cpuset *set, enum policy asked,
                         enum policy *mode) {
        const struct replica_conf *r = pl->conf;
        uint64_t mem = pl->memory;
        _cleanup_free_ char *need = format_size(mem), *room0 = describe_room(pn, set);
        struct cpuset home = *set;
        int n;

        while (!fits(pn, pl, set, *mode, mem, false) && (n = nearest_candidate(pn, set)) >= 0)
                cpuset_set(set, (unsigned) n);
        _cleanup_free_ char *room = describe_room(pn, set), *s = cpuset_format(set), *h = cpuset_format(&home);
        if (!fits(pn, pl, set, *mode, mem, false)) {
                _cleanup_free_ char *never = never_used(pn);
                return fail(pn, memory_where(r), "replica %s needs %s%s and no set of nodes holds it: nodes %s (%s)%s",
                            pl->name, need, *mode == POLICY_INTERLEAVE ? " interleaved" : "", s, room, never);
        }
        pl->extended = true;
        const char *plural = cpuset_count(&home) > 1 ? "s" : "";
        if (asked == POLICY_BIND)
                warnings_add(pn->w, WARNING_BIND_EXTENDED, pl->name,
                             "replica %s does not fit node%s %s; bound to nodes %s as asked (policy = bind): the "
                             "kernel takes each page from the nearest of them with room",
                             pl->name, plural, h, s);
        else
                warnings_add(pn->w, WARNING_REPLICA_EXTENDED, pl->name,
                             "replica %s needs %s and does not fit node%s %s (%s): extended to nodes %s, bound over "
                             "them, with their CPUs",
                             pl->name, need, plural, h, room0, s);
        explain(pl, "needs %s, which node%s %s cannot hold (%s): extended nearest first to nodes %s (%s), %s (rule 3)",
                need, plural, h, room0, s, room,
                *mode == POLICY_INTERLEAVE ? "interleaved as asked"
                                           : "bound, each page from the nearest of them with room");
        return 0;
}

/* Why several nodes are bound, not interleaved: each rank's memory, its pinned staging buffers
 * first, stays on its own node; interleaving the whole process spread them over every node of
 * the set, which measured decode ten times slower (numaplan.conf(5), PLACEMENT). */
static void explain_bind_span(struct placement *pl, const struct cpuset *set) {
        _cleanup_free_ char *nodes = cpuset_format(set);
        explain(pl,
                "bind over nodes %s, not interleave: the kernel takes each page from the node of the set nearest "
                "the CPU that allocates it (the next nearest once that one is full), so what a process allocates "
                "stays where it runs, a rank's on its accelerator's node; interleaving the whole process would also "
                "spread the pinned staging buffers every copy to a GPU goes through, measured to make decode ten "
                "times slower (policy = interleave still asks for it)",
                nodes);
}

static int place_memory(struct planning *pn, struct placement *pl) {
        enum policy asked = replica_policy(pn->c, pl->conf);
        struct cpuset set;
        uint64_t mem = pl->memory;

        int r = memory_node_set(pn, pl, &set);
        if (r < 0)
                return r;
        if (asked == POLICY_PREFERRED)
                return place_preferred(pn, pl, &set);
        /* Rules 2-4: bind unless interleave is asked by name, across nodes too. */
        enum policy mode = asked == POLICY_AUTO ? POLICY_BIND : asked;
        if (!fits(pn, pl, &set, mode, mem, false)) {
                r = extend_to_fit(pn, pl, &set, asked, &mode);
                if (r < 0)
                        return r;
        } else {
                _cleanup_free_ char *nodes = cpuset_format(&set), *need = format_size(mem),
                                    *room = describe_room(pn, &set);
                explain(pl, "needs %s and fits node%s %s (%s): policy %s (%s)", need, cpuset_count(&set) > 1 ? "s" : "",
                        nodes, room, policy_to_string(mode),
                        asked != POLICY_AUTO          ? "as asked"
                        : cpuset_count(&pl->home) > 1 ? "its accelerators span nodes, rule 4"
                                                      : "rule 2");
        }
        if (mode == POLICY_BIND && asked == POLICY_AUTO && cpuset_count(&set) > 1)
                explain_bind_span(pl, &set);
        if (mode == POLICY_BIND)
                check_available(pn, pl, &set, mem);
        fits(pn, pl, &set, mode, mem, true);
        pl->policy = mode;
        pl->nodes = set;
        CPUSET_FOREACH(n, &set)
                pn->replicas_on[node_index(pn, n)]++;
        return 0;
}

/* The model's page cache is kept on the replica's nodes (numaplan prepare): it must fit there. */
static int check_model(struct planning *pn, struct placement *pl) {
        const struct replica_conf *r = pl->conf;
        uint64_t room = 0;

        /* With model-copies the copy is what stays on its nodes (place_copies()). */
        if (r->model_bytes == 0 || r->model_copies == MODEL_COPIES_PER_NODE)
                return 0;
        CPUSET_FOREACH(n, &pl->nodes)
                room += pn->usable[node_index(pn, n)];
        _cleanup_free_ char *model = format_size(r->model_bytes), *usable = format_size(room),
                            *nodes = cpuset_format(&pl->nodes);
        if (r->model_bytes > room)
                return fail(pn, replica_where(r, REPLICA_MODEL),
                            "replica %s: its model (%s in files) is larger than its node%s %s can hold (%s usable): "
                            "its page cache cannot stay there",
                            pl->name, model, cpuset_count(&pl->nodes) > 1 ? "s" : "", nodes, usable);
        explain(pl, "model: %s in files, kept in page cache on node%s %s (%s usable)", model,
                cpuset_count(&pl->nodes) > 1 ? "s" : "", nodes, usable);
        return 0;
}

static bool same_models(const struct replica_conf *a, const struct replica_conf *b) {
        size_t i = 0;
        for (; a->models && b->models && a->models[i] && b->models[i]; i++)
                if (!streq(a->models[i], b->models[i]))
                        return false;
        return a->models && b->models && !a->models[i] && !b->models[i];
}

/* What a copy of the model takes in its tmpfs: whole pages, where the files were sized (a
 * configuration made in a test sets only model_bytes). */
static uint64_t copy_bytes(const struct replica_conf *r) {
        return r->model_copy_bytes > r->model_bytes ? r->model_copy_bytes : r->model_bytes;
}

/* model-copies = per-node: the replicas on one set of nodes share one copy of each model, held in
 * memory there (a tmpfs bound to those nodes), counted on those nodes once; it must fit beside
 * the replicas' memory. */
static int place_copies(struct planning *pn) {
        struct plan *p = pn->p;

        for (size_t i = 0; i < p->n_replicas; i++) {
                struct placement *pl = &p->replicas[i];
                const struct replica_conf *r = pl->conf;
                if (r->model_copies != MODEL_COPIES_PER_NODE)
                        continue;
                unsigned k = cpuset_count(&pl->nodes);
                _cleanup_free_ char *nodes = cpuset_format(&pl->nodes), *model = format_size(copy_bytes(r));
                pl->copies = xasprintf("node%s%s", k > 1 ? "s" : "", nodes);
                const struct placement *first = NULL;
                for (size_t j = 0; j < i && !first; j++)
                        if (p->replicas[j].copies && streq(p->replicas[j].copies, pl->copies) &&
                            same_models(p->replicas[j].conf, r))
                                first = &p->replicas[j];
                if (first) {
                        explain(pl, "model copy: reads the one replica %s made on node%s %s (%s)", first->name,
                                k > 1 ? "s" : "", nodes, model);
                        continue;
                }
                uint64_t share = copy_bytes(r) / k, rest = copy_bytes(r) % k;
                CPUSET_FOREACH(n, &pl->nodes) {
                        uint64_t need = share + rest;
                        if (free_on(pn, n) < need) {
                                _cleanup_free_ char *left = format_size(free_on(pn, n));
                                return fail(pn, replica_where(r, REPLICA_MODEL_COPIES),
                                            "replica %s: its model's copy (%s) does not fit on node %d, which has %s "
                                            "usable left after the replicas' memory",
                                            pl->name, model, n, left);
                        }
                        pn->assigned[node_index(pn, n)] += need;
                        rest = 0;
                }
                explain(pl,
                        "model copy: %s of model in memory on node%s %s (a tmpfs bound there), read by every replica "
                        "of it there (model-copies = per-node)",
                        model, k > 1 ? "s" : "", nodes);
        }
        /* What each directory of copies must hold: every model copied there. */
        for (size_t i = 0; i < p->n_replicas; i++) {
                struct placement *pl = &p->replicas[i];
                for (size_t j = 0; pl->copies && j < p->n_replicas; j++) {
                        const struct placement *o = &p->replicas[j];
                        bool counted = false;
                        for (size_t k = 0; k < j && !counted; k++)
                                counted = p->replicas[k].copies && streq(p->replicas[k].copies, pl->copies) &&
                                          same_models(p->replicas[k].conf, o->conf);
                        if (o->copies && streq(o->copies, pl->copies) && !counted)
                                pl->copies_bytes += copy_bytes(o->conf);
                }
        }
        return 0;
}

/* One page cache per file: replicas on different nodes naming the same file cannot all have it
 * local. Said once a file, naming the replicas. */
static void check_shared_models(struct planning *pn) {
        const struct plan *p = pn->p;
        for (size_t i = 0; i < p->n_replicas; i++)
                for (char **m = p->replicas[i].conf->models; m && *m; m++)
                        for (size_t j = i + 1; j < p->n_replicas; j++) {
                                const struct placement *a = &p->replicas[i], *b = &p->replicas[j];
                                bool same = false;
                                for (char **n = b->conf->models; n && *n && !same; n++)
                                        same = streq(*m, *n);
                                if (!same || cpuset_intersects(&a->nodes, &b->nodes) || (a->copies && b->copies))
                                        continue;
                                _cleanup_free_ char *na = cpuset_format(&a->nodes), *nb = cpuset_format(&b->nodes);
                                if (warnings_has(pn->w, WARNING_MODEL_SHARED, *m))
                                        continue;
                                warnings_put(pn->w, WARNING_MODEL_SHARED, *m,
                                             "replicas %s (node%s %s) and %s (node%s %s) name the same model %s: the "
                                             "page cache holds one copy, so one of them reads it from another node; "
                                             "model-copies = per-node gives each node its own copy",
                                             a->name, cpuset_count(&a->nodes) > 1 ? "s" : "", na, b->name,
                                             cpuset_count(&b->nodes) > 1 ? "s" : "", nb, *m);
                        }
}

static bool size_offered(const struct topology *t, uint64_t kb) {
        for (size_t i = 0; i < t->n_hugepage_sizes; i++)
                if (t->hugepage_sizes_kb[i] == kb)
                        return true;
        return false;
}

/* hugepages = SIZE[:PAGESIZE]: a pool split evenly over the replica's nodes (the first nodes take
 * the remainder), counted there against usable memory beside the replica's own. */
static int place_hugepages(struct planning *pn, struct placement *pl) {
        const struct replica_conf *r = pl->conf;
        struct where at = replica_where(r, REPLICA_HUGEPAGES);

        if (r->hugepages.bytes == 0)
                return 0;
        uint64_t kb = r->hugepages.page_kb ? r->hugepages.page_kb : pn->t->hugepage_default_kb;
        char size[FORMAT_BYTES_MAX];
        if (kb == 0)
                return fail(pn, at,
                            "replica %s: this host's default huge page size is unknown: name one (hugepages = SIZE:2M)",
                            pl->name);
        format_bytes(size, sizeof(size), kb * 1024);
        if (!size_offered(pn->t, kb))
                return fail(pn, at, "replica %s: this host's kernel offers no %s huge pages", pl->name, size);

        uint64_t page = kb * 1024, pages = (r->hugepages.bytes + page - 1) / page;
        unsigned k = cpuset_count(&pl->nodes), j = 0;
        pl->hugepage_kb = kb;
        pl->hugepages = xmalloc0(k * sizeof(*pl->hugepages));
        CPUSET_FOREACH(n, &pl->nodes) {
                uint64_t share = pages / k + (j < pages % k);
                if (share * page > free_on(pn, n)) {
                        _cleanup_free_ char *want = format_size(share * page), *left = format_size(free_on(pn, n)),
                                            *usable = format_size(pn->usable[node_index(pn, n)]);
                        return fail(pn, at,
                                    "replica %s: its huge pages (%" PRIu64 " of %s, %s) do not fit node %d beside its "
                                    "memory (%s left of %s usable)",
                                    pl->name, share, size, want, n, left, usable);
                }
                pn->assigned[node_index(pn, n)] += share * page;
                pl->hugepages[j++] = (struct hugepage_share){n, share};
        }
        pl->n_hugepages = k;
        _cleanup_free_ char *total = format_size(pages * page), *nodes = cpuset_format(&pl->nodes);
        explain(pl, "huge pages: %" PRIu64 " of %s (%s) reserved on node%s %s", pages, size, total, k > 1 ? "s" : "",
                nodes);
        return 0;
}

/* ---- 4. CPUs ---- */

/* The nodes whose CPUs each replica runs on: every node of its mask with CPUs, and its home (a
 * home without memory is not among its memory's). Fixed once memory is placed; asked per node
 * and replica, so worked out once. */
static void find_cpu_nodes(struct planning *pn) {
        const struct plan *p = pn->p;
        pn->cpu_nodes = xmalloc0((p->n_replicas + 1) * sizeof(struct cpuset));
        for (size_t i = 0; i < p->n_replicas; i++) {
                struct cpuset nodes = p->replicas[i].nodes;
                cpuset_or(&nodes, &p->replicas[i].home);
                CPUSET_FOREACH(n, &nodes)
                        if (has_cpus(pn, n))
                                cpuset_set(&pn->cpu_nodes[i], (unsigned) n);
        }
}

static const struct cpuset *cpu_nodes(const struct planning *pn, const struct placement *pl) {
        return &pn->cpu_nodes[pl - pn->p->replicas];
}

/* Numbers a node's physical cores from 0 in the order of its CPU list, SMT siblings together:
 * core_at[c] is CPU c's core, or -1 when reserve-cpus holds it (a core whose every thread is
 * reserved gets no number). Returns the number of cores. A core is known by its first thread
 * (core_of), and `core_at` spans the node's CPU set (cpus->words * 64). */
static size_t number_cores(const struct planning *pn, const struct cpuset *cpus, int *core_at) {
        const struct topology *t = pn->t;
        size_t span = (size_t) cpus->words * 64, n = cpuset_count(cpus), groups = 0;
        if (span < (size_t) (t->max_cpu + 1))
                span = (size_t) (t->max_cpu + 1);
        _cleanup_free_ int *group_of = xmalloc(span * sizeof(int)), *number = xmalloc((n + 1) * sizeof(int));

        for (size_t i = 0; i < span; i++)
                group_of[i] = -1;
        for (size_t g = 0; g <= n; g++)
                number[g] = -1;
        CPUSET_FOREACH(c, cpus) {
                int key = c <= t->max_cpu && t->core_of[c] >= 0 ? t->core_of[c] : c;
                if (group_of[key] < 0)
                        group_of[key] = (int) groups++;
                bool reserved = cpuset_isset(&pn->c->reserve_cpus, c);
                core_at[c] = reserved ? -1 : group_of[key];
                if (!reserved)
                        number[group_of[key]] = 0; /* a core to give */
        }
        size_t k = 0;
        for (size_t g = 0; g < groups; g++)
                if (number[g] == 0)
                        number[g] = (int) k++;
        CPUSET_FOREACH(c, cpus)
                if (core_at[c] >= 0)
                        core_at[c] = number[core_at[c]];
        return k;
}

/* The key that put a replica on a node's cores: cpus = cores:N when given, else its accelerators. */
static struct where cpus_key(const struct replica_conf *r) {
        return replica_has(r, REPLICA_CPUS) ? replica_where(r, REPLICA_CPUS) : replica_where(r, REPLICA_ACCELERATORS);
}

static int split_node(struct planning *pn, int node) {
        struct plan *p = pn->p;
        const struct cpuset *cpus = &pn->cpus[node_index(pn, node)];
        _cleanup_free_ int *core_at = xmalloc((size_t) cpus->words * 64 * sizeof(int) + sizeof(int));
        size_t n_cores = number_cores(pn, cpus, core_at);
        size_t users = 0, even = 0, fixed = 0, first_user = 0, last_fixed = 0;
        _cleanup_free_ bool *on = xmalloc0(p->n_replicas + 1);

        for (size_t i = 0; i < p->n_replicas; i++) {
                if (!cpuset_isset(cpu_nodes(pn, &p->replicas[i]), node))
                        continue;
                on[i] = true;
                if (users++ == 0)
                        first_user = i;
                if (p->replicas[i].conf->cores) {
                        fixed += p->replicas[i].conf->cores;
                        last_fixed = i;
                } else
                        even++;
        }
        if (users == 0)
                return 0;

        /* The cores shared out: with cpu-kinds = best for all there, those of the best kind only. */
        struct node_split ns = {pn->t, pn->c, p, pn->w, pn->err, node, cpus, core_at, n_cores, on};
        size_t pool = node_split_pool(&ns);
        size_t left = pool > fixed ? pool - fixed : 0, base = even ? left / even : 0, extra = even ? left % even : 0;
        if (fixed > n_cores || (even > 0 && base == 0)) {
                /* Blame the cores:N that asked past what there is, else the first replica there. */
                size_t culprit = fixed > n_cores ? last_fixed : first_user;
                return fail(pn, cpus_key(p->replicas[culprit].conf),
                            "replica %s: node %d has %zu physical cores (after reserve-cpus) for %zu replicas: %zu "
                            "cores asked with cores:N and %zu replicas sharing the rest",
                            p->replicas[culprit].name, node, n_cores, users, fixed, even);
        }

        return node_split_cores(&ns, base, extra);
}

static int place_cpus(struct planning *pn) {
        struct plan *p = pn->p;
        unsigned *users = xmalloc0(pn->t->n_nodes * sizeof(unsigned));
        int r = 0;

        find_cpu_nodes(pn);
        for (size_t i = 0; i < p->n_replicas; i++) {
                const struct cpuset *cn = cpu_nodes(pn, &p->replicas[i]);
                if (cpuset_is_empty(cn)) {
                        free(users);
                        return fail(pn, replica_where(p->replicas[i].conf, REPLICA_ACCELERATORS),
                                    "replica %s: none of its nodes has CPUs", p->replicas[i].name);
                }
                CPUSET_FOREACH(n, cn)
                        users[node_index(pn, n)]++;
        }

        for (size_t i = 0; i < p->n_replicas; i++) {
                struct placement *pl = &p->replicas[i];
                const struct cpuset *cn = cpu_nodes(pn, pl);
                struct cpuset theirs = {0};
                CPUSET_FOREACH(n, cn)
                        cpuset_or(&theirs, &pn->cpus[node_index(pn, n)]);
                bool alone = !pl->conf->cores && !cpu_kinds_narrow(pn->t, pn->c, pl, &theirs);
                CPUSET_FOREACH(n, cn)
                        alone = alone && users[node_index(pn, n)] == 1 && cpuset_isset(&pl->nodes, n);
                if (!alone) /* CPUAffinity=numa takes the mask's CPUs: a home without memory is not in it */
                        continue;
                /* Rule 5: alone on its nodes, it gets them whole, and systemd derives the affinity. */
                pl->cpu_affinity_numa = true;
                CPUSET_FOREACH(n, cn)
                        cpuset_or(&pl->cpus, &pn->cpus[node_index(pn, n)]);
                cpuset_andnot(&pl->cpus, &pn->c->reserve_cpus);
                _cleanup_free_ char *nodes = cpuset_format(cn), *cpus = cpuset_format(&pl->cpus),
                                    *reserved = cpuset_format(&pn->c->reserve_cpus);
                explain(pl, "alone on node%s %s: all %s CPUs (%s%s%s), CPUAffinity=numa (rule 5)",
                        cpuset_count(cn) > 1 ? "s" : "", nodes, cpuset_count(cn) > 1 ? "their" : "its", cpus,
                        *reserved ? ", less reserve-cpus " : "", reserved);
        }
        for (size_t ni = 0; r == 0 && ni < pn->t->n_nodes; ni++) {
                int id = pn->t->nodes[ni].id;
                bool shared = users[ni] > 1;
                for (size_t i = 0; !shared && i < p->n_replicas; i++) {
                        const struct cpuset *cn = cpu_nodes(pn, &p->replicas[i]);
                        shared = cpuset_isset(cn, id) && !p->replicas[i].cpu_affinity_numa;
                }
                if (shared)
                        r = split_node(pn, id);
        }
        free(users);
        if (r < 0)
                return r;

        for (size_t i = 0; i < p->n_replicas; i++) {
                struct placement *pl = &p->replicas[i];
                const struct cpuset *cn = cpu_nodes(pn, pl);
                if (cpuset_is_empty(&pl->cpus))
                        return fail(pn,
                                    pn->c->key_at[NUMAPLAN_RESERVE_CPUS].file ? pn->c->key_at[NUMAPLAN_RESERVE_CPUS]
                                                                              : pl->conf->at,
                                    "replica %s: reserve-cpus leaves it no CPU", pl->name);
                if (pl->policy == POLICY_INTERLEAVE && cpuset_count(&pl->nodes) > 1 && cpuset_count(cn) < 2)
                        return fail(pn,
                                    replica_has(pl->conf, REPLICA_POLICY)
                                            ? replica_where(pl->conf, REPLICA_POLICY)
                                            : replica_where(pl->conf, REPLICA_MEMORY_NODES),
                                    "replica %s would interleave memory over several nodes with the CPUs of one; "
                                    "use policy = bind with memory-nodes",
                                    pl->name);
        }
        return 0;
}

/* ---- 5. visible devices ---- */

static void add_visible(const struct topology *t, struct placement *pl, struct strbuf *env, uint16_t vendor,
                        const char *prefix) {
        struct strbuf ids = {0};
        for (size_t j = 0; j < pl->n_accels; j++) {
                const struct pci_device *a = &t->accels[pl->accels[j]];
                if (!a->ids_known || a->vendor != vendor || !a->compute)
                        continue;
                unsigned index = 0;
                for (size_t i = 0; i < pl->accels[j]; i++)
                        index += t->accels[i].ids_known && t->accels[i].vendor == vendor && t->accels[i].compute;
                strbuf_printf(&ids, "%s%u", ids.len ? "," : "", index);
        }
        if (ids.len) {
                strbuf_printf(env, "%s%s%s", env->len ? " " : "", prefix, ids.s);
                explain(pl,
                        "%s%s: the indices of its devices among this vendor's compute accelerators in "
                        "PCI-address order (rule 9)",
                        prefix, ids.s);
        }
        strbuf_done(&ids);
}

static void set_environment(const struct planning *pn, struct placement *pl) {
        struct strbuf env = {0};
        if (!pl->visible_devices)
                return;
        add_visible(pn->t, pl, &env, 0x10de, "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=");
        add_visible(pn->t, pl, &env, 0x1002, "ROCR_VISIBLE_DEVICES=");
        pl->environment = env.len ? strbuf_steal(&env) : NULL;
}

/* For --threads and OpenMP: its CPUs, and its physical cores (SMT siblings one core). */
static void count_cores(const struct topology *t, struct placement *pl) {
        struct cpuset cores = {0};
        pl->n_cpus = cpuset_count(&pl->cpus);
        CPUSET_FOREACH(c, &pl->cpus) {
                int core = t->core_of && (int) c <= t->max_cpu ? t->core_of[c] : -1;
                cpuset_set(&cores, core >= 0 ? (unsigned) core : (unsigned) c);
        }
        pl->n_cores = cpuset_count(&cores);
}

/* ---- the whole ---- */

static void planning_done(struct planning *pn) {
        free(pn->usable);
        free(pn->assigned);
        free(pn->cpus);
        free(pn->replicas_on);
        free(pn->claimed_by);
        free(pn->cpu_nodes);
}

/* A CPU runs on one node. Firmware that lists CPUs in several nodes (seen on real hosts) would
 * hand them to several replicas: plan each CPU on the lowest node that lists it. */
static void plan_each_cpu_once(struct planning *pn) {
        const struct topology *t = pn->t;
        struct cpuset seen = {0}, twice = {0};

        pn->cpus = xmalloc0((t->n_nodes + 1) * sizeof(struct cpuset));
        for (size_t i = 0; i < t->n_nodes; i++) {
                pn->cpus[i] = t->nodes[i].cpus;
                struct cpuset dup = t->nodes[i].cpus;
                cpuset_and(&dup, &seen);
                cpuset_or(&twice, &dup);
                cpuset_andnot(&pn->cpus[i], &seen);
                cpuset_or(&seen, &t->nodes[i].cpus);
        }
        if (cpuset_is_empty(&twice) || warnings_has(pn->w, WARNING_OVERLAPPING_CPUS, NULL))
                return;
        _cleanup_free_ char *s = cpuset_format(&twice);
        warnings_add(pn->w, WARNING_OVERLAPPING_CPUS, NULL,
                     "CPUs %s are listed in more than one node (a firmware bug): each is planned on the lowest node "
                     "that lists it",
                     s);
}

static void planning_init(struct planning *pn, const struct topology *t, const struct config *c, struct plan *p,
                          struct warnings *w, struct error_at *err) {
        *pn = (struct planning){
                .t = t,
                .c = c,
                .p = p,
                .w = w,
                .err = err,
                .usable = xmalloc0((t->n_nodes + 1) * sizeof(uint64_t)),
                .assigned = xmalloc0((t->n_nodes + 1) * sizeof(uint64_t)),
                .replicas_on = xmalloc0((t->n_nodes + 1) * sizeof(unsigned)),
                .claimed_by = xmalloc0((t->n_accels + 1) * sizeof(void *)),
        };
        plan_each_cpu_once(pn);
        /* Rule 2: usable = MemTotal x (1 - headroom). */
        for (size_t i = 0; i < t->n_nodes; i++)
                pn->usable[i] =
                        (uint64_t) ((unsigned __int128) t->nodes[i].mem_total * (10000 - c->headroom_bp) / 10000);
        /* GPU memory and NVM hold no replica's memory: none of it is counted. */
        for (size_t i = 0; i < t->n_nodes; i++)
                if (memory_kind_forbidden(t->nodes[i].memory.kinds))
                        pn->usable[i] = 0;
}

/* A CPU-only replica's home: the node with CPUs with the most usable memory left (rule 1). */
static int home_cpu_only(struct planning *pn, struct placement *pl) {
        int n = roomiest_node(pn);
        if (n < 0)
                return fail(pn, pl->conf->at, "replica %s: no node has CPUs", pl->name);
        cpuset_set(&pl->home, (unsigned) n);
        _cleanup_free_ char *left = format_size(free_on(pn, n));
        explain(pl,
                "home node %d: CPU-only, and the node with CPUs with the most usable memory left (%s), then the "
                "fewest replicas (rule 1)",
                n, left);
        return 0;
}

/* Memory, model and huge pages, replica by replica: those with a home first, so that CPU-only
 * ones see what the accelerators already took. */
static int place_replicas(struct planning *pn) {
        struct plan *p = pn->p;
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < p->n_replicas; i++) {
                        struct placement *pl = &p->replicas[i];
                        bool homed = !cpuset_is_empty(&pl->home);
                        if (homed != (pass == 0))
                                continue;
                        int r = homed ? 0 : home_cpu_only(pn, pl);
                        if (r >= 0)
                                r = place_memory(pn, pl);
                        if (r >= 0)
                                r = check_model(pn, pl);
                        if (r >= 0)
                                r = place_hugepages(pn, pl);
                        if (r < 0)
                                return r;
                }
        if (pn->c->builtin_default && p->n_replicas > 0)
                warnings_add(pn->w, WARNING_MEMORY_UNSET, NULL,
                             "the built-in default sizes no replica's memory, so no node's fit is checked: set "
                             "memory = SIZE in a [replicas inference] section of the configuration (numaplan.conf(5))");
        return 0;
}

/* What each node with memory holds of the plan. */
static void record_nodes(struct planning *pn) {
        const struct topology *t = pn->t;
        struct plan *p = pn->p;
        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].mem_total > 0) {
                        p->nodes = xrealloc(p->nodes, (p->n_nodes + 1) * sizeof(*p->nodes));
                        p->nodes[p->n_nodes++] = (struct plan_node){t->nodes[i].id, pn->usable[i], pn->assigned[i]};
                }
}

int plan_compute(const struct topology *t, const struct config *c, struct warnings *w, struct plan **ret,
                 struct error_at *err) {
        _cleanup_plan_ struct plan *p = xmalloc0(sizeof(*p));
        _cleanup_(planning_done) struct planning pn;

        planning_init(&pn, t, c, p, w, err);
        int r = expand(&pn);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n_replicas; i++)
                p->replicas[i].memory = p->replicas[i].conf->memory;
        for (size_t i = 0; i < p->n_replicas; i++)
                if (p->replicas[i].n_accels > 0) {
                        find_home(&pn, &p->replicas[i]);
                        find_rank_nodes(&pn, &p->replicas[i]);
                }
        r = place_replicas(&pn);
        if (r >= 0)
                r = place_copies(&pn);
        if (r < 0)
                return r;
        check_shared_models(&pn);
        r = place_cpus(&pn);
        if (r < 0)
                return r;
        for (size_t i = 0; i < p->n_replicas; i++) {
                set_environment(&pn, &p->replicas[i]);
                count_cores(t, &p->replicas[i]);
                ranks_place(t, &p->replicas[i]);
        }
        r = plan_nics(t, c, p, w, err);
        if (r < 0)
                return r;
        record_nodes(&pn);
        *ret = TAKE_PTR(p);
        return 0;
}
