/* SPDX-License-Identifier: MIT */
#pragma once

/* A replica's network adapters at its start (nics =, numaplan.conf(5), NETWORK ADAPTERS), and the
 * variables that tell its servers which to use. Pure: structs in, structs and text out.
 *
 * The choice is the plan's (plan_nics(), core/planner-nics.h), made from the PCIe tree, which is whole
 * from the first moment of a boot; the names (an adapter's interface, its RDMA devices) are the
 * start's: drivers and udev give them after the generator and numaplan.service have run, so
 * `numaplan prepare` resolves them when the replica starts (nic_resolve()) and writes
 * nic_environment() for systemd. */

#include <stdbool.h>
#include <stddef.h>

#include "core/topology.h"

/* The adapter one of whose interfaces is `name`, or NULL. */
const struct pci_device *nic_with_iface(const struct topology *t, const char *name);
/* The interface to name for an adapter: its first that udev named, else its first; NULL. */
const char *nic_first_iface(const struct pci_device *n);

/* One adapter as the start resolved it: the interface to name (NULL: it has none now). */
struct nic_pick {
        const struct pci_device *nic;
        const char *iface;
};

/* Resolves what the drop-in hands prepare (--nics): each item a PCI address (an adapter the
 * plan chose: its first interface udev named, else its first) or an interface name (nics =
 * LIST). Returns the picks in PCI-address order (one adapter's interfaces in the order given), one
 * an adapter, and in *ret_problems what did not resolve, in words, one a line (NULL when all did). */
struct nic_pick *nic_resolve(const struct topology *t, char *const *items, size_t *ret_n, char **ret_problems);
/* Whether every item resolved to an adapter with a named interface or an RDMA device: nothing
 * left for udev to name. */
bool nic_resolved(const struct topology *t, char *const *items);
/* The environment file's text for the picks: NUMAPLAN_NICS, NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME,
 * UCX_NET_DEVICES, and NCCL_IB_HCA when there are RDMA devices (numaplan.conf(5) says why each).
 * An interface whose name cannot stand in those lists (a comma, a control byte, bytes that are
 * not UTF-8) is left out, said in *ret_skipped (NULL for none). */
char *nic_environment(const struct nic_pick *picks, size_t n, char **ret_skipped);
