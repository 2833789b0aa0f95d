/* SPDX-License-Identifier: MIT */
#pragma once

/* model-copies = per-node: a copy of a model in the memory of the nodes that read it, for
 * replicas side by side on several nodes (one page cache cannot serve them all locally). The
 * copy lives on a tmpfs mounted with mpol=bind:N (live/copy-place.h): tmpfs pages are memory the
 * mount's policy places, never dropped to be read in again somewhere else. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct copy_stats {
        unsigned files, fresh, links; /* files copied, already up to date; links kept as links */
        unsigned partial;             /* models without a whole copy: each has a link to its original */
        uint64_t bytes;               /* copied */
};

/* What the server finds where a model's copy belongs. */
enum copy_outcome {
        COPY_WHOLE,  /* the whole, current copy */
        COPY_LINKED, /* a link to the original: the copy could not be made whole (said) */
        COPY_NONE,   /* neither (said) */
};

/* Copies each of `paths` (absolute: files or directories) to <place><path>, where `place` is the
 * directory of copies open (`dir` in messages) on the file system `dev`, with the rights of
 * whoever runs it (prepare: the unit's user). Every name below `place` is opened by descriptor,
 * never through a link, never on another file system.
 *
 * A file is copied only when the copy is missing or stale (another size or modification time),
 * through a temporary and a rename, so that a copy is whole or absent; a stale copy that leaves no
 * room for its new one beside it goes first. Below a named directory, a link that stays inside
 * the model's tree is kept as a link (a Hugging Face cache's snapshots pointing into its blobs);
 * a link out of it is read only when it resolves to a file of the model's tree; what the
 * original no longer has is removed from the copy. A model whose copy cannot be made whole (a
 * file that cannot be read or copied, no room, a link out of the tree, a tree deeper than
 * MODEL_DEPTH_MAX) is not left in part: its copy goes, and a link to the original takes its
 * place; each cause is said. Hidden files (partial downloads, locks) are no part of a model.
 *
 * With `dry`, changes nothing and counts what it would copy. Returns the outcome of the first
 * path (the model NUMAPLAN_MODEL names). */
enum copy_outcome model_copy_files(int place, dev_t dev, const char *dir, char *const *paths, bool dry,
                                   struct copy_stats *st);

/* Where the copy of `path` is: <dir><path>. */
char *model_copy_path(const char *dir, const char *path);
