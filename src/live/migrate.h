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
#include "core/proc-maps.h"
#include "live/page-mover.h"

/* With `dry`, only counts (where the pages are, what would move). The mappings of the files in
 * `keep` (sorted; program code other units map, a file another replica reads) are left where
 * they are, their pages off the plan counted as kept: moving them would take them from the
 * others. -errno: the process is gone (-ESRCH), libnuma is missing (-EOPNOTSUPP, said). */
int migrate_process(pid_t pid, const struct cpuset *planned, const struct file_id *keep, size_t n_keep, bool dry,
                    struct migrate_stats *st);
/* The page cache of a model's files (host/model-files.h), moved onto `planned`, or spread evenly
 * over it (how->spread). Pages not cached are left for the server's own reads, which its policy
 * places, unless how->read_in. A file that cannot be read or moved is said and counted in
 * *ret_failed; -errno only when nothing could be done. */
int migrate_files(char *const *paths, const struct cpuset *planned, const struct move_how *how,
                  struct migrate_stats *st, unsigned *ret_failed);
