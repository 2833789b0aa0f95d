/* SPDX-License-Identifier: MIT */
#pragma once

/* Which pages to move, and where: the pure half of `numaplan migrate` and `numaplan prepare`.
 * The kernel says, page by page, which node holds each (move_pages(2) with no target nodes);
 * only the pages off the planned nodes are moved, spread over the planned nodes in turn, so a
 * replica whose memory is mostly in place costs only what is not. */

#include <stddef.h>
#include <stdint.h>

#include "basic/cpuset.h"

#define MIGRATE_NODES_MAX 1024
/* move_pages(2)'s own status values that are not a node: errno values, negated. */
#define MIGRATE_ERRNO_MAX 256

/* Counted in base pages: a huge page weighs as many base pages as it holds. */
struct migrate_stats {
        uint64_t resident;                       /* pages seen resident */
        uint64_t on_plan;                        /* of those, already on a planned node */
        uint64_t moved_from[MIGRATE_NODES_MAX];  /* pages moved, by the node they left */
        uint64_t moved_to[MIGRATE_NODES_MAX];    /* and by the node they went to */
        uint64_t failed[MIGRATE_ERRNO_MAX];      /* pages that did not move, by errno */
        uint64_t kept;                           /* off the plan, left for the others that map them */
        uint64_t page_size;                      /* of a base page, in bytes */
};

/* A batch of pages (each `weight` base pages) whose nodes the kernel reported in `status` (a node,
 * or -errno: -ENOENT for a page not present, which is skipped). Picks the resident ones off `planned` into `pick` (their
 * indices) with a target node each in `to`, planned nodes in turn from *next_target. Returns how
 * many. Counts what it saw into `st`. */
size_t migrate_select(const int *status, size_t n, const struct cpuset *planned, unsigned *next_target,
                      uint64_t weight, struct migrate_stats *st, size_t *pick, int *to);
/* After the kernel moved the picked pages (status as move_pages(2) returns it: the node each
 * page is on now, or -errno), counts what moved and what failed and why. */
void migrate_account(const int *from, const int *to, const int *status_after, size_t n, uint64_t weight,
                     struct migrate_stats *st);

uint64_t migrate_moved(const struct migrate_stats *st);
uint64_t migrate_failed(const struct migrate_stats *st);
