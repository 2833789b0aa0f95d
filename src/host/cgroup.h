/* SPDX-License-Identifier: MIT */
#pragma once

/* The cgroup file system: whether AllowedCPUs=/AllowedMemoryNodes= can be enforced here, and the
 * processes of a unit's cgroup. */

#include <stddef.h>

#include "core/observed.h"

struct root;

enum cgroup_mode {
        CGROUP_UNKNOWN,           /* no mount table under the root */
        CGROUP_LEGACY,            /* v1 only, or hybrid: cpuset is a v1 controller */
        CGROUP_UNIFIED_NO_CPUSET, /* v2, but the cpuset controller is not available */
        CGROUP_UNIFIED,           /* v2 with cpuset: AllowedCPUs=/AllowedMemoryNodes= are enforced */
};

/* *ret_mount (may be NULL) gets the cgroup v2 mount point, also in hybrid mode, where it is
 * /sys/fs/cgroup/unified; NULL when there is none. */
void cgroup_detect(struct root *root, enum cgroup_mode *ret, char **ret_mount);

/* The processes in <mount><cgroup>/cgroup.procs (mount: the cgroup v2 mount point, or a v1
 * hierarchy), with their start times. -errno when unreadable. */
int cgroup_processes(struct root *root, const char *mount, const char *cgroup, struct process **ret, size_t *ret_n);
