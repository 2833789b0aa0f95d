/* SPDX-License-Identifier: MIT */
#pragma once

/* What numaplan knows about a host: NUMA nodes, CPUs and accelerators. The host readers fill it
 * (host/topology-read.h); everything downstream (show, the planner) only reads these structs. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"
#include "core/cpu-kinds.h"
#include "core/irq-list.h"
#include "core/memory-kind.h"
#include "core/pci.h"
#include "core/tuning.h"

struct config;

/* NODE_KIND_UNKNOWN: CPUs, and memory that could not be read: not guessed. */
enum node_kind { NODE_CPU_MEMORY, NODE_MEMORY_ONLY, NODE_CPU_ONLY, NODE_KIND_UNKNOWN };

struct hugepage_pool {
        uint64_t page_kb;
        uint64_t total, free;
};

struct node {
        int id;
        struct cpuset cpus;           /* online CPUs only */
        uint64_t mem_total, mem_free; /* bytes */
        uint64_t mem_available;       /* free plus reclaimable, what the kernel could hand out now */
        bool memory_known;            /* meminfo could be read; else mem_total is 0 */
        int *distances;               /* by index into topology.nodes; NULL when the kernel gave none */
        struct hugepage_pool *hugepages;
        size_t n_hugepages;
        enum node_kind kind;
        unsigned cores;            /* physical cores: SMT siblings counted once */
        struct node_memory memory; /* what its memory is (core/memory-kind.h) */
};

enum numa_source { NUMA_SOURCE_NONE, NUMA_SOURCE_NUMA_NODE, NUMA_SOURCE_LOCAL_CPUS, NUMA_SOURCE_OVERRIDE };

/* What numaplan reports of a PCI function: accelerators, which replicas are placed by, and the
 * network adapters and NVMe drives an admin places beside them (GPUDirect RDMA, storage). */
enum pci_kind { PCI_ACCELERATOR, PCI_NIC, PCI_STORAGE };

/* A network adapter's interface. `named`: udev has given it its name (its record is there), or
 * the root is a capture, whose names are final; an interface the kernel named moments ago
 * (eth0 before udev renames it, at boot) is not. */
struct net_iface {
        char *name;
        bool named;
};

/* An RDMA device (/sys/class/infiniband) and how it was tied to its adapter: its `device` link
 * (mlx5_0), or the network interface it sits on (soft-RoCE's rxe0, which has no PCI device). */
struct rdma_dev {
        char *name;
        unsigned *ports; /* its port numbers, ascending */
        size_t n_ports;
        bool via_netdev;
};

/* A PCI function numaplan reports: an accelerator (in topology.accels, the devices the plan places
 * replicas by), a network adapter or an NVMe drive (topology.nics, .storage). */
struct pci_device {
        enum pci_kind kind;
        struct pci_address address;
        char pci[PCI_ADDRESS_MAX]; /* "0000:3b:00.0" */
        bool ids_known;            /* vendor and device could be read */
        uint16_t vendor, device;
        uint32_t class;      /* 24 bits: class, subclass, prog-if */
        int sysfs_numa_node; /* what sysfs said, -1 for none */
        char *name;          /* from the PCI ID database; NULL without one */
        int numa_node;       /* -1: no source says */
        enum numa_source numa_source;
        struct cpuset *local_cpus; /* NULL when not read (show reads it, and placing a device that has
                                    * no numa_node) or unreadable: a set is 1 KiB, a device 200 bytes */
        bool compute;
        int index;                /* among its vendor's compute accelerators in PCI-address order, as CUDA and
                    * ROCm count them with PCI bus order; -1 for the rest */
        char *path;               /* its sysfs directory under the root, "sys/devices/pci0000:17/.../0000:18:00.0"
                     * when the bus entry is a link, else "sys/bus/pci/devices/0000:18:00.0" */
        char *iface;              /* a NIC's network interface (the first of ifaces), a drive's NVMe controller; NULL */
        struct net_iface *ifaces; /* a NIC's interfaces, by name (below net/, or virtioN/net/) */
        size_t n_ifaces;
        struct rdma_dev *rdma; /* a NIC's RDMA devices, by name */
        size_t n_rdma;
        bool virtual_function;   /* an SR-IOV virtual function (its physfn link): a VM's, not the host's */
        struct pcie_link pcie;   /* accelerators and NICs, when read (show) */
        struct device_irqs irqs; /* accelerators and NICs, when read (show, apply, verify) */
};

struct topology {
        struct node *nodes; /* sorted by id */
        size_t n_nodes;
        int *node_index;       /* [id] the node's index into nodes, -1 for none (topology_index_nodes()) */
        size_t n_node_index;   /* the highest node id + 1 */
        bool has_node_dirs;    /* false: one node 0 made from /proc/meminfo */
        bool nodes_unreadable; /* and the node directory is there, but could not be listed */

        struct cpuset online_cpus;
        struct cpuset offline_cpus; /* present but not online */
        int max_cpu;                /* highest online CPU id, -1 if none */
        int *core_of;               /* [cpu] lowest online SMT sibling; -1 when not online */
        int *socket_of;             /* [cpu] physical package id; -1 unknown */
        /* CPU kinds and L3 caches (core/cpu-kinds.h), read with TOPOLOGY_KINDS and
         * TOPOLOGY_L3: kind_of[cpu] indexes kinds.v and l3_of[cpu] l3, -1 for none; NULL unread. */
        struct cpu_kinds kinds;
        int *kind_of;
        struct l3_domain *l3;
        size_t n_l3;
        int *l3_of;

        struct pci_device *accels; /* sorted by PCI address */
        size_t n_accels;
        struct pci_device *nics, *storage; /* the same, for network adapters and NVMe drives */
        size_t n_nics, n_storage;
        /* Coherent NVIDIA GPUs (their driver's numa_status is there) whose memory is no node: the
         * driver manages it (CDMM). Their PCI addresses as the driver names them. */
        char **driver_managed_gpus;
        size_t n_driver_managed_gpus;

        int numa_balancing;           /* kernel.numa_balancing; -1 unknown */
        char *thp;                    /* transparent huge pages: "always", "madvise", "never"; NULL unknown */
        uint64_t hugepage_default_kb; /* /proc/meminfo's Hugepagesize; 0 unknown */
        uint64_t *hugepage_sizes_kb;  /* the sizes the kernel offers, smallest first */
        size_t n_hugepage_sizes;
        struct host_tuning *tuning; /* NULL: not read (only show and verify --metrics read it) */
        int irqbalance;             /* the pid of a running irqbalance; -1: none runs; 0: unknown (not read, or a
                         * capture without processes) */
};

struct topology *topology_free(struct topology *t);
static inline void topology_freep(struct topology **t) {
        topology_free(*t);
}
#define _cleanup_topology_ _cleanup_(topology_freep)

/* Indexes the nodes by id, once they are all there (the readers do): then topology_node_index()
 * takes constant time, as the planner's loops over nodes and replicas need on a host of many
 * nodes. A topology made by hand without it is searched node by node. */
void topology_index_nodes(struct topology *t);
const struct node *topology_node(const struct topology *t, int id);
/* The index into t->nodes of node `id`, -1 when there is none. */
int topology_node_index(const struct topology *t, int id);
/* Distance between two nodes by id; 10/20 when the kernel gave no table. */
int topology_distance(const struct topology *t, int from, int to);
const struct pci_device *topology_accel(const struct topology *t, const char *pci);

const char *node_kind_to_string(enum node_kind k);
const char *numa_source_to_string(enum numa_source s);

/* Fills `numa_node` and `numa_source` of `a` from its sysfs numa_node value and local CPUs:
 * numa_node >= 0 wins; otherwise the one node whose CPUs contain all its online local CPUs. */
void pci_device_resolve_node(struct pci_device *a, int sysfs_numa_node, const struct topology *t);

/* How two PCI functions reach each other, as `nvidia-smi topo -m` says it: "X" (the same one),
 * "PIX" (through one PCIe bridge: the same switch), "PXB" (several bridges, not the host bridge),
 * "PHB" (through the host bridge: the same root complex), "NODE" (between host bridges of one
 * NUMA node), "SYS" (across NUMA nodes); from their sysfs paths, so for every vendor and with no
 * driver loaded. NULL when neither their paths nor their nodes say. */
const char *pci_link(const struct pci_device *a, const struct pci_device *b);
/* How near pci_link() says two functions are: PIX 0, PXB 1, PHB 2, NODE 3, SYS 4; -1 for "X" or
 * an unknown path. */
int pci_link_rank(const char *link);

/* Applies [numaplan] accelerator-nodes: the named accelerators' numa_source becomes "override".
 * An unknown accelerator or node is an error at the key's line. */
int topology_apply_overrides(struct topology *t, const struct config *c, struct error_at *err);
/* "0000:18:00.0, 0000:2a:00.0", or "none": for messages naming what the host has. */
char *topology_list_accelerators(const struct topology *t);
