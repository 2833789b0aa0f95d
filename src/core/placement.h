/* SPDX-License-Identifier: MIT */
#pragma once

/* What the planner makes: a placement for each replica and the plan that holds them, with the
 * reasons for each decision. The planner's steps (core/planner.c, core/planner-nics.c) fill them;
 * the verbs read them. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"
#include "basic/util.h"
#include "core/config.h"

struct placement {
        char *name; /* "llama-0", or "<template>-<i>" */
        char *unit;
        const struct replica_conf *conf;
        size_t *accels; /* indices into topology.accels, in PCI order */
        size_t n_accels;
        struct cpuset home;     /* the nodes of its accelerators, or its CPU-only home */
        struct cpuset nodes;    /* NUMAMask= and, unless preferred, AllowedMemoryNodes= */
        enum policy policy;     /* bind, preferred or interleave: never auto */
        struct cpuset cpus;     /* AllowedCPUs= */
        bool cpu_affinity_numa; /* CPUAffinity=numa; else CPUAffinity= lists `cpus` */
        uint64_t memory;
        bool extended;        /* did not fit its home nodes (rule 3) */
        char *environment;    /* the Environment= value, or NULL */
        char *container;      /* the container its client starts (container =, %i expanded), or NULL */
        uint64_t hugepage_kb; /* the size of its huge pages; 0 when it asks for none */
        struct hugepage_share {
                int node;
                uint64_t pages;
        } * hugepages; /* its pool, split over its nodes in id order */
        size_t n_hugepages;
        char **why; /* each decision and its reasons, in words */
        size_t n_why;

        /* Its effective settings, resolved once: its own, else [numaplan]'s, %i expanded. */
        unsigned min_local_bp;
        uint64_t warmup_timeout_ms;
        char *warmup_url;        /* NULL: none configured */
        const char *warmup_body; /* the configuration's, or its default */
        bool visible_devices;
        bool irq_affinity; /* apply steers its devices' interrupts to `cpus` (core/irqs.h) */

        unsigned n_cpus, n_cores; /* in `cpus`, SMT siblings one core */
        /* Its accelerators as its engine numbers them (core/ranks.h): one rank each, in the order of
         * its visible devices, with the node it runs on and its share of `cpus`. */
        struct placement_rank *ranks;
        size_t n_ranks;
        /* model-copies = per-node: the copies of its model it reads, in "node1" (or "nodes0-1") under
         * numaplan's runtime directory's models/, which holds `copies_bytes` for all the replicas
         * there; NULL without. */
        char *copies;
        uint64_t copies_bytes;
        /* Its network adapters (nics =), in PCI-address order; a list's names that no adapter
         * has yet (the interfaces are not all named: at boot, before udev) are kept as names, in
         * `nic_names`, which the drop-in hands to prepare for the start to resolve. */
        enum nics_mode nics_mode;
        struct placement_nic *nics;
        size_t n_nics;
        char *const *nic_names; /* nics = LIST: the configuration's names, all of them */
};

/* One accelerator of a replica and the worker process (a rank) that drives it: tensor-parallel
 * engines run one per device, each best placed on its device's node. */
struct placement_rank {
        size_t accel;       /* index into topology.accels */
        int node;           /* the node it is planned on: its accelerator's, -1 while none is known */
        struct cpuset cpus; /* its share of the replica's CPUs on that node */
};

/* A network adapter given to a replica (nics =), and why. */
struct placement_nic {
        size_t nic;        /* index into topology.nics */
        const char *link;  /* nics = auto: how it reaches the nearest of the replica's accelerators
                           * (pci_link(): "PIX", "PXB", "PHB", "NODE"), or "NODE" for a CPU-only
                           * replica's node; NULL when named in a list */
        const char *named; /* nics = LIST: the interface named (the configuration's string) */
};

struct plan_node {
        int id;
        uint64_t usable, assigned;
};

struct plan {
        struct placement *replicas; /* config order; template instances in %i order */
        size_t n_replicas;
        struct plan_node *nodes; /* every node with memory, by id */
        size_t n_nodes;
};

struct plan *plan_free(struct plan *p);
static inline void plan_freep(struct plan **p) {
        plan_free(*p);
}
#define _cleanup_plan_ __attribute__((cleanup(plan_freep)))

const struct plan_node *plan_node(const struct plan *p, int id);
/* Adds a decision and its reasons, in words, to the replica's `why`. */
void placement_explain(struct placement *pl, const char *fmt, ...) _printf_(2, 3);
