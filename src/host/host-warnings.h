/* SPDX-License-Identifier: MIT */
#pragma once

/* What hurts pinning on this host: NUMA balancing, a nearly full node, a restricted cpuset, no
 * cgroup v2 cpuset controller, accelerators without a node, offline CPUs. Collected once the
 * configuration's accelerator-nodes are applied, so an override silences its own warning. */

#include "core/warnings.h"

struct root;
struct topology;

void host_warnings_collect(struct root *root, const struct topology *t, struct warnings *w);
