/* SPDX-License-Identifier: MIT */
/* The rule of hwloc's memattrs.c (hwloc__group_memory_tiers, hwloc__guess_memory_tiers_kinds,
 * compare_tiers_by_bw_and_kinds), on numaplan's nodes, so that both name a host's nodes alike. */

#include "basic/util.h"
#include "core/memory-tiers.h"

/* hwloc's default thresholds: a new tier when bandwidth or latency differ by more than 10%. The
 * ratio is computed in float, as hwloc does, so that a boundary case falls the same way. */
#define TIER_THRESHOLD 0.1f

struct member {
        struct node *node;
        unsigned kinds;
        uint64_t bw, lat;
        unsigned rank;
};

struct tier {
        unsigned kinds;
        /* hwloc's names: bw_min is the first known bandwidth in the tier's order (bandwidth
         * descending, so its highest), bw_max the last node's (its lowest, 0 when unknown). */
        uint64_t bw_min, bw_max;
        unsigned index; /* its number once tiers are sorted */
};

uint64_t node_memory_bandwidth(const struct node_memory *m) {
        return m->read_bandwidth && m->write_bandwidth ? (m->read_bandwidth + m->write_bandwidth) / 2 : 0;
}

uint64_t node_memory_latency(const struct node_memory *m) {
        return m->read_latency && m->write_latency ? (m->read_latency + m->write_latency) / 2 : 0;
}

/* Nodes by kinds (unknown first), then bandwidth descending. */
static int member_cmp(const struct member *a, const struct member *b) {
        if (a->kinds != b->kinds)
                return a->kinds < b->kinds ? -1 : 1;
        if (a->bw != b->bw)
                return a->bw > b->bw ? -1 : 1;
        return 0;
}

/* Tiers by bandwidth (when both are known: the sum of hwloc's min and max), then kinds. */
static int tier_cmp(const struct tier *a, const struct tier *b) {
        if (a->bw_min && b->bw_min && a->bw_min + a->bw_max != b->bw_min + b->bw_max)
                return a->bw_min + a->bw_max > b->bw_min + b->bw_max ? -1 : 1;
        if (a->kinds != b->kinds)
                return a->kinds < b->kinds ? -1 : 1;
        return 0;
}

static bool differ(uint64_t a, uint64_t b) {
        if (!a || !b)
                return false;
        float ratio = (float) a / (float) b;
        if (ratio < 1.f)
                ratio = 1.f / ratio;
        return ratio > 1.0 + TIER_THRESHOLD;
}

/* Sorts (stably: nodes in id order among equals) and ranks; returns the number of tiers. */
static unsigned rank_members(struct member *m, size_t n) {
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && member_cmp(&m[j - 1], &m[j]) > 0; j--) {
                        struct member tmp = m[j];
                        m[j] = m[j - 1];
                        m[j - 1] = tmp;
                }
        m[0].rank = 0;
        for (size_t i = 1; i < n; i++) {
                m[i].rank = m[i - 1].rank;
                if (m[i].kinds != m[i - 1].kinds || differ(m[i].bw, m[i - 1].bw) || differ(m[i].lat, m[i - 1].lat))
                        m[i].rank++;
        }
        return m[n - 1].rank + 1;
}

/* The slower of two tiers is DRAM and the faster HBM when the faster's bandwidth is more than
 * twice the slower's, in hwloc's terms (its min and max, above). */
static void guess_dram_hbm(struct tier *a, struct tier *b) {
        if (!a->bw_min || !b->bw_min)
                return;
        if (a->bw_min > b->bw_min) {
                struct tier *tmp = a;
                a = b;
                b = tmp;
        }
        if (b->bw_min <= a->bw_max * 2)
                return;
        a->kinds = MEMORY_DRAM;
        b->kinds = MEMORY_HBM;
}

/* Only where no tier is DRAM or HBM already: two unknown tiers, or one unknown and one SPM. */
static void guess_kinds(struct tier *tiers, unsigned n) {
        struct tier *unknown[2] = {NULL, NULL}, *spm = NULL;
        unsigned n_unknown = 0, n_spm = 0, n_known = 0;

        if (n == 1) /* DRAM, or HBM alone: either way one tier, nothing to tell apart */
                return;
        for (unsigned i = 0; i < n; i++)
                switch (tiers[i].kinds) {
                case 0:
                        if (n_unknown < 2)
                                unknown[n_unknown] = &tiers[i];
                        n_unknown++;
                        break;
                case MEMORY_DRAM:
                case MEMORY_HBM:
                        n_known++;
                        break;
                case MEMORY_SPM:
                        spm = &tiers[i];
                        n_spm++;
                        break;
                default:
                        break;
                }
        if (n_known)
                return;
        if (n_unknown == 2 && n_spm == 0)
                guess_dram_hbm(unknown[0], unknown[1]);
        else if (n_unknown == 1 && n_spm == 1)
                guess_dram_hbm(unknown[0], spm);
}

static void group_tiers(const struct member *m, size_t n, struct tier *tiers) {
        for (size_t i = 0; i < n; i++) {
                struct tier *t = &tiers[m[i].rank];
                t->kinds = m[i].kinds;
                if (!t->bw_min)
                        t->bw_min = m[i].bw;
                t->bw_max = m[i].bw;
        }
}

/* Numbers the tiers in tier_cmp's order (stably, as grouped among equals). */
static void number_tiers(struct tier *tiers, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                unsigned before = 0;
                for (unsigned j = 0; j < n; j++)
                        if (tier_cmp(&tiers[j], &tiers[i]) < 0 || (j < i && tier_cmp(&tiers[j], &tiers[i]) == 0))
                                before++;
                tiers[i].index = before;
        }
}

static void apply_tiers(struct member *m, size_t n, const struct tier *tiers) {
        for (size_t i = 0; i < n; i++) {
                const struct tier *t = &tiers[m[i].rank];
                struct node_memory *nm = &m[i].node->memory;
                nm->tier = (int) t->index;
                /* GPU memory keeps its name, as hwloc keeps the subtype its Linux backend gave. */
                if (!(nm->kinds & MEMORY_GPU) && memory_kind_name(t->kinds))
                        nm->kinds = t->kinds;
        }
}

void memory_tiers_assign(struct node *nodes, size_t n_nodes) {
        _cleanup_free_ struct member *m = xmalloc0((n_nodes + 1) * sizeof(*m));
        size_t n = 0;

        for (size_t i = 0; i < n_nodes; i++) {
                struct node *node = &nodes[i];
                node->memory.tier = -1;
                if (node->mem_total == 0) {
                        /* CPUs only, or memory unknown: hwloc makes no memory node of it. */
                        node->memory.kinds = 0;
                        continue;
                }
                m[n++] = (struct member){
                        .node = node,
                        .kinds = node->memory.kinds,
                        .bw = node_memory_bandwidth(&node->memory),
                        .lat = node_memory_latency(&node->memory),
                };
        }
        if (n == 0)
                return;

        unsigned n_tiers = rank_members(m, n);
        _cleanup_free_ struct tier *tiers = xmalloc0(n_tiers * sizeof(*tiers));
        group_tiers(m, n, tiers);
        guess_kinds(tiers, n_tiers);
        if (n_tiers == 1 && tiers[0].kinds == 0)
                return; /* one tier, and nothing says what it is: hwloc makes none */
        number_tiers(tiers, n_tiers);
        apply_tiers(m, n, tiers);
}
