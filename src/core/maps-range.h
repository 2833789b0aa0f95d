/* SPDX-License-Identifier: MIT */
#pragma once

/* Which address ranges of /proc/PID/maps `migrate` scans. Pure: callers hand in the text. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One line ("start-end perms offset dev inode [path]", `len` bytes): [start, end) when it is the
 * process's own mapping, false for the kernel's (vdso, vvar, vsyscall), a guard gap (no
 * permission at all), or a line that does not parse (both addresses hex digits alone, within 64
 * bits, start below end). */
bool maps_line_range(const char *line, size_t len, uint64_t *ret_start, uint64_t *ret_end);
