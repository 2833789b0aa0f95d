/* SPDX-License-Identifier: MIT */
#pragma once

/* hwloc's memory tiers: nodes grouped by what their memory is and how fast it is from its nearest
 * CPUs, DRAM and HBM guessed from bandwidth where nothing says, and the tiers numbered fastest
 * first. Pure: the readers fill each node's kinds and HMAT figures, this fills tier and kinds. */

#include <stddef.h>

#include "core/topology.h"

/* A node's bandwidth (MiB/s) and latency (ns) as hwloc ranks it: the average of read and write
 * when both are known, else 0 (unknown). */
uint64_t node_memory_bandwidth(const struct node_memory *m);
uint64_t node_memory_latency(const struct node_memory *m);

/* Sets memory.tier of every node with memory (-1 for the rest, and for all when the host has one
 * tier that nothing names), and memory.kinds to its tier's kinds: DRAM or HBM where guessed, no
 * kind for a tier nothing names. A node keeps GPU memory's kind, as hwloc keeps its subtype. */
void memory_tiers_assign(struct node *nodes, size_t n_nodes);
