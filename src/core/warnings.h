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

enum warning_code {
        /* The host */
        WARNING_NUMA_BALANCING_ON,
        WARNING_MEMORY_IMBALANCE,
        WARNING_SINGLE_NODE,
        WARNING_CPUSET_RESTRICTED,
        WARNING_ACCELERATOR_NO_NODE,
        WARNING_OFFLINE_CPUS,
        WARNING_CGROUP_V1,
        WARNING_OVERLAPPING_CPUS,
        WARNING_PCI_INCOMPLETE,
        WARNING_PCI_UNREADABLE,
        WARNING_DISTANCES_INVALID,
        WARNING_DISTANCE_ROW,
        WARNING_MEMINFO_INVALID,
        WARNING_SYSFS_MALFORMED,
        WARNING_HOST_UNPLANNABLE,
        /* The plan */
        WARNING_MEMORY_ONLY_HOME,
        WARNING_BIND_EXTENDED,
        WARNING_REPLICA_EXTENDED,
        WARNING_PREFERRED_SPILLS,
        WARNING_NODE_MEMORY_LOW,
        WARNING_ACCELERATOR_NOT_COMPUTE,
        WARNING_MEMORY_UNSET,
        WARNING_MODEL_SHARED,
        /* The host's tuning (core/tuning.h) */
        WARNING_PCIE_LINK_NARROW,
        WARNING_PCIE_LINK_SLOW,
        WARNING_PCIE_MRRS_SMALL,
        WARNING_CPU_GOVERNOR,
        WARNING_CSTATES_DEEP,
        WARNING_ZONE_RECLAIM,
        WARNING_IOMMU_TRANSLATED,
        WARNING_SWAP_BOUND_REPLICA,
        _WARNING_MAX,
};

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
void warnings_add(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...)
        _printf_(4, 5);
/* Sets the message of the warning of `code` about `subject`, adding it if there is none: for a
 * cause found twice (the host's reading and the plan), one warning. */
void warnings_put(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...)
        _printf_(4, 5);
bool warnings_has(const struct warnings *l, enum warning_code code, const char *subject);
/* How many warnings of at least `severity` the list holds. */
size_t warnings_count(const struct warnings *l, enum severity severity);
void warnings_done(struct warnings *l);
