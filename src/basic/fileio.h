/* SPDX-License-Identifier: MIT */
#pragma once

/* Reading and writing files as root in directories others may have prepared: everything is
 * relative to a directory descriptor and never follows a symbolic link (-ELOOP), reads only
 * regular files (-EBADFD for a FIFO, a device or a socket, which could block or never end) up to a
 * size (-EFBIG), and replaces files atomically (systemd's fileio.c): a temporary beside the
 * target (".#<name>.XXXXXX", which systemd ignores), fsync'ed, renamed, and the directory
 * fsync'ed. */

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Opens directory `name` under `dirfd` (AT_FDCWD: a path) without following a final symbolic
 * link. With `create`, makes it (0755) when absent and sets *ret_created. */
int open_dir_at(int dirfd, const char *name, bool create, bool *ret_created);
/* A stream over the directory open as `fd`, which it takes over (closed when fdopendir() fails);
 * NULL, with errno, for a negative `fd` or a failure. */
DIR *fd_opendir(int fd);
/* Directory `name` under `dirfd` as a stream, never through a final link; NULL with errno. */
DIR *opendir_at(int dirfd, const char *name);
/* Whether directory `name` under `dirfd` holds nothing (or is not there). */
bool dir_is_empty_at(int dirfd, const char *name);
/* Regular file `name` under `dirfd`, NUL-terminated; -ENOENT when absent. */
int read_regular_at(int dirfd, const char *name, size_t max, char **ret);
/* The same for a path, following links (for files systemd names, which it reads the same way). */
int read_file(const char *path, char **ret);
#define READ_FILE_MAX (1U << 20)
/* The most any reader takes of one file: a numa_maps or maps of 100,000 mappings is some 10 MiB. */
#define READ_PROC_MAX (64U << 20)
/* The same with another limit (a process's maps may be tens of MiB). */
int read_file_max(const char *path, size_t max, char **ret);

/* 0 for a regular file open as `fd`; -EISDIR for a directory, -EBADFD for a FIFO, device or socket. */
int fd_verify_regular(int fd);
/* A regular file open as `fd` (fd_verify_regular()), read as read_fd_all() does: the one check
 * every reader of a file makes. */
int read_regular_fd(int fd, size_t max, unsigned flags, char **ret, size_t *ret_len);
/* Everything `fd` gives until end of file, NUL-terminated; -EFBIG past `max` bytes. With
 * READ_ONE_SHOT a short read is the end (sysfs attributes hand over all at once). */
enum { READ_ONE_SHOT = 1 << 0 };
int read_fd_all(int fd, size_t max, unsigned flags, char **ret, size_t *ret_len);
/* A sysfs attribute in a capture, someone's files: one read, and read_regular_fd()'s check only
 * when that read was not a short one with something in it (an error, nothing, a page or more),
 * since no FIFO, device or directory hands over a short read of data before it is checked; the
 * check is a quarter of the calls an attribute costs. */
int read_attribute_fd(int fd, size_t max, char **ret, size_t *ret_len);

/* WRITE_VOLATILE: no fsync, for files that are made anew at every boot and kept in memory (a
 * generator's directory): the replace is still atomic, and a crash loses nothing that lasts. */
enum { WRITE_VOLATILE = 1 << 0 };
/* Writes `content` to a new temporary beside `name`, mode 0644, fsync'ed; its name (relative to
 * dirfd) in *ret_tmp. */
int write_temporary_at(int dirfd, const char *name, const char *content, unsigned flags, char **ret_tmp);
/* renameat() and then fsync() of the directory, so the new name survives a crash. */
int rename_at(int dirfd, const char *from, const char *to, unsigned flags);
static inline int rename_durably_at(int dirfd, const char *from, const char *to) {
        return rename_at(dirfd, from, to, 0);
}
int unlink_durably_at(int dirfd, const char *name);
/* The whole replace: write_temporary_at() + rename_at(). */
int write_file_atomic_at_full(int dirfd, const char *name, const char *content, unsigned flags);
static inline int write_file_atomic_at(int dirfd, const char *name, const char *content) {
        return write_file_atomic_at_full(dirfd, name, content, 0);
}
/* The whole replace by a path, the one way numaplan writes its state: the directory made first
 * (0755, with each parent it lacks) and opened without following a final link, a killed writer's
 * temporaries of the name removed (unless WRITE_VOLATILE), then write_file_atomic_at_full();
 * with WRITE_IF_CHANGED nothing when the file already holds `content`; a NULL `content` removes
 * the file (durably; absent is done). -errno. */
enum { WRITE_IF_CHANGED = 1 << 1 };
int write_file_path(const char *path, const char *content, unsigned flags);
/* Removes the temporaries of `name` that a process killed before renaming them left behind. */
void remove_stale_temporaries_at(int dirfd, const char *name);
/* Whether `entry` is such a temporary of some file. */
bool is_temporary_name(const char *entry);

/* This program's path (/proc/self/exe: absolute, links resolved), or NULL when it is gone (an
 * upgrade replaced it) or cannot be read. Caller frees. */
char *self_exe(void);
/* mkdir -p: the path, and each parent it lacks. */
int mkdir_parents(const char *path, int mode);

/* Removes `name` under `dirfd` and all below it, never following a link, never entering a file
 * system other than `dev` (a mount inside is left, and said). Whether all of it went. */
bool rm_rf_at(int dirfd, const char *name, dev_t dev);

/* Takes an exclusive lock on `path` (created if needed, never through a link). Waits for another
 * holder at most `timeout_s` seconds, naming its PID. Returns the descriptor to close, or -errno
 * (-ETIMEDOUT, said). */
int lock_file(const char *path, unsigned timeout_s);
/* The same for `name` under `dirfd`, called `path` in messages. */
int lock_file_at(int dirfd, const char *name, const char *path, unsigned timeout_s);
