/* SPDX-License-Identifier: MIT */
#pragma once

/* The kernel's per-node allocation counters (nodeN/numastat), read before and after a warm-up
 * to show where the replica's new pages came from. */

#include <stddef.h>
#include <stdint.h>

struct root;

struct numastat {
        int node;
        uint64_t numa_hit, numa_miss, numa_foreign, other_node;
};

/* A node's numastat text ("numa_hit 123\n..."): each counter found on a line of its own, else 0. */
void numastat_parse(const char *text, struct numastat *ret);
/* One entry per node of `nodes`; a node whose file cannot be read reads as zeros. */
int read_numastat(struct root *root, const int *nodes, size_t n_nodes, struct numastat **ret);
