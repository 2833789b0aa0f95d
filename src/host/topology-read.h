/* SPDX-License-Identifier: MIT */
#pragma once

/* Reads a host's topology (core/topology.h) from the sysfs and /proc under a root. */

#include "core/topology.h"
#include "core/warnings.h"

struct root;

enum {
        TOPOLOGY_NAMES = 1 << 0,   /* name accelerators from the PCI ID database, and read each one's
                                    * local CPUs: only `show` prints them, and the database costs more
                                    * than everything else */
        TOPOLOGY_DEVICES = 1 << 1, /* network adapters and NVMe drives too (`show`) */
        TOPOLOGY_TUNING = 1 << 2,  /* PCIe links and config space, the host's tuning (core/tuning.h):
                                    * `show`, `snapshot`; plan and apply do without */
        TOPOLOGY_NICS = 1 << 3,    /* network adapters, their interfaces and RDMA devices (plan, prepare) */
        TOPOLOGY_IRQS = 1 << 4,    /* the accelerators' and network adapters' interrupts (core/irqs.h),
                                    * and with TOPOLOGY_TUNING whether irqbalance runs */
        TOPOLOGY_KINDS = 1 << 5,   /* the CPU kinds (core/cpu-kinds.h): show, and plan's rule 5 */
        TOPOLOGY_L3 = 1 << 6,      /* the L3 caches: show, and plan's rule 5 where replicas share a node */
};

/* Logs and returns -errno on a malformed or unreadable file, naming it. Problems that leave the
 * rest usable (a trimmed PCI tree) are added to `w`. */
int topology_read(struct root *root, unsigned flags, struct warnings *w, struct topology **ret);
/* Only the ids of the host's NUMA nodes, as topology_read() finds them: node/online, else the
 * nodeN directories; node 0 alone on a kernel without NUMA. */
void topology_read_node_ids(struct root *root, struct cpuset *ret);
/* The host's tuning for a topology read without TOPOLOGY_TUNING (verify --metrics). */
void topology_read_tuning(struct root *root, struct topology *t, struct warnings *w);
