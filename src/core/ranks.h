/* SPDX-License-Identifier: MIT */
#pragma once

/* A replica of several accelerators runs one worker process (a rank) per device: tensor-parallel
 * vLLM, SGLang, TensorRT-LLM. Each rank is best placed on its own device's node: its CPUs there,
 * its memory (pinned staging buffers first) there. The planner gives each rank its node and a
 * share of the replica's CPUs; the drop-in hands them to the engine as NUMAPLAN_RANK_NODES and
 * NUMAPLAN_RANK_CPUS, in the order the engine numbers its devices. Pure. */

#include "core/placement.h"
#include "core/topology.h"

/* The replica's ranks, one per accelerator of pl->accels (PCI order), the j-th on node_of[j]
 * (-1: its accelerator has no node), replacing any it had. */
void ranks_init(struct placement *pl, const int *node_of);

/* Once the replica's CPUs are known: ranks in the order of its visible devices (those the drop-in
 * names in CUDA_VISIBLE_DEVICES, then ROCR_VISIBLE_DEVICES, each in that order, then the rest in
 * PCI order), a rank without a node on the replica's node with the fewest ranks, and each rank's
 * share of the replica's CPUs on its node: the node's CPUs of the replica split evenly by physical
 * core in the order of its CPU list, SMT siblings together, earlier ranks taking the remainder; no
 * CPU in two ranks, unless a node has fewer CPUs than ranks. Says how in pl->why. */
void ranks_place(const struct topology *t, struct placement *pl);

/* How many of its ranks run on `node`. */
unsigned ranks_on(const struct placement *pl, int node);
/* The nodes of its ranks. */
struct cpuset ranks_nodes(const struct placement *pl);
/* Whether its ranks run on more than one node: its model is then best spread over them. */
bool ranks_span_nodes(const struct placement *pl);

/* NUMAPLAN_RANK_NODES's value ("0,0,1,1") and NUMAPLAN_RANK_CPUS's ("0-3,32-35;4-7,36-39;..."). */
char *ranks_nodes_text(const struct placement *pl);
char *ranks_cpus_text(const struct placement *pl);
