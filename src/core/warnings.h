/* SPDX-License-Identifier: MIT */
#pragma once

/* What numaplan warns about, as stable codes in one table: the readers of the host, the planner
 * and the verbs all add to one list per run, and every output (the tables, --json, stderr)
 * prints that list. numaplan(8) documents each code; a test keeps the two in step. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/util.h"

enum severity {
        SEVERITY_NOTICE,  /* worth knowing, nothing to fix (one node: nothing to pin) */
        SEVERITY_WARNING, /* pinning is weaker, or a decision was made for the admin */
        SEVERITY_ERROR,   /* no plan can be made right on this host: plan and apply refuse */
};

/* What a warning is about: the host as a whole, one node, one PCI device, or one replica. */
enum warning_subject { SUBJECT_HOST, SUBJECT_NODE, SUBJECT_PCI, SUBJECT_REPLICA };

/* Every code: X(ID, code, severity, subject, summary), grouped by what finds it. The summary
 * is one line for the documentation check and `numaplan --help`-style lists. Adding a warning is
 * a row here and its paragraph in numaplan(8), WARNINGS; a test keeps the two in step. */
#define WARNING_KINDS(X) \
        /* The host */ \
        X(NUMA_BALANCING_ON, "numa-balancing-on", WARNING, HOST, \
          "automatic NUMA balancing moves the pages of pinned replicas") \
        X(MEMORY_IMBALANCE, "memory-imbalance", WARNING, NODE, "one node is nearly full while another is mostly free") \
        X(SINGLE_NODE, "single-node", NOTICE, HOST, "one NUMA node: nothing to pin") \
        X(CPUSET_RESTRICTED, "cpuset-restricted", WARNING, HOST, \
          "numaplan itself runs restricted to some CPUs or nodes") \
        X(ACCELERATOR_NO_NODE, "accelerator-no-node", WARNING, PCI, "an accelerator reports no NUMA node") \
        X(OFFLINE_CPUS, "offline-cpus", WARNING, HOST, "CPUs are present but offline") \
        X(CGROUP_V1, "cgroup-v1", WARNING, HOST, \
          "no cgroup v2 cpuset controller: AllowedCPUs= and AllowedMemoryNodes= are not enforced") \
        X(OVERLAPPING_CPUS, "overlapping-cpus", WARNING, HOST, "firmware lists CPUs in more than one node") \
        X(OVERLAPPING_MEMORY_TIERS, "overlapping-memory-tiers", WARNING, NODE, \
          "the kernel lists a node in more than one memory tier") \
        X(PCI_INCOMPLETE, "pci-incomplete", WARNING, PCI, "a PCI device's sysfs directory lacks files numaplan reads") \
        X(PCI_UNREADABLE, "pci-unreadable", WARNING, HOST, "libpci cannot read config space") \
        X(DISTANCES_INVALID, "distances-invalid", WARNING, HOST, "a node's distance row is not what a kernel writes") \
        X(DISTANCE_ROW, "distance-row-length", NOTICE, HOST, \
          "distance rows list every possible node, not only the online ones") \
        X(MEMINFO_INVALID, "meminfo-invalid", WARNING, NODE, "a node's meminfo says more memory free than it has") \
        X(SYSFS_MALFORMED, "sysfs-malformed", WARNING, HOST, \
          "a file of sysfs or /proc is malformed or absent; the rest is reported") \
        X(HOST_UNPLANNABLE, "host-unplannable", ERROR, HOST, \
          "what is unreadable makes any plan on this host impossible or wrong") \
        /* The plan */ \
        X(MEMORY_ONLY_HOME, "memory-only-home", WARNING, REPLICA, \
          "a replica's accelerator sits on a memory-only node") \
        X(BIND_EXTENDED, "bind-extended", WARNING, REPLICA, "a replica bound as asked to more nodes than its home") \
        X(REPLICA_EXTENDED, "replica-extended", WARNING, REPLICA, \
          "a replica too big for its home, interleaved over more nodes") \
        X(PREFERRED_SPILLS, "preferred-spills", WARNING, REPLICA, \
          "a preferred replica larger than its node: the kernel spills the rest") \
        X(NODE_MEMORY_LOW, "node-memory-low", WARNING, NODE, \
          "a bind replica needs more than its node has available now") \
        X(ACCELERATOR_NOT_COMPUTE, "accelerator-not-compute", WARNING, PCI, \
          "a replica names a display controller, not a compute accelerator") \
        X(MEMORY_UNSET, "memory-unset", NOTICE, HOST, "the built-in default sizes no replica's memory") \
        X(MODEL_SHARED, "model-shared", WARNING, HOST, "replicas on different nodes name the same model file") \
        X(NIC_REMOTE, "nic-remote", WARNING, REPLICA, "a replica has no network adapter on its node") \
        X(PLACES_NOTHING, "places-nothing", WARNING, REPLICA, "a [replicas] section places no replica on this host") \
        X(UNIT_UNKNOWN, "unit-unknown", WARNING, REPLICA, "systemd knows no unit of a replica's name") \
        X(MODEL_MISSING, "model-missing", WARNING, REPLICA, "a replica's model is not there, or holds no data") \
        X(L3_STRADDLE, "l3-straddle", WARNING, REPLICA, \
          "a replica's cores straddle L3 caches that a split by L3 alone would keep whole") \
        X(LEAST_CAPABLE_KIND, "least-capable-kind", WARNING, REPLICA, \
          "a replica has only its node's least capable kind of core") \
        X(CPU_KINDS_SHORT, "cpu-kinds-short", WARNING, REPLICA, \
          "cpu-kinds = best leaves a replica fewer cores than it is due") \
        /* The host's tuning (core/tuning.h) */ \
        X(PCIE_LINK_NARROW, "pcie-link-narrow", WARNING, PCI, "a PCIe link is narrower than the device's maximum") \
        X(PCIE_LINK_SLOW, "pcie-link-slow", NOTICE, PCI, \
          "a PCIe link runs below the device's maximum speed (idle GPUs do)") \
        X(PCIE_MRRS_SMALL, "pcie-mrrs-small", WARNING, PCI, "a compute accelerator's MaxReadReq is below 4096 bytes") \
        X(IRQ_REMOTE, "irq-remote", WARNING, PCI, "a device's interrupts are set to other nodes' CPUs only") \
        X(CPU_GOVERNOR, "cpu-governor", WARNING, HOST, \
          "replicas' CPUs run a frequency governor other than performance") \
        X(CSTATES_DEEP, "cstates-deep", WARNING, HOST, \
          "CPU idle states with an exit latency above 100 us are enabled") \
        X(ZONE_RECLAIM, "zone-reclaim", WARNING, HOST, "vm.zone_reclaim_mode is not 0") \
        X(IOMMU_TRANSLATED, "iommu-translated", NOTICE, HOST, \
          "a translating IOMMU sits in front of compute accelerators") \
        X(SWAP_BOUND_REPLICA, "swap-bound-replica", WARNING, HOST, "swap is on and replicas are bound to their nodes")

#define WARNING_ENUM(id, ...) WARNING_##id,
enum warning_code { WARNING_KINDS(WARNING_ENUM) _WARNING_MAX };
#undef WARNING_ENUM

struct warning_kind {
        const char *code;
        enum severity severity;
        enum warning_subject subject;
        const char *summary; /* one line for the documentation check and `numaplan --help`-style lists */
};

extern const struct warning_kind warning_kinds[_WARNING_MAX];

struct warning {
        enum warning_code code;
        char *subject; /* node id, PCI address or replica name as text; NULL for the host */
        char *message;
};

struct warnings {
        struct warning *v;
        size_t n;
};

static inline const char *severity_to_string(enum severity s) {
        return s == SEVERITY_NOTICE ? "notice" : s == SEVERITY_WARNING ? "warning" : "error";
}

static inline const char *warning_code(const struct warning *w) {
        return warning_kinds[w->code].code;
}

/* Adds a warning about `subject` (NULL for SUBJECT_HOST codes). */
void warnings_add(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...) _printf_(4, 5);
/* Sets the message of the warning of `code` about `subject`, adding it if there is none: for a
 * cause found twice (the host's reading and the plan), one warning. */
void warnings_put(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...) _printf_(4, 5);
bool warnings_has(const struct warnings *l, enum warning_code code, const char *subject);
/* How many warnings of at least `severity` the list holds. */
size_t warnings_count(const struct warnings *l, enum severity severity);
/* The text outputs' order and folding: errors, then warnings, then notices, each severity's codes
 * in the order first found, each code once. `each` (-v) gives every warning's own message; else a
 * code found once gives its message, and one found more often a line that names every subject and
 * says the code's summary. `fn` gets each line to print and the first warning of its code. */
void warnings_for_text(const struct warnings *l, bool each,
                       void (*fn)(const struct warning *first, const char *text, void *userdata), void *userdata);
void warnings_done(struct warnings *l);
