/* SPDX-License-Identifier: MIT */
#pragma once

/* The threads of a process and where its pages are, read from /proc through the root, so tests
 * replay them. */

#include <sys/types.h>

#include "core/numa-maps.h"
#include "core/observed.h"

struct root;

/* Every thread of `pid` with its allowed CPUs and nodes. A process or thread that exits meanwhile
 * gives no tasks, not an error; one that cannot be read otherwise is appended to the
 * NULL-terminated `*unread` ("/proc/PID/task/TID/status: why"), never left out unsaid. */
int process_tasks(struct root *root, pid_t pid, struct task **ret, size_t *ret_n, char ***unread);
/* Adds the pages of `pid` (its numa_maps, its maps for the files' identities) to `t`, and what it
 * holds: its status's VmLck and VmPin and, when either is not 0, its locked mappings (smaps) and
 * the buffers its io_urings pinned (fdinfo of each io_uring it holds open). Each file is read a
 * piece at a time, whatever its size. A file that cannot be read, or that breaks off, is recorded
 * in t->unread (a maps that is absent only loses the files' identities: a capture may lack it).
 * -ENOENT when it has exited; -EINVAL (counted up to the line) for a numa_maps line numaplan
 * cannot read, another -errno when its numa_maps cannot be read. */
int process_pages(struct root *root, pid_t pid, const struct cpuset *planned, struct page_tally *t);
