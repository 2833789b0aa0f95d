/* SPDX-License-Identifier: MIT */
#pragma once

/* Who else on the host maps a replica's files: one pass over every process's /proc/PID/maps,
 * matching each file mapping's device and inode against the files asked about. The cost follows
 * the host's mappings (a sorted lookup per line), and each process's unit is read only when it
 * maps one of those files. Through the root, so tests replay it. */

#include <stddef.h>
#include <sys/types.h>

#include "core/proc-maps.h"

struct root;

struct file_mappers {
        struct file_id *ids; /* the files asked about, sorted, unique */
        size_t n_ids;
        struct pid_list {
                pid_t *v;
                size_t n;
        } *mappers; /* mappers[i]: the processes that map ids[i], ascending */
        struct pid_unit {
                pid_t pid;
                char *unit; /* NULL: a process in no unit */
        } *units;       /* every process found, ascending by pid */
        size_t n_units;
        unsigned processes; /* how many maps were read */
};

/* Scans every process but numaplan itself for mappings of `ids` (any order, duplicates fine). A
 * process that exits meanwhile is left out; -errno only when /proc cannot be listed. */
int file_mappers_scan(struct root *root, const struct file_id *ids, size_t n, struct file_mappers *ret);
void file_mappers_done(struct file_mappers *m);

/* The units of the processes that map `id`, but those in `exclude` (a replica's own processes,
 * ascending), sorted, each once; processes in no unit count as "-". NULL when there is none. */
char **file_mappers_units(const struct file_mappers *m, struct file_id id, const pid_t *exclude, size_t n_exclude);

/* One replica's pages to split into its own and shared (page_tally_split()). */
struct replica_pages {
        struct page_tally *pages;
        const struct process *processes; /* the replica's server processes */
        size_t n_processes;
        char *const *models; /* model =, NULL-terminated, may be NULL */
};

/* One scan for all of them: who else maps each of their files, then the split. Without the scan
 * (no /proc to list) every page counts as the replica's own. Returns the processes scanned. */
int replica_pages_split(struct root *root, struct replica_pages *v, size_t n);
