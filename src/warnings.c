/* SPDX-License-Identifier: MIT */
#include <numaif.h>
#include <sched.h>
#include <sys/syscall.h>

#include "cgroup.h"
#include "root.h"
#include "sysfs-parse.h"
#include "topology.h"
#include "util.h"
#include "warnings.h"

static void check_numa_balancing(struct root *root, struct topology *t) {
        _cleanup_free_ char *s = NULL;
        int v;

        if (root_read_string(root, "proc/sys/kernel/numa_balancing", &s) < 0 || parse_int(s, &v) < 0)
                return;
        /* Bit 0 is classic balancing; bit 1 alone (memory tiering) only promotes from slow tiers. */
        if (v & 1)
                topology_add_warning(t, "numa-balancing-on",
                                     "automatic NUMA balancing is on (kernel.numa_balancing=%d): the kernel will "
                                     "move pages of pinned replicas; set kernel.numa_balancing=0",
                                     v);
}

static void check_memory_imbalance(struct topology *t) {
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
                topology_add_warning(t, "memory-imbalance",
                                     "node %d has %s free of %s while node %d has %s free of %s: "
                                     "something already fills node %d",
                                     low->id, lf, lt, high->id, hf, ht, low->id);
        }
}

/* This process's allowed CPUs and memory nodes. On the live host two system calls answer (the
 * same the kernel fills /proc/self/status from); a capture carries the status file. */
static bool allowed_sets(struct root *root, struct cpuset *ret_cpus, struct cpuset *ret_mems) {
        if (root_is_host(root) && !root_is_recording(root)) {
                /* Both take a bitmap of unsigned longs: bit n in byte n/8 on little and big endian
                 * alike only for 8-bit words, so read them as longs. */
                unsigned long cpus[CPUSET_MAX / (8 * sizeof(unsigned long))] = {0};
                unsigned long mems[CPUSET_MAX / (8 * sizeof(unsigned long))] = {0};

                if (sched_getaffinity(0, sizeof(cpus), (cpu_set_t *) cpus) < 0 ||
                    syscall(SYS_get_mempolicy, NULL, mems, (unsigned long) CPUSET_MAX, NULL, MPOL_F_MEMS_ALLOWED) < 0)
                        return false;
                cpuset_clear(ret_cpus);
                cpuset_clear(ret_mems);
                for (unsigned i = 0; i < CPUSET_MAX; i++) {
                        unsigned long bit = 1UL << (i % (8 * sizeof(unsigned long)));
                        if (cpus[i / (8 * sizeof(unsigned long))] & bit)
                                cpuset_set(ret_cpus, i);
                        if (mems[i / (8 * sizeof(unsigned long))] & bit)
                                cpuset_set(ret_mems, i);
                }
                return true;
        }

        _cleanup_free_ char *status = NULL, *c = NULL, *m = NULL;
        const char *v;
        size_t len;
        if (root_read_file(root, "proc/self/status", &status, NULL) < 0)
                return false;
        if (status_field(status, "Cpus_allowed_list", &v, &len) < 0 || !(c = strndup(v, len)) ||
            cpuset_parse_list(c, ret_cpus) < 0)
                return false;
        if (status_field(status, "Mems_allowed_list", &v, &len) < 0 || !(m = strndup(v, len)) ||
            cpuset_parse_list(m, ret_mems) < 0)
                return false;
        return true;
}

static void check_cpuset(struct root *root, struct topology *t) {
        struct cpuset cpus, mems, host = {0}, missing;

        if (!allowed_sets(root, &cpus, &mems))
                return;

        missing = t->online_cpus;
        cpuset_andnot(&missing, &cpus);
        if (!cpuset_is_empty(&missing)) {
                _cleanup_free_ char *a = cpuset_format(&cpus), *m = cpuset_format(&missing);
                topology_add_warning(t, "cpuset-restricted",
                                     "this process may use CPUs %s only, not %s (container or cgroup): run "
                                     "numaplan on the host",
                                     a, m);
                return;
        }

        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].mem_total > 0)
                        cpuset_set(&host, (unsigned) t->nodes[i].id);
        missing = host;
        cpuset_andnot(&missing, &mems);
        if (!cpuset_is_empty(&missing)) {
                _cleanup_free_ char *a = cpuset_format(&mems), *m = cpuset_format(&missing);
                topology_add_warning(t, "cpuset-restricted",
                                     "this process may use memory of nodes %s only, not %s (container or "
                                     "cgroup): run numaplan on the host",
                                     a, m);
        }
}

static void check_accelerators(struct topology *t) {
        if (t->n_nodes < 2)
                return;
        for (size_t i = 0; i < t->n_accels; i++)
                if (t->accels[i].numa_node < 0)
                        topology_add_warning(t, "accelerator-no-node",
                                             "accelerator %s reports no NUMA node (numa_node is -1 and its local "
                                             "CPUs do not fall in one node): name its node in the configuration",
                                             t->accels[i].pci);
}

static void check_cgroup(struct root *root, struct topology *t) {
        enum cgroup_mode mode;

        cgroup_detect(root, &mode, NULL);
        if (mode == CGROUP_LEGACY)
                topology_add_warning(t, "cgroup-v1",
                                     "cgroup v2 is not mounted on /sys/fs/cgroup (legacy or hybrid hierarchy): "
                                     "AllowedCPUs= and AllowedMemoryNodes= will not be enforced; boot with "
                                     "systemd.unified_cgroup_hierarchy=1");
        else if (mode == CGROUP_UNIFIED_NO_CPUSET)
                topology_add_warning(t, "cgroup-v1",
                                     "the cgroup v2 cpuset controller is not available: AllowedCPUs= and "
                                     "AllowedMemoryNodes= will not be enforced");
}

void warnings_collect(struct root *root, struct topology *t) {
        check_numa_balancing(root, t);
        check_memory_imbalance(t);
        if (t->n_nodes < 2)
                topology_add_warning(t, "single-node", "one NUMA node: there is nothing to pin");
        check_cpuset(root, t);
        check_accelerators(t);
        if (!cpuset_is_empty(&t->offline_cpus)) {
                _cleanup_free_ char *s = cpuset_format(&t->offline_cpus);
                topology_add_warning(t, "offline-cpus", "CPUs %s are present but offline: plans leave them out", s);
        }
        check_cgroup(root, t);
}
