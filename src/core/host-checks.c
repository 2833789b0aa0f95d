/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "core/host-checks.h"
#include "core/topology.h"

static void check_numa_balancing(const struct topology *t, struct warnings *w) {
        int v = t->numa_balancing;

        if (v < 0)
                return;
        /* Bit 0 is classic balancing; bit 1 alone (memory tiering) only promotes from slow tiers. */
        if (v & 1)
                warnings_add(w, WARNING_NUMA_BALANCING_ON, NULL,
                             "automatic NUMA balancing is on (kernel.numa_balancing=%d): the kernel will move pages of "
                             "pinned replicas; set kernel.numa_balancing=0",
                             v);
}

static void check_memory_imbalance(const struct topology *t, struct warnings *w) {
        const struct node *low = NULL, *high = NULL;

        for (size_t i = 0; i < t->n_nodes; i++) {
                const struct node *n = &t->nodes[i];
                if (n->mem_total == 0)
                        continue;
                if (n->mem_free * 10 < n->mem_total && !low)
                        low = n;
                if (n->mem_free * 2 > n->mem_total && !high)
                        high = n;
        }
        if (low && high) {
                char lf[FORMAT_BYTES_MAX], lt[FORMAT_BYTES_MAX], hf[FORMAT_BYTES_MAX], ht[FORMAT_BYTES_MAX];
                format_bytes(lf, sizeof(lf), low->mem_free);
                format_bytes(lt, sizeof(lt), low->mem_total);
                format_bytes(hf, sizeof(hf), high->mem_free);
                format_bytes(ht, sizeof(ht), high->mem_total);
                char subject[16];
                snprintf(subject, sizeof(subject), "%d", low->id);
                warnings_add(
                        w, WARNING_MEMORY_IMBALANCE, subject,
                        "node %d has %s free of %s while node %d has %s free of %s: something already fills node %d",
                        low->id, lf, lt, high->id, hf, ht, low->id);
        }
}

static void check_cpuset(const struct topology *t, const struct host_view *v, struct warnings *w) {
        struct cpuset host = {0}, missing;
        const struct cpuset *cpus = &v->cpus, *mems = &v->mems;

        if (!v->allowed_known)
                return;

        missing = t->online_cpus;
        cpuset_andnot(&missing, cpus);
        if (!cpuset_is_empty(&missing)) {
                _cleanup_free_ char *a = cpuset_format(cpus), *m = cpuset_format(&missing);
                warnings_add(
                        w, WARNING_CPUSET_RESTRICTED, NULL,
                        "this process may use CPUs %s only, not %s (container or cgroup): run numaplan on the host", a,
                        m);
                return;
        }

        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].mem_total > 0)
                        cpuset_set(&host, (unsigned) t->nodes[i].id);
        missing = host;
        cpuset_andnot(&missing, mems);
        if (!cpuset_is_empty(&missing)) {
                _cleanup_free_ char *a = cpuset_format(mems), *m = cpuset_format(&missing);
                warnings_add(w, WARNING_CPUSET_RESTRICTED, NULL,
                             "this process may use memory of nodes %s only, not %s (container or cgroup): run "
                             "numaplan on the host",
                             a, m);
        }
}

static void check_accelerators(const struct topology *t, struct warnings *w) {
        if (t->n_nodes < 2)
                return;
        for (size_t i = 0; i < t->n_accels; i++)
                if (t->accels[i].numa_node < 0)
                        warnings_add(w, WARNING_ACCELERATOR_NO_NODE, t->accels[i].pci,
                                     "accelerator %s reports no NUMA node (numa_node is -1 and its local CPUs do not "
                                     "fall in one node): set accelerator-nodes = %s=NODE in [numaplan]",
                                     t->accels[i].pci, t->accels[i].pci);
}

static void check_cgroup(enum cgroup_mode mode, struct warnings *w) {
        if (mode == CGROUP_LEGACY)
                warnings_add(w, WARNING_CGROUP_V1, NULL,
                             "cgroup v2 is not mounted on /sys/fs/cgroup (legacy or hybrid hierarchy): AllowedCPUs= "
                             "and AllowedMemoryNodes= will not be enforced; boot with "
                             "systemd.unified_cgroup_hierarchy=1");
        else if (mode == CGROUP_UNIFIED_NO_CPUSET)
                warnings_add(w, WARNING_CGROUP_V1, NULL,
                             "the cgroup v2 cpuset controller is not available: AllowedCPUs= and AllowedMemoryNodes= "
                             "will not be enforced");
}

void host_checks(const struct topology *t, const struct host_view *v, struct warnings *w) {
        check_numa_balancing(t, w);
        check_memory_imbalance(t, w);
        if (t->n_nodes < 2 && !t->nodes_unreadable) /* host-unplannable says that one */
                warnings_add(w, WARNING_SINGLE_NODE, NULL, "one NUMA node: there is nothing to pin");
        check_cpuset(t, v, w);
        check_accelerators(t, w);
        if (!cpuset_is_empty(&t->offline_cpus)) {
                _cleanup_free_ char *s = cpuset_format(&t->offline_cpus);
                warnings_add(w, WARNING_OFFLINE_CPUS, NULL, "CPUs %s are present but offline: plans leave them out", s);
        }
        check_cgroup(v->cgroup, w);
}
