/* SPDX-License-Identifier: MIT */
#pragma once

/* What hurts pinning on this host: NUMA balancing, a nearly full node, one node only, a restricted
 * cpuset, accelerators without a node, offline CPUs, no cgroup v2 cpuset controller. Pure: the
 * topology and what the host readers saw of numaplan's own process in, warnings out. */

#include <stdbool.h>

#include "basic/cpuset.h"
#include "core/observed.h"
#include "core/warnings.h"

struct topology;

/* What the host said of numaplan's own process and its cgroups. */
struct host_view {
        bool allowed_known;       /* the CPUs and nodes this process may use could be read */
        struct cpuset cpus, mems; /* those */
        enum cgroup_mode cgroup;
};

void host_checks(const struct topology *t, const struct host_view *v, struct warnings *w);
