/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdlib.h>

/* Scratch roots for tests: a temporary directory removed at scope exit, and files in it. */

char *make_tmpdir(void);
void rm_rf(const char *path);
static inline void tmpdir_cleanup(char **d) {
        if (*d) {
                rm_rf(*d);
                free(*d);
        }
}
#define _cleanup_tmpdir_ __attribute__((cleanup(tmpdir_cleanup)))

/* Writes `content` to dir/path, creating parent directories. Aborts on failure: a test's setup. */
void write_file(const char *dir, const char *path, const char *content);
/* The file's content (malloc'd), or NULL. */
char *read_whole(const char *path);

/* Everything under `dir`, one line a file, sorted: its path, type, mode and inode, and a regular
 * file's content (escaped) or a link's target. Equal states are equal strings: for "nothing was
 * written" and "the tree is as it was". Without inodes (`inodes` false) two copies compare equal. */
char *tree_state(const char *dir, bool inodes);
