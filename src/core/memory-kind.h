/* SPDX-License-Identifier: MIT */
#pragma once

/* What a NUMA node's memory is, in hwloc's words: its kinds as bits, and the names hwloc gives a
 * node (its subtype): DRAM, HBM, GPUMemory, SPM, NVM, CXL-DRAM, CXL-NVM... Filled by the host
 * readers (GPU memory from the NVIDIA driver, DAX kmem nodes, ACPI HMAT) and the tiering rule of
 * core/memory-tiers.c; read by show, the planner, verify and prepare. */

#include <stdbool.h>
#include <stdint.h>

/* hwloc's order: higher bandwidth first, for sorting tiers when bandwidths are unknown. */
enum {
        MEMORY_HBM = 1u << 0,
        MEMORY_DRAM = 1u << 1,
        MEMORY_GPU = 1u << 2,
        MEMORY_SPM = 1u << 3, /* specific-purpose (soft-reserved) memory: HBM, mostly, until bandwidth says */
        MEMORY_NVM = 1u << 4,
        MEMORY_CXL = 1u << 5,
};

/* hwloc's name of a set of kinds ("DRAM", "CXL-DRAM", ...), or NULL for none or one without a
 * name. */
const char *memory_kind_name(unsigned kinds);
/* Whether a replica's memory may ever sit there: never GPU memory (the GPU's, reclaimed from
 * nobody) nor NVM (persistent memory, orders slower), whatever the policy. */
static inline bool memory_kind_forbidden(unsigned kinds) {
        return kinds & (MEMORY_GPU | MEMORY_NVM);
}

/* A node's memory beyond its size. */
struct node_memory {
        unsigned kinds;           /* MEMORY_* bits; 0: nothing says (a plain node on most hosts) */
        int accelerator;          /* MEMORY_GPU: index into topology.accels of the GPU that owns it; -1 */
        char *owner_pci;          /* MEMORY_GPU: the owner's PCI address as the driver names it (also when
                             * that device is not in the tree); NULL otherwise */
        int tier;                 /* the node's memory tier as hwloc numbers them (0: the fastest); -1: none */
        int kernel_tier;          /* the kernel's memory_tierN (memory_tiering/), -1: not there */
        uint64_t read_bandwidth;  /* MiB/s, from its nearest initiators (HMAT, access1 else access0); 0: unknown */
        uint64_t write_bandwidth; /* MiB/s; 0: unknown */
        uint64_t read_latency;    /* ns; 0: unknown */
        uint64_t write_latency;   /* ns; 0: unknown */
        char *dax_device;         /* the DAX device (dax1.0) whose kmem driver made this node; NULL */
};
