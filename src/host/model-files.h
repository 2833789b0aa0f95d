/* SPDX-License-Identifier: MIT */
#pragma once

/* The files of a model as `model =` names them: files, and every regular file under the
 * directories given, links followed (model caches link their snapshots to their blobs), each file
 * once however many links reach it. */

#include <stdint.h>
#include <sys/stat.h>

/* Directories deeper than this under a named one are not entered: no model store nests so deep,
 * and a link loop ends here. */
#define MODEL_DEPTH_MAX 8

/* Called once per regular file; a negative return stops the walk and is returned. */
typedef int (*model_file_fn)(const char *path, const struct stat *st, void *userdata);
/* A path that cannot be reached is passed to `fn` with st NULL and errno set, so that the caller
 * says it in its own terms. */
int model_files_walk(char *const *paths, model_file_fn fn, void *userdata);
/* Their total size in bytes; -errno, with *ret_path (the caller frees) the first path that could
 * not be reached. */
int model_files_size(char *const *paths, uint64_t *ret, char **ret_path);
