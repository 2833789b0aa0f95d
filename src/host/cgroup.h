/* SPDX-License-Identifier: MIT */
#pragma once

/* The cgroup file system: whether AllowedCPUs=/AllowedMemoryNodes= can be enforced here, and the
 * processes of a unit's cgroup. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/cpuset.h"
#include "core/observed.h"

struct root;

/* *ret_mount (may be NULL) gets the cgroup v2 mount point, also in hybrid mode, where it is
 * /sys/fs/cgroup/unified; NULL when there is none. */
void cgroup_detect(struct root *root, enum cgroup_mode *ret, char **ret_mount);

/* The processes of a unit's cgroup and of every cgroup below it (Delegate=yes, podman run
 * --cgroups=split), each marked with the index of its cgroup in `cgroups` (the unit's own first). */
struct cgroup_tree {
        struct process *processes;
        size_t n_processes;
        char **cgroups; /* paths below the mount, NULL-terminated */
        size_t n_cgroups;
};

/* Adds the tree at <mount><cgroup> (mount: the cgroup v2 mount point) to `t`. -errno when the top
 * cgroup cannot be listed; a child that vanishes meanwhile is left out. */
int cgroup_tree_read(struct root *root, const char *mount, const char *cgroup, struct cgroup_tree *t);
void cgroup_tree_done(struct cgroup_tree *t);

/* Is `cgroup` the cgroup `top` or one below it? */
bool cgroup_is_below(const char *cgroup, const char *top);
/* The cgroup v2 path of a process ("/system.slice/docker-ID.scope"). */
int cgroup_of_process(struct root *root, pid_t pid, char **ret);
/* A cgroup's cpuset.cpus.effective and cpuset.mems.effective. */
int cgroup_cpuset(struct root *root, const char *mount, const char *cgroup, struct cpuset *cpus, struct cpuset *mems);
