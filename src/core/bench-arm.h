/* SPDX-License-Identifier: MIT */
#pragma once

/* Where numaplan bench puts a replica for the arm it measures against, the runtime drop-in that
 * puts it there, and whether a started unit got there, judged by verify's own checks. Pure. */

#include <stdbool.h>

#include "core/bench.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "core/topology.h"

struct cpuset;
struct unit_state;

/* bench's drop-in: a runtime one, of its own name, which systemd applies after numaplan's
 * (DROPIN_NAME) and which nothing but bench writes or removes. */
#define BENCH_DROPIN_NAME "90-numaplan-bench.conf"
#define BENCH_DROPIN_HEADER "# numaplan bench:"

/* The other arm: what it is, and the replica's placement there (a copy of the plan's; its
 * pointers are the plan's). */
struct bench_place {
        enum bench_against against;
        int node; /* remote: the node it runs on; -1 */
        struct placement pl;
};

/* The node farthest from the replica's accelerators' nodes (its home; a CPU-only replica's own)
 * by the distance table (the sum of its distances to them; the lower id on ties), among those
 * with CPUs and memory a replica may use, none of its own. -ENOENT when there is none. */
int bench_remote_node(const struct topology *t, const struct placement *pl, int *ret);
/* The replica bound to `node`, on as many of its cores as the plan gives it (SMT siblings with
 * their core; all of the node's when it has fewer), reading the original model (not a node's
 * copy), which prepare then moves there. */
void bench_place_remote(const struct topology *t, const struct placement *pl, int node, struct bench_place *ret);
/* The replica as if numaplan had not placed it: every online CPU, every node a replica's memory
 * may use, the kernel's default policy. */
void bench_place_unpinned(const struct topology *t, const struct placement *pl, struct bench_place *ret);

/* The drop-in that gives the unit the arm: the remote one is the drop-in numaplan would write
 * for the replica on that node (its ExecStartPre= runs prepare after numaplan's own, so the
 * model's page cache ends there); the unpinned one resets numaplan's settings. */
char *bench_dropin_render(const struct bench_place *b, const struct topology *t, const struct config *c,
                          const struct plan *p, const struct dropin_env *env);

/* Whether a started unit runs placed as `want` (the plan's, or an arm's) says, as verify judges
 * it: active, systemd's NUMAPolicy, EffectiveCPUs and EffectiveMemoryNodes. `lifted`: numaplan's
 * drop-in lifted, the kernel's default policy. False with why (the first check that fails, want
 * and got) in *ret_why. */
bool bench_reached(const struct placement *want, bool lifted, const struct unit_state *s,
                   const struct cpuset *memory_nodes, char **ret_why);

/* The nodes with memory, as verify counts them: where the kernel may put an unpinned replica's. */
struct cpuset bench_memory_nodes(const struct topology *t);
/* What the sentence calls its accelerators: "GPU", "GPUs", "accelerator", "accelerators"; NULL
 * for a replica without. */
const char *bench_accelerator_words(const struct topology *t, const struct placement *pl);
