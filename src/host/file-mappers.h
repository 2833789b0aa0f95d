/* SPDX-License-Identifier: MIT */
#pragma once

/* Who else on the host maps a replica's files, from /proc/PID/maps, matching each file mapping's
 * device and inode against the files asked about (a sorted lookup per line); a process's unit is
 * read only when it maps one of those files. Either every process's maps (file_mappers_scan(),
 * replica_pages_split()), or as few as the split of the replicas' pages needs
 * (replica_pages_split_lazily()). Through the root, so tests replay it. */

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
        } * mappers; /* mappers[i]: the processes that map ids[i], ascending */
        struct pid_unit {
                pid_t pid;
                char *unit; /* NULL: a process in no unit */
        } * units;          /* every process found, ascending by pid */
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

/* One scan of every process for all of them: who else maps each of their files, then the split;
 * each file's mapped_by lists every unit outside the replica that maps it. Without the scan (no
 * /proc to list) every page counts as the replica's own. Returns the processes whose maps were
 * read. */
int replica_pages_split(struct root *root, struct replica_pages *v, size_t n);

/* The same split, reading only the maps it needs: the replicas' own processes', and the host's
 * other processes' in /proc's order only while a file is in question, stopping when none is.
 * In question: program code of a replica that no process outside it is known to map yet (is it
 * shared?), and, unless `every_replica` (v holds every replica that could map a replica's files,
 * as verify of the whole plan does), a file off the plan (which other replica holds its page
 * cache?), for which every process is read. The split is the same as replica_pages_split()'s;
 * mapped_by lists every replica of v that maps the file, and the other units found while it was
 * in question: at least one for shared program code, not every one. With many replicas of one
 * engine side by side, their binaries and libraries are found among themselves and no other
 * process is read. */
int replica_pages_split_lazily(struct root *root, struct replica_pages *v, size_t n, bool every_replica);
