/* SPDX-License-Identifier: MIT */
#pragma once

/* Plans for the layers above the core, on a host made here rather than read by libhost: two
 * nodes, CPUs 0-3 and 4-7, 16 GiB each, no accelerators, so CPU-only replicas. */

#include "core/config.h"
#include "core/dropin.h"
#include "core/planner.h"
#include "core/topology.h"

extern const struct dropin_env small_env;

struct small_plan {
        struct topology *t;
        struct config *c;
        struct plan *p;
};

/* The two-node host itself (topology_free() it). */
struct topology *small_host(void);
/* The plan of configuration `text` on the two-node host; bails out of the test if it has none. */
void small_plan_make(struct small_plan *sp, const char *text);
void small_plan_done(struct small_plan *sp);
