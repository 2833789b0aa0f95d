/* SPDX-License-Identifier: MIT */
#pragma once

/* The audit's warnings, from the host's tuning (core/tuning.h) as the topology holds it, and the
 * plan for the two that concern replicas. Pure. */

#include <stdbool.h>

#include "core/warnings.h"

struct plan;
struct topology;

/* Exit latencies above this keep a waking CPU from the replica's next request that long. */
#define CSTATE_DEEP_US 100
/* MaxReadReq below this splits an accelerator's DMA reads from host memory. */
#define PCIE_MRRS_WANT 4096

/* Whether the checks below need the plan: a governor other than performance, or swap. */
bool tuning_wants_plan(const struct topology *t);
/* The warnings of the audit (pcie-link-narrow, pcie-link-slow, pcie-mrrs-small, cpu-governor,
 * cstates-deep, zone-reclaim, iommu-translated, swap-bound-replica), for the facts that are
 * known. `p` NULL: no plan is known, so cpu-governor and swap-bound-replica are left out. */
void tuning_warnings(const struct topology *t, const struct plan *p, struct warnings *w);
