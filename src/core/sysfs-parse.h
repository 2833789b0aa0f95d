/* SPDX-License-Identifier: MIT */
#pragma once

/* Pure parsers for the text the kernel writes under /sys and /proc. No I/O: callers pass the
 * file's content and name the file in their error message. */

#include <stddef.h>
#include <stdint.h>

/* "Node 0 MemTotal:  16772456 kB" lines (a node's meminfo) or "MemTotal:  16772456 kB" lines
 * (/proc/meminfo): the value of `key` in bytes (kB values scaled, bare counts as they are).
 * -ENOENT when the key is absent, -EINVAL on a line that is not of that shape. */
int meminfo_get(const char *text, const char *key, uint64_t *ret);

/* A node's distance row: whitespace-separated integers. Returns the count in *ret_n and a
 * malloc'd array; -EINVAL on anything else. */
int distance_parse(const char *text, int **ret, size_t *ret_n);

/* "Key:\tvalue" lines of /proc/PID/status: a pointer to the value inside `text` and its length. */
int status_field(const char *text, const char *key, const char **ret, size_t *ret_len);
