/* SPDX-License-Identifier: MIT */
#pragma once

/* Which of a replica's processes drives which of its accelerators, read through the root: each
 * process's /proc/PID/maps names the device files it maps (core/rank-locality.h), resolved to PCI
 * functions by the NVIDIA driver's /proc/driver/nvidia/gpus/PCI/information (minor numbers) and
 * sysfs's class entries (/sys/class/drm/NAME/device, /sys/class/accel/NAME/device); each such
 * process's own pages are then counted against its accelerator's node. */

#include "core/placement.h"
#include "core/rank-locality.h"
#include "core/topology.h"
#include "core/verify-checks.h"

struct root;

/* The ranks among tf's processes, in their order, each with its pages (base_kb a page); a
 * process gone meanwhile is left out. */
void rank_processes(struct root *root, const struct topology *t, const struct placement *pl,
                    const struct task_facts *tf, uint64_t base_kb, struct rank_facts *ret);
