/* SPDX-License-Identifier: MIT */
#pragma once

/* model-copies = per-node: a copy of a model in the memory of the nodes that read it, for
 * replicas side by side on several nodes (one page cache cannot serve them all locally). The
 * copy lives on a tmpfs mounted with mpol=bind:N: tmpfs pages are memory the mount's policy
 * places, never dropped to be read in again somewhere else. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"

struct copy_stats {
        unsigned files, fresh, links, skipped; /* copied, already up to date, links kept, left out */
        uint64_t bytes;                        /* copied */
};

/* Makes `dir` a tmpfs bound to `nodes` that holds at least `size` bytes: mounts one there,
 * owned by `uid` and `gid` (the unit's user, who then makes the copies), or grows the one that
 * is there. Root only; -errno, said. With `dry`, only says what it would do. */
#include <sys/types.h>
int model_copy_mount(const char *dir, const struct cpuset *nodes, uint64_t size, uid_t uid, gid_t gid, bool dry);

/* Copies each of `paths` (absolute: files or directories) to <dir><path>, a file only when the
 * copy is missing or stale (another size or modification time than the original's), with the
 * rights of whoever runs it (prepare: the unit's user), never following a link below a named
 * directory (links are copied as links, not read through), through a
 * temporary name and a rename, so that a copy is whole or absent. In a directory, links that stay
 * inside it are kept as links (a Hugging Face cache's snapshots pointing into its blobs), others
 * are left out and said, and what the original no longer has is removed from the copy. One copy
 * at a time per `dir` (a lock), so replicas starting together copy once. -errno only when
 * nothing could be done; each file that could not be copied is said and counted as skipped. */
int model_copy_files(const char *dir, char *const *paths, bool dry, struct copy_stats *st);

/* Where the copy of `path` is: <dir><path>. */
char *model_copy_path(const char *dir, const char *path);

/* Takes away every directory of copies under `models_dir` ("node1", "nodes0-1") that `keep`
 * (NULL-terminated, may be NULL) does not name: unmounted (lazily: a server that still maps a
 * copy keeps its pages until it unmaps them) and removed. Returns how many went. */
int model_copies_prune(const char *models_dir, char *const *keep);
