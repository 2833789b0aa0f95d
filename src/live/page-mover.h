/* SPDX-License-Identifier: MIT */
#pragma once

/* The engine of `migrate` and `prepare`: runs of pages, moved off the plan with move_pages(2)
 * through libnuma. The kernel copies a page on the CPU that asked for the move, so files' pages
 * are moved by a worker process per CPU at once: processes rather than threads, because moving a
 * page mapped in one's own address space flushes the TLB of every CPU that address space runs
 * on, and a worker alone in its own, pinned to one CPU, flushes only its own. Another process's
 * pages are moved by one worker: each page moved there flushes that process's CPUs whoever
 * moves it, and workers side by side only queue for those flushes (tests/bench/migrate.sh
 * measured half the throughput with four). */

#include <stdbool.h>
#include <sys/types.h>

#include "core/migrate.h"

/* `n` pages of `page` bytes: of the process being moved from address `start`, or (fd >= 0) of
 * a file from byte `start`, mapped by the worker, which asks mincore(2) which are cached and
 * moves only those. `mp`: numa_maps' word on the process's mapping, NULL unknown. */
struct stretch {
        uint64_t start;
        size_t n;
        uint64_t page;
        int fd;
        unsigned file; /* the file's number among those moved at once, below STRETCH_FILES_MAX */
        const struct mapping_pages *mp;
        const char *path; /* the file, for messages (escaped) */
};

/* Files moved in one call: as many descriptors as are held at once. */
#define STRETCH_FILES_MAX 64
/* Pages in one stretch (256 MiB of 4 KiB pages): what one move_pages(2) call takes. */
#define STRETCH_BATCH 65536

struct stretches {
        struct stretch *v;
        size_t n;
};

/* Adds a run, cut into stretches a batch long, so that workers share the work evenly. */
void stretches_add(struct stretches *s, struct stretch run);
void stretches_done(struct stretches *s);

/* How pages_move() places pages. */
struct move_how {
        bool dry;     /* only count */
        bool spread;  /* files: evenly over the planned nodes, pages on one of them moved too when it
                      * holds more than its share (core/migrate.h, migrate_select_spread()) */
        bool read_in; /* files: read in the pages not cached, allocated interleaved over the planned
                       * nodes, before they are spread */
};

/* Moves the pages of `s` that sit off `planned` onto it (pid: the process whose address space the
 * stretches are in; 0 for files), or spreads them. -ESRCH or -EPERM when the process cannot be
 * moved at all; 0 otherwise, what did not move counted in `st`. A file that shrinks meanwhile
 * (the SIGBUS of a page past its new end included) is said once, and the rest of it left. */
int pages_move(pid_t pid, const struct stretches *s, const struct cpuset *planned, const struct move_how *how,
               struct migrate_stats *st);
