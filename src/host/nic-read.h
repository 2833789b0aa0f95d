/* SPDX-License-Identifier: MIT */
#pragma once

/* What a network adapter carries beyond its PCI function: its network interfaces and the RDMA
 * devices tied to it, each found through the root, so that a capture replays them. */

#include <stddef.h>

struct pci_device;
struct root;

/* Fills each adapter's interfaces (below its net/, or below virtioN/net/ for a virtio adapter,
 * as cloud VMs have it), sorted by name, its `iface` (the first), whether it is an SR-IOV
 * virtual function, and the RDMA devices of /sys/class/infiniband that belong to it: by their
 * `device` link, or, for a device with none (soft-RoCE's rxe), by the interface it sits on (its
 * `parent`, else its first port's gid_attrs/ndevs/0). What cannot be read is left out. */
void nic_read_details(struct root *root, struct pci_device *nics, size_t n);
