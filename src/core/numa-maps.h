/* SPDX-License-Identifier: MIT */
#pragma once

/* Where a process's pages are, from /proc/PID/numa_maps, counted as numastat -p counts them.
 * Pure: callers hand in the text. Counts are in pages of `base_kb` (the host's page size), so
 * a 2 MiB huge page counts as 512 pages of 4 KiB and shares weigh bytes, not mappings. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"
#include "core/held-pages.h"
#include "core/proc-maps.h"

struct strbuf;

#define NUMA_NODES_MAX 1024

struct node_pages {
        int node;
        uint64_t pages;
};

struct file_pages {
        char *path;        /* as numa_maps prints it (the first process's view) */
        struct file_id id; /* from /proc/PID/maps; ino 0 when not known */
        bool exec;         /* mapped executable by one of the processes: program code */
        uint64_t total, off_plan;
        struct node_pages *nodes; /* its page cache by node, in order of first sight */
        size_t n_nodes;

        /* What page_tally_split() decided, from who else maps it: */
        char **mapped_by; /* units of processes outside the replica that map it (every one, or
                           * those found, as the split was made); NULL: none */
        bool model;       /* named in model = */
        bool shared;      /* program code that others map too: not the replica's own pages */
};

/* Locked and pinned memory of the processes (core/held-pages.h), in base pages. */
struct held_totals {
        uint64_t vm_locked;       /* VmLck */
        uint64_t locked_size;     /* the size of the locked mappings, resident or not */
        uint64_t locked_unmapped; /* VmLck beyond a process's locked mappings: a driver's (vfio's) pins */
        uint64_t vm_pinned;       /* VmPin */
        uint64_t pinned_listed;   /* the pinned buffers the kernel lists (io_uring's registered ones) */
        uint64_t pinned_off_plan; /* of those, the pages certainly off the planned nodes */
};

/* The files of a process's that its pages are counted from. One that could not be read, or broke
 * off at a line numaplan cannot read, leaves something unknown: said so, never taken as none. */
enum page_source {
        PAGE_SOURCE_NUMA_MAPS,
        PAGE_SOURCE_MAPS,
        PAGE_SOURCE_STATUS,
        PAGE_SOURCE_SMAPS,
        PAGE_SOURCE_FDINFO,
};

struct page_unread {
        enum page_source source;
        char *path;  /* "/proc/PID/smaps" */
        char *error; /* why, in words */
};

struct page_tally {
        uint64_t base_kb;
        uint64_t total[NUMA_NODES_MAX], anon[NUMA_NODES_MAX], file[NUMA_NODES_MAX], huge[NUMA_NODES_MAX];
        uint64_t shared[NUMA_NODES_MAX];     /* the file pages of shared files (page_tally_split()) */
        uint64_t locked[NUMA_NODES_MAX];     /* the resident pages of locked mappings */
        uint64_t pin_mapped[NUMA_NODES_MAX]; /* the resident pages of the mappings that hold listed pinned buffers */
        struct held_totals held;
        struct file_pages *files; /* file-backed pages by file, across processes */
        size_t n_files;
        unsigned processes;
        struct page_unread *unread; /* what could not be read, in the order met */
        size_t n_unread;
};

void page_tally_init(struct page_tally *t, uint64_t base_kb);
void page_tally_done(struct page_tally *t);

/* Adds one process's numa_maps. A mapping's pages go to huge (hugetlb, or a page size above
 * base), else split between anon (its anon= count) and file, node by node in proportion; file
 * pages are counted per file, and those off `planned`. `maps` (that process's /proc/PID/maps, or
 * NULL) says which file each mapping is and whether it is program code; without it files are
 * told apart by path. -EINVAL on a line numa_maps would not print. */
int page_tally_add(struct page_tally *t, const char *numa_maps, const char *maps, const struct cpuset *planned);
/* The same, with what the process holds (NULL: nothing known): its VmLck and VmPin, the pages of
 * its locked mappings by node, and those of the mappings that hold its listed pinned buffers. A
 * buffer's pages are resident, so of a mapping that holds B pinned pages and P resident pages on
 * the plan, at least B - P pinned pages are off it (all of them off it when the buffer is the
 * whole mapping, as a buffer allocated for the purpose is): pinned_off_plan. */
int page_tally_add_held(struct page_tally *t, const char *numa_maps, const char *maps, const struct cpuset *planned,
                        const struct process_held *held);
/* The same for a numa_maps read in pieces: page_tally_begin() with the process's file mappings
 * (maps_files(), kept by the caller until the end) and what it holds, each line [line, eol) in
 * order (-EINVAL or -ERANGE as above: the lines before it stay counted), then page_tally_end(),
 * which returns NULL. */
struct page_tally_reader;
struct page_tally_reader *page_tally_begin(struct page_tally *t, const struct maps_entry *maps, size_t n_maps,
                                           const struct cpuset *planned, const struct process_held *held);
int page_tally_line(struct page_tally_reader *rd, const char *line, const char *eol);
struct page_tally_reader *page_tally_end(struct page_tally_reader *rd);

/* Records that `path` of a process could not be read, and why (both taken). */
void page_tally_add_unread(struct page_tally *t, enum page_source source, char *path, char *error);
/* Whether a file of that kind could not be read. */
bool page_tally_unread_of(const struct page_tally *t, enum page_source source);
/* What a file of that kind left unknown, in words ("where its pages are"). */
const char *page_source_lost(enum page_source source);

/* The file that holds most of f's pages; -1 when none is resident. */
int file_pages_node(const struct file_pages *f);

/* Which of the replica's file pages are its own. `mapped_by[i]` (taken, may be NULL) are the
 * units of the processes outside the replica that map files[i]; `models` the paths model = names
 * (NULL-terminated, may be NULL), matched as the file itself or a directory above it. Program
 * code, a file the replica maps executable, that other processes map too is shared: where its
 * page cache sits is decided by whichever process read it first, so it is reported but not
 * judged. Every other page is the replica's own: anonymous memory, huge pages, the model, data
 * files (even those another replica reads: that replica's node then holds them) and files no one
 * else maps. */
void page_tally_split(struct page_tally *t, char ***mapped_by, char *const *models);

/* The replica's own pages on node n. */
static inline uint64_t page_tally_own(const struct page_tally *t, int n) {
        return t->total[n] - t->shared[n];
}

/* A file mapping whose page cache sits mostly off the plan: more than half of its resident pages
 * off the planned nodes (filled before the pinning, by another process or an earlier run). */
static inline bool file_pages_off_plan(const struct file_pages *f) {
        return f->off_plan * 2 > f->total;
}

/* One mapping as numa_maps gives it: where it starts, its page size, and its resident pages (in
 * pages of its own size), all and those off `planned`. What `numaplan migrate` scans page by page
 * is only the mappings with pages off the plan. */
struct mapping_pages {
        uint64_t start;
        uint64_t page_kb;
        uint64_t resident, off_plan;
        int from_node; /* the one node holding its pages off the plan; -1 for none or several */
};

/* Every mapping of one numa_maps text, in its order; -EINVAL or -ERANGE on a line the kernel
 * would not print. */
int numa_maps_mappings(const char *numa_maps, const struct cpuset *planned, struct mapping_pages **ret, size_t *n);

uint64_t page_tally_sum(const uint64_t *by_node);
uint64_t page_tally_on(const uint64_t *by_node, const struct cpuset *nodes);
/* The replica's own pages, all and on `nodes`: what memory-locality judges. */
uint64_t page_tally_own_sum(const struct page_tally *t);
uint64_t page_tally_own_on(const struct page_tally *t, const struct cpuset *nodes);
/* "node 0: 2010, node 1: 38": each node's count of `v` (NUMA_NODES_MAX of them) that is not 0,
 * or `none` when all are. */
void page_counts_text(struct strbuf *b, const uint64_t *v, const char *none);
