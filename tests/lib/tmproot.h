/* SPDX-License-Identifier: MIT */
#pragma once

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
