/* SPDX-License-Identifier: MIT */
#pragma once

/* Every file numaplan reads from the host goes through one root ("/" or --sysfs-root DIR), the way
 * hwloc's HWLOC_FSROOT works: paths are resolved relative to a directory descriptor. A root can also
 * record what was read, which is how `numaplan snapshot` captures exactly that. */

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

struct root;

enum {
        ROOT_RECORD = 1 << 0, /* keep every file read, for `numaplan snapshot` */
};
/* Opens `path` as the root. Whether it is this machine's own root directory is decided here,
 * once: by identity (device and inode), so "/", "//" and a bind mount of / all count. */
int root_open(const char *path, unsigned flags, struct root **ret);
struct root *root_free(struct root *r);
static inline void root_freep(struct root **r) {
        root_free(*r);
}
#define _cleanup_root_ _cleanup_(root_freep)

/* The root as given ("/" for the live host). */
const char *root_path(const struct root *r);
/* True when facts may come from this process's own system calls (the root is this machine's
 * and nothing is being recorded); false for a replayed capture, whose files must answer. */
bool root_is_live(const struct root *r);
/* A snapshot is being taken: what is read is kept. */
bool root_is_recording(const struct root *r);
/* True for a replayed capture (another machine's files, or files made to look like them). */
bool root_is_capture(const struct root *r);
/* lstat() of `path` under the root, and, for a symbolic link, its target (caller frees). With
 * `ret` NULL, only the target (NULL when not a link), at one system call instead of two. */
struct stat;
int root_lstat(struct root *r, const char *path, struct stat *ret, char **ret_link);
/* "<root>/<path>" for libraries that want a path string (libpci). Caller frees. */
char *root_join(const struct root *r, const char *path);

/* The most numaplan reads of one sysfs file: an attribute holds a page or two (a CPU list of 8192
 * CPUs is 40 KiB at the very worst); other files up to READ_PROC_MAX (basic/fileio.h). */
#define ROOT_SYSFS_FILE_MAX (1U << 20)

/* Reads a whole regular file into a malloc'd NUL-terminated buffer; -errno on failure: -EBADFD
 * for a FIFO, device or socket (never opened so as to block), -EFBIG past the size limit. In a
 * replayed root, symbolic links resolve inside it. */
int root_read_file(struct root *r, const char *path, char **ret, size_t *ret_len);
/* The longest line root_read_lines() takes: a numa_maps or maps line is a path and some counts. */
#define ROOT_LINE_MAX (1U << 20)
/* Reads a file a piece at a time and hands `fn` each line, [line, eol) without its newline and
 * NUL-terminated, in order; a negative return of `fn` stops the reading and is returned. Memory
 * stays that of the longest line, whatever the file's size: for the /proc files that grow with a
 * process's mappings (smaps holds some 700 bytes a mapping: 70 MB for 100,000). The same checks as
 * root_read_file(); -EFBIG for a line past ROOT_LINE_MAX, -EBADMSG for a NUL byte. Not recorded:
 * a snapshot reads no process. */
int root_read_lines(struct root *r, const char *path, int (*fn)(const char *line, const char *eol, void *userdata),
                    void *userdata);
/* Like root_read_file, with trailing whitespace stripped. -ENOENT when absent. */
int root_read_string(struct root *r, const char *path, char **ret);
/* root_read_string, leaving the file out of a recording: for what a snapshot has no use for (the
 * names of the host's processes), which the caller records by name if it must. */
int root_read_unrecorded(struct root *r, const char *path, char **ret);
/* Opens a directory for listing; -errno on failure. Listing a directory records it. */
int root_opendir(struct root *r, const char *path, DIR **ret);
/* Opens the directory and closes it again: so that a snapshot holds a name found in it. */
void root_record_dir(struct root *r, const char *path);
/* Keeps directory `path` open: the reads and listings of the files below it then resolve only
 * the components below it, from its descriptor, and the lstat()s of the files directly in it
 * one component, with the same result (and the same path recorded). For a directory many files
 * are read from (a PCI device's, sysfs's cpu and node directories). */
int root_keep_dir(struct root *r, const char *path);

/* Recording (ROOT_RECORD): every successful read adds its path (and its content, so that a
 * snapshot holds exactly what was seen) to the record. */
/* Adds a symbolic link, as it was read (readlink), to the record. */
void root_record_link(struct root *r, const char *path, const char *target);
/* Adds a file read by a library on our behalf (libpci) to the record, if it exists. */
void root_record_file(struct root *r, const char *path);

struct root_entry {
        char *path; /* relative, no leading slash */
        char *data; /* NULL for a directory or a link */
        size_t len;
        char *link; /* a symbolic link's target; NULL for the rest */
};
/* The recorded entries in the order they were first read; duplicates removed. */
const struct root_entry *root_recorded(const struct root *r, size_t *ret_n);
