/* SPDX-License-Identifier: MIT */
#pragma once

/* The threads of a process and where its pages are, read from /proc through the root, so tests
 * replay them. */

#include <sys/types.h>

#include "core/numa-maps.h"
#include "core/observed.h"

struct root;

/* Every thread of `pid` with its allowed CPUs and nodes. A process that exits meanwhile gives
 * no tasks, not an error. */
int process_tasks(struct root *root, pid_t pid, struct task **ret, size_t *ret_n);
/* Adds the pages of `pid` (its numa_maps, its maps for the files' identities) to `t`, and what it
 * holds: its status's VmLck and VmPin and, when either is not 0, its locked mappings (smaps) and
 * the buffers its io_urings pinned (fdinfo of each io_uring it holds open). -ENOENT when it has
 * exited; -EINVAL (counted up to the line) for a line numaplan cannot read. */
int process_pages(struct root *root, pid_t pid, const struct cpuset *planned, struct page_tally *t);
