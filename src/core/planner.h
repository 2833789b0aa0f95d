/* SPDX-License-Identifier: MIT */
#pragma once

/* The placement: topology and configuration in, plan out. Pure: no I/O, no printing, no globals,
 * so the same inputs give byte-identical plans and the tests can run it on any host. The rules
 * of numaplan.conf(5), PLACEMENT, are the contract. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"
#include "core/config.h"
#include "core/topology.h"
#include "core/warnings.h"

struct placement {
        char *name; /* "llama-0", or "<template>-<i>" */
        char *unit;
        const struct replica_conf *conf;
        size_t *accels; /* indices into topology.accels, in PCI order */
        size_t n_accels;
        struct cpuset home; /* the nodes of its accelerators, or its CPU-only home */
        struct cpuset nodes; /* NUMAMask= and, unless preferred, AllowedMemoryNodes= */
        enum policy policy; /* bind, preferred or interleave: never auto */
        struct cpuset cpus; /* AllowedCPUs= */
        bool cpu_affinity_numa; /* CPUAffinity=numa; else CPUAffinity= lists `cpus` */
        uint64_t memory;
        bool extended; /* did not fit its home nodes (rule 3) */
        char *environment; /* the Environment= value, or NULL */
        char *container;   /* the container its client starts (container =, %i expanded), or NULL */
        uint64_t hugepage_kb;  /* the size of its huge pages; 0 when it asks for none */
        struct hugepage_share {
                int node;
                uint64_t pages;
        } *hugepages; /* its pool, split over its nodes in id order */
        size_t n_hugepages;
        char **why;        /* each decision and its reasons, in words */
        size_t n_why;

        /* Its effective settings, resolved once: its own, else [numaplan]'s, %i expanded. */
        unsigned min_local_bp;
        uint64_t warmup_timeout_ms;
        char *warmup_url;        /* NULL: none configured */
        const char *warmup_body; /* the configuration's, or its default */
        bool visible_devices;
        bool irq_affinity; /* apply steers its devices' interrupts to `cpus` (core/irqs.h) */

        unsigned n_cpus, n_cores; /* in `cpus`, SMT siblings one core */
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

/* A network adapter given to a replica (nics =), and why. */
struct placement_nic {
        size_t nic;       /* index into topology.nics */
        const char *link; /* nics = auto: how it reaches the nearest of the replica's accelerators
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

/* Returns 0 and the plan, adding what it decided for the admin to `w`; or -EINVAL with *err
 * naming the replica, the line of the key that decided it, and the reason in numbers. */
int plan_compute(const struct topology *t, const struct config *c, struct warnings *w, struct plan **ret,
                 struct error_at *err);
struct plan *plan_free(struct plan *p);
static inline void plan_freep(struct plan **p) {
        plan_free(*p);
}
#define _cleanup_plan_ __attribute__((cleanup(plan_freep)))

const struct plan_node *plan_node(const struct plan *p, int id);
/* The step of plan_compute() that gives every replica its network adapters (nics =,
 * core/planner-nics.c): nics = auto, the nearest to its accelerators in the PCIe tree (the same
 * switch, then the same root port, the same host bridge, the same node), none from another node;
 * a CPU-only replica, those of its node; a list, the adapters whose interfaces it names. A name no
 * adapter has is an error at its line (-EINVAL, *err) once every adapter's interfaces are named;
 * before that (at boot) the start resolves it. nic-remote when none sits on a replica's node. */
int plan_nics(const struct topology *t, const struct config *c, struct plan *p, struct warnings *w,
              struct error_at *err);
/* Adds a decision and its reasons, in words, to the replica's `why`. */
void placement_explain(struct placement *pl, const char *fmt, ...) _printf_(2, 3);
