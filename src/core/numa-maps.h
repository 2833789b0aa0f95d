/* SPDX-License-Identifier: MIT */
#pragma once

/* Where a process's pages are, from /proc/PID/numa_maps, counted as numastat -p counts them.
 * Pure: callers hand in the text. Counts are in pages of `base_kb` (the host's page size), so
 * a 2 MiB huge page counts as 512 pages of 4 KiB and shares weigh bytes, not mappings. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"

#define NUMA_NODES_MAX 1024

struct file_pages {
        char *path; /* as numa_maps prints it */
        uint64_t total, off_plan;
};

struct page_tally {
        uint64_t base_kb;
        uint64_t total[NUMA_NODES_MAX], anon[NUMA_NODES_MAX], file[NUMA_NODES_MAX], huge[NUMA_NODES_MAX];
        struct file_pages *files; /* file-backed pages by path, across processes */
        size_t n_files;
        unsigned processes;
};

void page_tally_init(struct page_tally *t, uint64_t base_kb);
void page_tally_done(struct page_tally *t);

/* Adds one process's numa_maps. A mapping's pages go to huge (hugetlb, or a page size above
 * base), else split between anon (its anon= count) and file, node by node in proportion; file
 * pages off `planned` are counted per path. -EINVAL on a line numa_maps would not print. */
int page_tally_add(struct page_tally *t, const char *numa_maps, const struct cpuset *planned);

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
