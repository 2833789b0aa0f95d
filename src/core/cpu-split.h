/* SPDX-License-Identifier: MIT */
#pragma once

/* Which of a node's physical cores each replica sharing it takes (PLACEMENT, rule 5), by their
 * kinds and L3 caches: each replica its even share of each kind, the most capable first, and its
 * cores within whole L3 caches where the counts allow. Pure: cores in, owners out. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/util.h"
#include "core/config.h"
#include "core/placement.h"
#include "core/topology.h"

struct warnings;

/* A core of the node, in the order of the node's CPU list. */
struct split_core {
        int kind;   /* its kind's rank on the host, 0 the most capable; -1 unknown */
        int domain; /* its L3 cache on the host; -1 unknown */
};

/* A replica sharing the node, in configuration order. */
struct split_want {
        size_t take; /* the cores it is due */
        bool best;   /* cpu-kinds = best: of the node's most capable kind only */
};

/* What a replica got, for plan -v and the warnings. */
struct split_result {
        size_t got;          /* its cores; fewer than `take` only with best */
        size_t best;         /* of them, of the node's most capable kind (ranked kinds of several) */
        unsigned domains;    /* the L3 caches it has cores in */
        unsigned whole;      /* of them, those it holds whole */
        unsigned of;         /* the L3 caches of the node */
        bool straddles;      /* its cores span L3 caches of which it holds some only in part */
        bool could_be_whole; /* it straddles where a split by L3 alone keeps it within whole ones */
        bool least_only;     /* only the node's least capable kind, where the node has several */
};

/* What is split: a node's `n` cores between `n_want` replicas. `ranked`: the kinds' order is a
 * ranking (hwloc could rank them); otherwise every kind is balanced alike and none is best. */
struct split_input {
        const struct split_core *cores;
        size_t n;
        const struct split_want *want;
        size_t n_want;
        bool ranked;
};

/* The split: owner[core] the replica's index, -1 for a core none takes; res[replica] what it got. */
void cpu_split(const struct split_input *in, int *owner, struct split_result *res);

/* A node shared by replicas (or one with cpus = cores:N, or cpu-kinds = best), as the planner's
 * rule 5 hands it over once it has numbered the node's cores (core_at[cpu], -1 reserved). */
struct node_split {
        const struct topology *t;
        const struct config *c;
        struct plan *p;
        struct warnings *w;
        struct error_at *err;
        int node;
        const struct cpuset *cpus; /* the node's CPUs for planning */
        const int *core_at;
        size_t n_cores;
        const bool *on; /* by replica: it has CPUs on the node */
};

/* The cores the split shares out: the node's, or those of its most capable kind when every
 * replica on it asks cpu-kinds = best. */
size_t node_split_pool(const struct node_split *ns);
/* Gives each replica on the node its cores (`base` each, the first `extra` of the cpus = node
 * ones one more; cpus = cores:N its N), adds to its cpus and says why; warns of a replica whose
 * cores straddle L3 caches that a split could have kept whole, that has only the node's least
 * capable kind, or that cpu-kinds = best leaves short. -EINVAL when best leaves one none. */
int node_split_cores(const struct node_split *ns, size_t base, size_t extra);
/* Whether cpu-kinds = best narrows a replica alone on its nodes (`cpus`, theirs) to fewer CPUs:
 * they hold ranked kinds of several. */
bool cpu_kinds_narrow(const struct topology *t, const struct config *c, const struct placement *pl,
                      const struct cpuset *cpus);
/* The CPUs of `cpus` of the most capable kind among them: NUMAPLAN_BEST_CPUS. All of them where
 * the kinds are unknown or unranked. */
struct cpuset cpu_kinds_best(const struct topology *t, const struct cpuset *cpus);
/* "Environment=NUMAPLAN_BEST_CPUS=LIST\n": cpu_kinds_best() of `cpus`, for the drop-in. */
void cpu_kinds_best_environment(struct strbuf *b, const struct topology *t, const struct cpuset *cpus);
