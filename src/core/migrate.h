/* SPDX-License-Identifier: MIT */
#pragma once

/* Which pages to move, and where: the pure half of `numaplan migrate` and `numaplan prepare`.
 * The kernel says, page by page, which node holds each (move_pages(2) with no target nodes);
 * only the pages off the planned nodes are moved, spread over the planned nodes in turn, so a
 * replica whose memory is mostly in place costs only what is not. */

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/cpuset.h"

#define MIGRATE_NODES_MAX 1024
/* move_pages(2)'s own status values that are not a node: errno values, negated. */
#define MIGRATE_ERRNO_MAX 256
/* Two status values move_pages(2) never writes. UNSET: what an entry holds before the call, to
 * tell the entries it wrote from those it left. PINNED: a page the kernel could not migrate
 * because something holds it (mm/migrate.c: a page with references beyond its mappings', a DMA
 * pin or I/O in flight, fails with EAGAIN on every retry), which move_pages(2) reports with no
 * status at all (migrate_stopped_run()). */
#define MIGRATE_STATUS_UNSET INT_MIN
#define MIGRATE_STATUS_PINNED (-(MIGRATE_ERRNO_MAX + 1))

/* Counted in base pages: a huge page weighs as many base pages as it holds. */
struct migrate_stats {
        uint64_t resident;                      /* pages seen resident */
        uint64_t on_plan;                       /* of those, already on a planned node */
        uint64_t moved_from[MIGRATE_NODES_MAX]; /* pages moved, by the node they left */
        uint64_t moved_to[MIGRATE_NODES_MAX];   /* and by the node they went to */
        uint64_t failed[MIGRATE_ERRNO_MAX];     /* pages that did not move, by errno */
        uint64_t pinned;                        /* pages that did not move because something holds them */
        uint64_t kept;                          /* off the plan, left for the others that map them */
        uint64_t read_in;                       /* files' pages not cached, read in to be placed */
        uint64_t page_size;                     /* of a base page, in bytes */
};

/* A batch of pages whose nodes the kernel reported. */
struct migrate_batch {
        const int *status; /* a node, or -errno: -ENOENT for a page not present, which is skipped */
        size_t n;
        uint64_t weight; /* base pages in each page */
};

/* Picks the batch's resident pages off `planned` into `pick` (their indices) with a target node
 * each in `to`, planned nodes in turn from *next_target, the picks grouped by target (the planned
 * nodes in order, each in the batch's order): move_pages(2) moves a run of pages bound for one
 * node in one pass, and a page bound elsewhere ends the run. Returns how many. Counts what it
 * saw into `st`. */
size_t migrate_select(const struct migrate_batch *b, const struct cpuset *planned, unsigned *next_target,
                      struct migrate_stats *st, size_t *pick, int *to);
/* The same for pages to spread evenly over `planned` (a model that ranks on several nodes read):
 * each planned node keeps up to its share of the batch's resident pages (an even split, the
 * remainder to the nodes from *next_target on), the others and those off the plan are picked for
 * the nodes short of their share, in turn. Counts the pages kept as on the plan. */
size_t migrate_select_spread(const struct migrate_batch *b, const struct cpuset *planned, unsigned *next_target,
                             struct migrate_stats *st, size_t *pick, int *to);
/* After the kernel moved the picked pages (status as move_pages(2) returns it: the node each
 * page is on now, or -errno, or MIGRATE_STATUS_PINNED), counts what moved and what failed and
 * why. */
void migrate_account(const int *from, const int *to, const int *status_after, size_t n, uint64_t weight,
                     struct migrate_stats *st);

/* move_pages(2) moves runs of pages bound for one node (mm/migrate.c, do_pages_move()); when it
 * could not migrate some page of a run (a pinned one) it returns how many it did not move, a
 * positive count, and writes no status for that run nor for any page after it, which it never
 * tried. With `status` set to MIGRATE_STATUS_UNSET before the call: the run it stopped at is the
 * first entry left unset and those after it left unset with the same target, up to a written
 * one or another target. Returns the run's end and its start in *ret_start; n when every entry
 * was written. */
size_t migrate_stopped_run(const int *status, const int *to, size_t n, size_t *ret_start);
/* That run's pages once asked where they are now (`now`: move_pages(2) without target nodes):
 * those on their target moved, those still resident elsewhere are held (pinned), the others
 * (gone: -ENOENT) as the kernel says. Writes `status`. */
void migrate_settle(int *status, const int *to, const int *now, size_t n);

uint64_t migrate_moved(const struct migrate_stats *st);
/* The pages that did not move, pinned ones included. */
uint64_t migrate_failed(const struct migrate_stats *st);
