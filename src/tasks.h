/* SPDX-License-Identifier: MIT */
#pragma once

/* The processes of a unit and every thread of each, read from cgroupfs and /proc through the
 * root, so tests replay them. */

#include <stdint.h>
#include <sys/types.h>

#include "cpuset.h"

struct root;

struct task {
        pid_t pid, tid;
        char comm[32];
        struct cpuset cpus, mems; /* Cpus_allowed_list, Mems_allowed_list */
};

struct process {
        pid_t pid;
        char comm[32];
        double start; /* seconds since the epoch; 0 when unknown */
};

/* The PIDs in <mount><cgroup>/cgroup.procs (mount: the cgroup v2 mount point, or a v1
 * hierarchy). -errno when unreadable. */
int cgroup_processes(struct root *root, const char *mount, const char *cgroup, struct process **ret, size_t *ret_n);
/* Every thread of `pid` with its allowed CPUs and nodes. A process that exits meanwhile gives
 * no tasks, not an error. */
int process_tasks(struct root *root, pid_t pid, struct task **ret, size_t *ret_n);
/* Per node, numa_miss + numa_foreign + other_node style counters from nodeN/numastat. */
struct numastat {
        int node;
        uint64_t numa_hit, numa_miss, numa_foreign, other_node;
};
int read_numastat(struct root *root, const int *nodes, size_t n_nodes, struct numastat **ret);
