/* SPDX-License-Identifier: MIT */
#pragma once

/* Reads the host's tuning (core/tuning.h) under the root: the PCIe link attributes of the
 * accelerators and network adapters already found, cpufreq and cpuidle, vm.zone_reclaim_mode,
 * /proc/swaps, the kernel release and the IOMMU's mode. What is absent stays unknown; a file
 * that is there but malformed is a sysfs-malformed warning in `w`. The config space is
 * pci-read.c's (libpci). */

#include "core/warnings.h"

struct root;
struct topology;

void host_tuning_read(struct root *root, struct topology *t, struct warnings *w);
