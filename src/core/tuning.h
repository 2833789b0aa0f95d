/* SPDX-License-Identifier: MIT */
#pragma once

/* What an admin audits on an inference host beyond its topology: each accelerator's and network
 * adapter's PCIe link and DMA sizes, the CPUs' frequency governor and idle states, and the kernel
 * knobs that decide where a replica's memory and DMA go. host/host-tuning.c and host/pci-read.c
 * fill these; the checks (core/tuning-checks.h) are pure. Every fact may be unknown: its files are absent on a VM,
 * on an old kernel, and in a capture taken before numaplan read them. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"

/* Why max_read_request and max_payload are known, or not. */
enum pcie_config {
        PCIE_CONFIG_NOT_READ, /* not asked for (plan, apply) */
        PCIE_CONFIG_READ,
        PCIE_CONFIG_ABSENT,  /* no config file in sysfs (a fixture, a capture from before) */
        PCIE_CONFIG_SHORT,   /* only its first 64 bytes readable: sysfs gives the rest to root alone */
        PCIE_CONFIG_NO_CAP,  /* no PCI Express capability: a conventional PCI function */
        PCIE_CONFIG_INVALID, /* Device Control holds reserved sizes (all ones: the device is gone) */
        PCIE_CONFIG_UNREAD,  /* libpci is not there, was kept out of the capture, or failed on it */
};

struct pcie_link {
        char *speed, *max_speed;           /* as sysfs writes them, "16.0 GT/s PCIe"; NULL when absent */
        unsigned speed_mts, max_speed_mts; /* the same in MT/s (16000); 0 when absent or "Unknown" */
        int width, max_width;              /* lanes; -1 when absent */
        int max_read_request, max_payload; /* bytes, from Device Control; -1 when unknown */
        enum pcie_config config;
};

static inline void pcie_link_init(struct pcie_link *l) {
        *l = (struct pcie_link){.width = -1, .max_width = -1, .max_read_request = -1, .max_payload = -1};
}
void pcie_link_done(struct pcie_link *l);
/* Why the config space gave no sizes, in words ("only root reads past the first 64 bytes of
 * config space"); NULL when it did or was not read. */
const char *pcie_config_why(enum pcie_config c);
/* A stable word for JSON: "read", "absent", "short", "no-capability", "invalid", "unread". */
const char *pcie_config_to_string(enum pcie_config c);

enum iommu_mode { IOMMU_UNKNOWN, IOMMU_OFF, IOMMU_PASSTHROUGH, IOMMU_TRANSLATED };
const char *iommu_mode_to_string(enum iommu_mode m);

struct governor_cpus {
        char *name;
        struct cpuset cpus;
};

struct idle_state {
        char *name;
        uint64_t latency_us; /* exit latency */
};

struct host_tuning {
        bool has_cpufreq;
        char *cpufreq_driver;            /* NULL: unknown */
        struct governor_cpus *governors; /* each governor in use and its CPUs, in first-CPU order */
        size_t n_governors;
        bool has_cpuidle;
        int cpuidle_cpu;                /* the CPU whose states these are: every CPU has the driver's states */
        struct idle_state *idle_states; /* the enabled ones, shallowest first */
        size_t n_idle_states;
        int zone_reclaim_mode; /* -1: unknown */
        bool has_swap;
        uint64_t swap_bytes; /* the sizes in /proc/swaps */
        char *kernel;        /* osrelease */
        enum iommu_mode iommu;
        char *iommu_how; /* the files or parameters that decided it (or, unknown, why) */
};

struct host_tuning *host_tuning_free(struct host_tuning *h);
/* Adds a governor's CPU (the readers' bookkeeping). */
void host_tuning_add_governor(struct host_tuning *h, const char *name, unsigned cpu);
