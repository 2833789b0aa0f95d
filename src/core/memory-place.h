/* SPDX-License-Identifier: MIT */
#pragma once

/* Where a replica's memory may go, by what each node's memory is (core/memory-kind.h): never GPU
 * memory or NVM; CXL and HBM only when its memory-tiers = asks. Pure: the planner, verify,
 * prepare and migrate ask the same questions here. */

#include <stdbool.h>

#include "basic/cpuset.h"
#include "core/topology.h"

/* Whether memory of `kinds` may hold a replica's memory under memory-tiers `tiers` (TIERS_*):
 * DRAM (or kinds nothing said) always; CXL with TIERS_CXL; HBM and SPM with TIERS_HBM; GPU memory
 * and NVM never. */
bool memory_kind_allowed(unsigned kinds, unsigned tiers);
/* The tier that admits memory of `kinds` (TIERS_CXL, TIERS_HBM or both), 0 for local DRAM. */
unsigned memory_kind_tiers(unsigned kinds);
/* A node's memory in words for messages: "GPU memory", "persistent memory (NVM)", "CXL memory
 * (CXL-DRAM)", "HBM", "DRAM". */
const char *memory_kind_words(unsigned kinds);
/* The nodes of `t` whose memory a replica never gets (memory_kind_forbidden()). */
struct cpuset memory_forbidden_nodes(const struct topology *t);
/* Takes the forbidden nodes out of `nodes`; returns those it took, empty when none. */
struct cpuset memory_drop_forbidden(const struct topology *t, struct cpuset *nodes);
/* Why node `node` is forbidden, for a message: "GPU memory on node 4, owned by 0009:01:00.0" or
 * "persistent memory (NVM) on node 9" (caller frees). */
char *memory_forbidden_where(const struct topology *t, int node);
/* The nodes prepare and migrate move a replica's pages to: `targets` less any node of GPU memory or
 * NVM, which a plan never holds but a hand-written --nodes or an older plan might. Returns what
 * it dropped and why, in words for the admin (caller frees), or NULL when it dropped nothing. */
char *memory_targets_check(const struct topology *t, struct cpuset *targets);
