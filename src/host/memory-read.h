/* SPDX-License-Identifier: MIT */
#pragma once

/* What each NUMA node's memory is (core/memory-kind.h): GPU memory from the NVIDIA driver, DAX
 * kmem nodes (NVDIMMs, soft-reserved HBM, CXL expanders), HMAT bandwidth and latency, the
 * kernel's memory tiers; then hwloc's tiering rule (core/memory-tiers.h). */

#include "core/topology.h"
#include "core/warnings.h"

struct root;

/* Fills every node's `memory`, and t->driver_managed_gpus. Reads nothing where the directories
 * are not there (no NVIDIA driver, no DAX, no HMAT). Needs t's nodes and accelerators. */
void memory_read(struct root *root, struct topology *t, struct warnings *w);
