/* SPDX-License-Identifier: MIT */
#pragma once

/* Moving pages on the live host onto planned nodes, only those off the plan: of a running process
 * (every mapping, anonymous and file-backed), and of files' page cache (a model, before its
 * server starts). Through libnuma: migrate_pages(2) from the nodes off the plan when all goes to
 * one node, move_pages(2) page by page for the rest (MPOL_MF_MOVE_ALL: page cache is shared).
 * Root only. */

#include <stdbool.h>
#include <sys/types.h>

#include "core/migrate.h"

/* With `dry`, only counts (where the pages are, what would move). -errno: the process is gone
 * (-ESRCH), libnuma is missing (-EOPNOTSUPP, said). */
int migrate_process(pid_t pid, const struct cpuset *planned, bool dry, struct migrate_stats *st);
/* The page cache of a model's files (host/model-files.h). Pages not cached are left for the
 * server's own reads, which its policy places. A file that cannot be read or moved is said and
 * counted in *ret_failed; -errno only when nothing could be done. */
int migrate_files(char *const *paths, const struct cpuset *planned, bool dry, struct migrate_stats *st,
                  unsigned *ret_failed);
