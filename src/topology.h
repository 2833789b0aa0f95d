/* SPDX-License-Identifier: MIT */
#pragma once

/* What numaplan knows about a host: NUMA nodes, CPUs, accelerators, and the facts behind the
 * warnings. Filled by topology_read() from a root; everything downstream (show, the planner) only
 * reads these structs. */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"

struct root;

enum node_kind { NODE_CPU_MEMORY, NODE_MEMORY_ONLY, NODE_CPU_ONLY };

struct hugepage_pool {
        uint64_t page_kb;
        uint64_t total, free;
};

struct node {
        int id;
        struct cpuset cpus; /* online CPUs only */
        uint64_t mem_total, mem_free; /* bytes */
        int *distances; /* by index into topology.nodes; NULL when the kernel gave none */
        struct hugepage_pool *hugepages;
        size_t n_hugepages;
        enum node_kind kind;
        unsigned cores; /* physical cores: SMT siblings counted once */
};

enum numa_source { NUMA_SOURCE_NONE, NUMA_SOURCE_NUMA_NODE, NUMA_SOURCE_LOCAL_CPUS, NUMA_SOURCE_OVERRIDE };

struct accelerator {
        unsigned domain, bus, dev, func;
        char pci[24]; /* "0000:3b:00.0" */
        bool ids_known; /* vendor and device could be read */
        uint16_t vendor, device;
        uint32_t class; /* 24 bits: class, subclass, prog-if */
        int sysfs_numa_node; /* what sysfs said, -1 for none */
        char *name; /* from the PCI ID database; NULL without one */
        int numa_node; /* -1: no source says */
        enum numa_source numa_source;
        bool has_local_cpus;
        struct cpuset local_cpus;
        bool compute;
};

struct warning {
        const char *code;
        char *message;
};

struct topology {
        struct node *nodes; /* sorted by id */
        size_t n_nodes;
        bool has_node_dirs; /* false: one node 0 made from /proc/meminfo */

        struct cpuset online_cpus;
        struct cpuset offline_cpus; /* present but not online */
        int max_cpu; /* highest online CPU id, -1 if none */
        int *core_of; /* [cpu] lowest online SMT sibling; -1 when not online */
        int *socket_of; /* [cpu] physical package id; -1 unknown */

        struct accelerator *accels; /* sorted by PCI address */
        size_t n_accels;

        struct warning *warnings;
        size_t n_warnings;
};

/* Reads the topology under `root`; `names` looks accelerators up in the PCI ID database (only
 * `show` prints them, and the database costs more than everything else). Logs and returns
 * -errno on a malformed or unreadable file, naming it. Problems that leave the rest usable (a
 * trimmed PCI tree) become warnings. */
int topology_read(struct root *root, bool names, struct topology **ret);
struct topology *topology_free(struct topology *t);
static inline void topology_freep(struct topology **t) {
        topology_free(*t);
}
#define _cleanup_topology_ _cleanup_(topology_freep)

const struct node *topology_node(const struct topology *t, int id);
int topology_node_index(const struct topology *t, int id);
/* Distance between two nodes by id; 10/20 when the kernel gave no table. */
int topology_distance(const struct topology *t, int from, int to);
const struct accelerator *topology_accel(const struct topology *t, const char *pci);

void topology_add_warning(struct topology *t, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Appends a warning to any list of them (the topology's, the plan's). */
void warning_list_add(struct warning **v, size_t *n, const char *code, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0)));

const char *node_kind_to_string(enum node_kind k);
const char *numa_source_to_string(enum numa_source s);

/* Fills `numa_node` and `numa_source` of `a` from its sysfs numa_node value and local CPUs, per
 * SPEC: numa_node >= 0 wins; otherwise the one node whose CPUs contain all local CPUs. */
void accelerator_resolve_node(struct accelerator *a, int sysfs_numa_node, const struct topology *t);
/* SPEC's class filter: 0x03xx, 0x12xx, 0x0b40. */
bool pci_class_is_accelerator(uint32_t class24);
/* False for display controllers of board-management and emulated display vendors. */
bool pci_is_compute(uint16_t vendor, uint32_t class24);
