/* SPDX-License-Identifier: MIT */
#pragma once

/* The file mappings of a /proc/PID/maps text, as fs/proc/task_mmu.c prints them:
 *   7f3e9fab4000-7f3e9fadc000 r-xp 00028000 fe:01 1835049    /usr/lib/x86_64-linux-gnu/libc.so.6
 * Pure: callers hand in the text. numa_maps gives where a mapping's pages are but not which file
 * it is; maps gives the device and inode (the same file in every mount namespace) and whether it
 * is mapped executable. The two list the same mappings by start address. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One file: the device as the kernel prints it (major << 32 | minor) and the inode. */
struct file_id {
        uint64_t dev, ino;
};

static inline bool file_id_eq(struct file_id a, struct file_id b) {
        return a.dev == b.dev && a.ino == b.ino;
}
int file_id_compare(const void *a, const void *b);

struct maps_entry {
        uint64_t start, end;
        struct file_id id;
        bool readable, exec;
};

/* One line, [line, eol): any mapping, anonymous ones with inode 0. -EINVAL when it does not parse. */
int maps_parse_line(const char *line, const char *eol, struct maps_entry *ret);

/* Calls fn for each mapping of a file (inode not 0), in the text's order; stops at the first line
 * that does not parse and returns -EINVAL. */
int maps_each_file(const char *maps, void (*fn)(const struct maps_entry *e, void *userdata), void *userdata);

/* Every file mapping of the text, in its order (*ret NULL when there is none). */
int maps_files(const char *maps, struct maps_entry **ret, size_t *ret_n);
/* The same a line at a time, for a text read in pieces: a file mapping on [line, eol) is appended
 * to *v (n in *n); -EINVAL when the line does not parse. */
int maps_files_line(const char *line, const char *eol, struct maps_entry **v, size_t *n);

/* Which address ranges `migrate` scans: a line's [start, end) when it is the process's own
 * mapping; false for the kernel's (vdso, vvar, vsyscall), a guard gap (not even readable), or a
 * line that does not parse or whose start is not below its end. */
bool maps_line_range(const char *line, size_t len, uint64_t *ret_start, uint64_t *ret_end);
