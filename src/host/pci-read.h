/* SPDX-License-Identifier: MIT */
#pragma once

#include "core/warnings.h"

struct root;
struct topology;

/* Finds the accelerators under <root>/sys/bus/pci through libpci's sysfs backend, names them from
 * the PCI ID database, and resolves the node of each (nodes must be read already). A device that
 * libpci cannot read is reported from whatever files it has, with a warning in `w`; never fatal. */
enum {
        PCI_NAMES = 1 << 0,       /* names from the PCI ID database, and local CPUs even where numa_node
                                   * says the node (both only shown) */
        PCI_DEVICES_TOO = 1 << 1, /* network adapters and NVMe drives as well */
        PCI_CONFIG = 1 << 2,      /* accelerators' and NICs' Device Control from config space (show) */
        PCI_NICS = 1 << 3,        /* network adapters, without NVMe drives (the plan's adapters) */
};
int pci_read_devices(struct root *root, unsigned flags, struct warnings *w, struct topology *t);
/* The Device Control sizes of accelerators and NICs already read without PCI_CONFIG (verify
 * --metrics): libpci scans the tree once more. */
void pci_read_config(struct root *root, struct topology *t);
