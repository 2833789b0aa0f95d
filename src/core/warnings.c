/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "basic/escape.h"
#include "core/warnings.h"

const struct warning_kind warning_kinds[_WARNING_MAX] = {
        [WARNING_NUMA_BALANCING_ON] = {"numa-balancing-on", SEVERITY_WARNING, SUBJECT_HOST,
                                       "automatic NUMA balancing moves the pages of pinned replicas"},
        [WARNING_MEMORY_IMBALANCE] = {"memory-imbalance", SEVERITY_WARNING, SUBJECT_NODE,
                                      "one node is nearly full while another is mostly free"},
        [WARNING_SINGLE_NODE] = {"single-node", SEVERITY_NOTICE, SUBJECT_HOST, "one NUMA node: nothing to pin"},
        [WARNING_CPUSET_RESTRICTED] = {"cpuset-restricted", SEVERITY_WARNING, SUBJECT_HOST,
                                       "numaplan itself runs restricted to some CPUs or nodes"},
        [WARNING_ACCELERATOR_NO_NODE] = {"accelerator-no-node", SEVERITY_WARNING, SUBJECT_PCI,
                                         "an accelerator reports no NUMA node"},
        [WARNING_OFFLINE_CPUS] = {"offline-cpus", SEVERITY_WARNING, SUBJECT_HOST,
                                  "CPUs are present but offline"},
        [WARNING_CGROUP_V1] = {"cgroup-v1", SEVERITY_WARNING, SUBJECT_HOST,
                               "no cgroup v2 cpuset controller: AllowedCPUs= and AllowedMemoryNodes= are not enforced"},
        [WARNING_OVERLAPPING_CPUS] = {"overlapping-cpus", SEVERITY_WARNING, SUBJECT_HOST,
                                      "firmware lists CPUs in more than one node"},
        [WARNING_PCI_INCOMPLETE] = {"pci-incomplete", SEVERITY_WARNING, SUBJECT_PCI,
                                    "a PCI device's sysfs directory lacks files numaplan reads"},
        [WARNING_PCI_UNREADABLE] = {"pci-unreadable", SEVERITY_WARNING, SUBJECT_HOST,
                                    "the PCI tree cannot be scanned"},
        [WARNING_DISTANCES_INVALID] = {"distances-invalid", SEVERITY_WARNING, SUBJECT_HOST,
                                       "a node's distance row is not what a kernel writes"},
        [WARNING_DISTANCE_ROW] = {"distance-row-length", SEVERITY_NOTICE, SUBJECT_HOST,
                                  "distance rows list every possible node, not only the online ones"},
        [WARNING_SYSFS_MALFORMED] = {"sysfs-malformed", SEVERITY_WARNING, SUBJECT_HOST,
                                     "a file of sysfs or /proc is malformed or absent; the rest is reported"},
        [WARNING_HOST_UNPLANNABLE] = {"host-unplannable", SEVERITY_ERROR, SUBJECT_HOST,
                                      "what is unreadable makes any plan on this host impossible or wrong"},
        [WARNING_MEMINFO_INVALID] = {"meminfo-invalid", SEVERITY_WARNING, SUBJECT_NODE,
                                     "a node's meminfo says more memory free than it has"},
        [WARNING_MEMORY_ONLY_HOME] = {"memory-only-home", SEVERITY_WARNING, SUBJECT_REPLICA,
                                      "a replica's accelerator sits on a memory-only node"},
        [WARNING_BIND_EXTENDED] = {"bind-extended", SEVERITY_WARNING, SUBJECT_REPLICA,
                                   "a replica bound as asked to more nodes than its home"},
        [WARNING_REPLICA_EXTENDED] = {"replica-extended", SEVERITY_WARNING, SUBJECT_REPLICA,
                                      "a replica too big for its home, interleaved over more nodes"},
        [WARNING_PREFERRED_SPILLS] = {"preferred-spills", SEVERITY_WARNING, SUBJECT_REPLICA,
                                      "a preferred replica larger than its node: the kernel spills the rest"},
        [WARNING_NODE_MEMORY_LOW] = {"node-memory-low", SEVERITY_WARNING, SUBJECT_NODE,
                                     "a bind replica needs more than its node has available now"},
        [WARNING_ACCELERATOR_NOT_COMPUTE] = {"accelerator-not-compute", SEVERITY_WARNING, SUBJECT_PCI,
                                             "a replica names a display controller, not a compute accelerator"},
        [WARNING_MEMORY_UNSET] = {"memory-unset", SEVERITY_NOTICE, SUBJECT_HOST,
                                  "the built-in default sizes no replica's memory"},
        [WARNING_MODEL_SHARED] = {"model-shared", SEVERITY_WARNING, SUBJECT_HOST,
                                  "replicas on different nodes name the same model file"},
        [WARNING_PCIE_LINK_NARROW] = {"pcie-link-narrow", SEVERITY_WARNING, SUBJECT_PCI,
                                      "a PCIe link is narrower than the device's maximum"},
        [WARNING_PCIE_LINK_SLOW] = {"pcie-link-slow", SEVERITY_NOTICE, SUBJECT_PCI,
                                    "a PCIe link runs below the device's maximum speed (idle GPUs do)"},
        [WARNING_PCIE_MRRS_SMALL] = {"pcie-mrrs-small", SEVERITY_WARNING, SUBJECT_PCI,
                                     "a compute accelerator's MaxReadReq is below 4096 bytes"},
        [WARNING_CPU_GOVERNOR] = {"cpu-governor", SEVERITY_WARNING, SUBJECT_HOST,
                                  "replicas' CPUs run a frequency governor other than performance"},
        [WARNING_CSTATES_DEEP] = {"cstates-deep", SEVERITY_WARNING, SUBJECT_HOST,
                                  "CPU idle states with an exit latency above 100 us are enabled"},
        [WARNING_ZONE_RECLAIM] = {"zone-reclaim", SEVERITY_WARNING, SUBJECT_HOST,
                                  "vm.zone_reclaim_mode is not 0"},
        [WARNING_IOMMU_TRANSLATED] = {"iommu-translated", SEVERITY_NOTICE, SUBJECT_HOST,
                                      "a translating IOMMU sits in front of compute accelerators"},
        [WARNING_SWAP_BOUND_REPLICA] = {"swap-bound-replica", SEVERITY_WARNING, SUBJECT_HOST,
                                        "swap is on and replicas are bound to their nodes"},
};

void warnings_add(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        _cleanup_free_ char *raw = xvasprintf(fmt, ap);
        va_end(ap);
        /* Values read from the host go into the words as the files held them. */
        char *msg = text_escape(raw);
        l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
        l->v[l->n++] = (struct warning){.code = code, .subject = subject ? xstrdup(subject) : NULL, .message = msg};
}

void warnings_put(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        _cleanup_free_ char *raw = xvasprintf(fmt, ap);
        va_end(ap);
        char *msg = text_escape(raw);
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].code == code && streq_ptr(l->v[i].subject, subject)) {
                        free(l->v[i].message);
                        l->v[i].message = msg;
                        return;
                }
        warnings_add(l, code, subject, "%s", msg);
        free(msg);
}

bool warnings_has(const struct warnings *l, enum warning_code code, const char *subject) {
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].code == code && streq_ptr(l->v[i].subject, subject))
                        return true;
        return false;
}

size_t warnings_count(const struct warnings *l, enum severity severity) {
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++)
                n += warning_kinds[l->v[i].code].severity >= severity;
        return n;
}

void warnings_done(struct warnings *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].subject);
                free(l->v[i].message);
        }
        free(l->v);
        *l = (struct warnings){0};
}
