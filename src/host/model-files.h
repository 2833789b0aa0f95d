/* SPDX-License-Identifier: MIT */
#pragma once

/* The files of a model as `model =` names them: files, and every regular file under the
 * directories given, each file once however many links reach it, hidden files left out.
 *
 * A named path is the configuration's (root's): its own links are followed. Below a named
 * directory the files are the server's, who may link anywhere, so a link is followed only when it
 * resolves inside the model's tree: the named directory, or, for a Hugging Face snapshot
 * (<repo>/snapshots/<rev>, beside <repo>/blobs), the repository directory, whose snapshot files
 * link to ../../blobs/<hash>. The kernel resolves each path below the tree's descriptor
 * (openat2(2), RESOLVE_BENEATH and RESOLVE_NO_MAGICLINKS), so no link, absolute or climbing,
 * leads out of it. Nothing on /proc, /sys, /dev or another kernel file system is a model's. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Directories deeper than this under a named one are not entered, and said: no model store nests
 * so deep (a Hugging Face cache: 4), and a link loop ends here. */
#define MODEL_DEPTH_MAX 32

enum model_event {
        MODEL_FILE,        /* a regular file of the model: `fd` is open for reading */
        MODEL_UNREACHABLE, /* a path that cannot be opened (`error`): missing, not allowed */
        MODEL_NOT_FILE,    /* a named path that is no regular file or directory, or is on a kernel
                            * file system (`error` -EBADFD, `what` says which) */
        MODEL_LINK_OUT,    /* a link below a named directory that leads out of the model's tree
                            * (`target`: where it points, when readable): skipped */
};

struct model_entry {
        enum model_event event;
        const char *path; /* as the configuration names it, then below it: for messages, escaped */
        bool named;       /* one of the paths given */
        int fd;           /* MODEL_FILE: open O_RDONLY|O_NONBLOCK, closed after the callback */
        const struct stat *st;
        int error;          /* -errno */
        const char *what;   /* MODEL_NOT_FILE: "a FIFO", "on /proc" */
        const char *target; /* MODEL_LINK_OUT */
};

/* Called once per file and per problem, in a stable order; a negative return stops the walk and
 * is returned. */
typedef int (*model_file_fn)(const struct model_entry *e, void *userdata);
int model_files_walk(char *const *paths, model_file_fn fn, void *userdata);

/* The tree of a named directory (open as `fd`, with its stat): the directory itself, or a Hugging
 * Face snapshot's repository. *ret_tree is a descriptor to close (-1 when none could be had),
 * *ret_rel (to free) the named directory below it, "." for itself. */
void model_tree(int fd, const struct stat *st, int *ret_tree, char **ret_rel);
/* `rel` below `tree`, resolved by the kernel without leaving it (openat2(2), RESOLVE_BENEATH and
 * RESOLVE_NO_MAGICLINKS); -errno. */
int model_open_beneath(int tree, const char *rel, int flags);

/* Their total size in bytes, and what they take in memory as whole pages (a tmpfs holding a
 * copy: a file of 100 bytes takes a page). -errno with *ret_path (the caller frees) the first named path that
 * is not there (-ENOENT, -EACCES); -EBADFD with *ret_what for a named path that is no model file
 * at all. Links out of the tree are not counted. */
int model_files_size(char *const *paths, uint64_t *ret, uint64_t *ret_in_pages, char **ret_path, const char **ret_what);
