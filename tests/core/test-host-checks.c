/* SPDX-License-Identifier: MIT */
/* The host's checks on a host made here: each warning where it is due, named, and none where
 * nothing hurts. */

#include "basic/util.h"
#include "core/host-checks.h"
#include "core/topology.h"
#include "small-plan.h"
#include "tap.h"

static const struct warning *find(const struct warnings *w, enum warning_code code) {
        for (size_t i = 0; i < w->n; i++)
                if (w->v[i].code == code)
                        return &w->v[i];
        return NULL;
}

int main(void) {
        struct topology *t = small_host();
        struct host_view v = {.allowed_known = true, .cgroup = CGROUP_UNIFIED};
        struct warnings w = {0};

        cpuset_parse_list("0-7", &v.cpus);
        cpuset_parse_list("0-1", &v.mems);
        host_checks(t, &v, &w);
        is_int(w.n, 0, "a well-kept two-node host: no warning");
        warnings_done(&w);

        t->numa_balancing = 1;
        t->nodes[0].mem_free = UINT64_C(1) << 30;
        cpuset_parse_list("6-7", &t->offline_cpus);
        cpuset_parse_list("0-3", &v.cpus);
        v.cgroup = CGROUP_LEGACY;
        host_checks(t, &v, &w);
        const struct warning *x;
        ok((x = find(&w, WARNING_NUMA_BALANCING_ON)) && strstr(x->message, "kernel.numa_balancing=1"),
           "NUMA balancing on");
        ok((x = find(&w, WARNING_MEMORY_IMBALANCE)) && streq(x->subject, "0") &&
                   strstr(x->message, "node 0 has 1.0 GiB free"),
           "node 0 nearly full while node 1 is free: the full node named");
        ok((x = find(&w, WARNING_CPUSET_RESTRICTED)) && strstr(x->message, "CPUs 0-3 only, not 4-7"),
           "numaplan restricted to some CPUs: which");
        ok((x = find(&w, WARNING_OFFLINE_CPUS)) && strstr(x->message, "CPUs 6-7"), "offline CPUs named");
        ok((x = find(&w, WARNING_CGROUP_V1)) && strstr(x->message, "legacy or hybrid"), "cgroup v1");
        ok(!find(&w, WARNING_SINGLE_NODE), "two nodes are not one");
        warnings_done(&w);

        cpuset_parse_list("0-7", &v.cpus);
        cpuset_parse_list("0", &v.mems);
        v.cgroup = CGROUP_UNIFIED_NO_CPUSET;
        host_checks(t, &v, &w);
        ok((x = find(&w, WARNING_CPUSET_RESTRICTED)) && strstr(x->message, "memory of nodes 0 only, not 1"),
           "numaplan restricted to some nodes' memory: which");
        ok((x = find(&w, WARNING_CGROUP_V1)) && strstr(x->message, "cpuset controller is not available"),
           "cgroup v2 without the cpuset controller");
        warnings_done(&w);

        v.allowed_known = false;
        t->n_nodes = 1;
        host_checks(t, &v, &w);
        ok(find(&w, WARNING_SINGLE_NODE) && !find(&w, WARNING_CPUSET_RESTRICTED),
           "one node: single-node; an unreadable cpuset says nothing");
        warnings_done(&w);
        t->n_nodes = 2;
        topology_free(t);
        return done_testing();
}
