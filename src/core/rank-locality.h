/* SPDX-License-Identifier: MIT */
#pragma once

/* verify's rank-locality: which of a replica's processes drives which of its accelerators (the
 * process maps the device), and whether each such process, a rank, keeps its memory and threads on
 * its accelerator's node; and whether a model meant to be spread over the ranks' nodes is. Pure:
 * the readers (host/rank-read.h) hand in what each process maps and holds. */

#include <stdbool.h>
#include <sys/types.h>

#include "basic/cpuset.h"
#include "core/pci.h"

struct page_tally;

/* The device files of an accelerator that a driver has its users map:
 * - /dev/nvidiaN: NVIDIA's, N its minor number (the driver's /proc/driver/nvidia/gpus/PCI/information
 *   says "Device Minor: N"); /dev/nvidiactl and /dev/nvidia-uvm belong to no one device;
 * - /dev/dri/renderDN, /dev/dri/cardN (DRM: amdgpu, i915, xe, ...) and /dev/accel/accelN (the
 *   kernel's compute accelerators: Habana, Intel's NPU, ...), whose sysfs class entry's `device`
 *   link names the PCI function;
 * - a BAR's sysfs file, /sys/devices/.../DDDD:BB:DD.F/resourceN (and resourceN_wc), which a
 *   user-space driver maps (and the tests' stand-in does). */
enum device_map {
        DEVICE_MAP_NONE,
        DEVICE_MAP_NVIDIA, /* number: the minor */
        DEVICE_MAP_DRM,    /* name: "renderD128", "card0" */
        DEVICE_MAP_ACCEL,  /* name: "accel0" */
        DEVICE_MAP_BAR,    /* pci: the function's address */
};

struct device_path {
        enum device_map kind;
        unsigned number;
        char name[32];
        char pci[PCI_ADDRESS_MAX];
};

/* What the mapped file `path` (as /proc/PID/maps prints it) is; DEVICE_MAP_NONE for any other. */
enum device_map device_path_parse(const char *path, struct device_path *ret);
/* The path of a /proc/PID/maps line [line, eol): after the inode, its blanks skipped, up to eol;
 * NULL for an anonymous mapping or a line that does not parse. */
const char *maps_line_path(const char *line, const char *eol);
/* "Device Minor: N" of the NVIDIA driver's information file; -EINVAL without. */
int nvidia_device_minor(const char *information, unsigned *ret);

/* One process of the replica that maps one of its accelerators. */
struct rank_process {
        pid_t pid;
        char comm[32];
        size_t rank;               /* index into placement.ranks: the accelerator it drives */
        char pci[PCI_ADDRESS_MAX]; /* that accelerator */
        int node;                  /* and its rank's node */
        struct page_tally *pages;  /* its own pages, counted with its rank's node as the plan */
};

struct rank_facts {
        struct rank_process *v;
        size_t n;
        bool looked;    /* the processes' maps were read */
        char **several; /* "pid N (comm)" of processes mapping several accelerators as much: not judged */
};

void rank_facts_done(struct rank_facts *f);

/* Which accelerator a process drives, from the bytes it maps of each of the replica's ranks'
 * devices (mapped[k] for ranks[k]): the one it maps most of; -1 when it maps none, or several as
 * much (an engine's front process that touches every device). */
int rank_driven(const uint64_t *mapped, size_t n);

/* What a rank's own memory is, for the judgement and the reports: anonymous pages, huge ones
 * among them, by node (by_node spans NUMA_NODES_MAX). */
void rank_anonymous(const struct rank_process *p, uint64_t *by_node);

/* A model spread evenly over `nodes`: each holds its even share within 15% of it (42.5-57.5% on
 * two nodes). by_node: its pages. */
bool spread_even(const uint64_t *by_node, const struct cpuset *nodes);
