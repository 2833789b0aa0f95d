/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Writes `content` to a temporary file beside `path` (".#<name>.XXXXXX", which systemd ignores),
 * with mode 0644, fsync'ed. Returns the temporary's path in *ret_tmp; the caller renames it. */
int write_temporary(const char *path, const char *content, char **ret_tmp);
/* Removes the temporaries write_temporary() left beside `path` when a process was killed before
 * renaming them: systemd ignores them (they do not end in .conf), but they must not pile up. */
void remove_stale_temporaries(const char *path);
/* rename() and then fsync() of the directory, so the new name survives a crash. */
int rename_durably(const char *from, const char *to);
int unlink_durably(const char *path);
/* The whole replace: write_temporary() + rename_durably(). */
int write_file_atomic(const char *path, const char *content);
/* A file's content, or -ENOENT. */
int read_file(const char *path, char **ret);
/* Everything `fd` gives until end of file, NUL-terminated; -EFBIG past `max` bytes. With
 * READ_ONE_SHOT a short read is the end (sysfs attributes hand over all at once). */
enum { READ_ONE_SHOT = 1 << 0 };
int read_fd_all(int fd, size_t max, unsigned flags, char **ret, size_t *ret_len);
int mkdir_parents(const char *path, int mode);

/* Takes an exclusive lock on `path` (created if needed), waiting for another holder with a
 * notice. Returns the descriptor to close, or -errno. */
int lock_file(const char *path);

/* Test hook: with NUMAPLAN_TEST_KILL_AT_STEP=N the process dies (as if killed) at its N-th write
 * step; with NUMAPLAN_TEST_FAIL_AT_STEP=N that step fails with EIO. Either is said on stderr with
 * the file the step writes. Returns -EIO or 0. */
int write_step(const char *what, const char *path);
