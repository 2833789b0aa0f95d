/* SPDX-License-Identifier: MIT */
#pragma once

#include "basic/util.h"

/* Messages go to stderr, never stdout: stdout belongs to the verb's output (--json, --tap). */
enum log_level { LOG_ERR = 3, LOG_WARNING = 4, LOG_NOTICE = 5, LOG_INFO = 6, LOG_DEBUG = 7 };

void log_set_max_level(int level);
/* From now on, messages go to the kernel log (/dev/kmsg), which journald reads, as
 * "numaplan-generator[PID]: ...": a generator's stderr reaches no journal. -errno. */
int log_open_kmsg(const char *ident);
int log_get_max_level(void);

/* Logs at `level`; `error` is a -errno (or 0) that %m expands to. Returns `error`. */
int log_internal(int level, int error, const char *fmt, ...) _printf_(3, 4);

#define log_error(...) log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, __VA_ARGS__)
/* Below the level shown, not even called: a debug line is written for every file read. */
extern int log_max_level;
#define log_info(...) (log_max_level >= LOG_INFO ? log_internal(LOG_INFO, 0, __VA_ARGS__) : 0)
#define log_debug(...) (log_max_level >= LOG_DEBUG ? log_internal(LOG_DEBUG, 0, __VA_ARGS__) : 0)
#define log_error_errno(r, ...) log_internal(LOG_ERR, (r), __VA_ARGS__)
#define log_warning_errno(r, ...) log_internal(LOG_WARNING, (r), __VA_ARGS__)
#define log_debug_errno(r, ...) log_internal(LOG_DEBUG, (r), __VA_ARGS__)

/* The first error logged (errors are remembered even when not printed), or NULL. */
const char *log_first_error(void);
/* Remembers an error printed some other way (a usage error). */
void log_remember_error(const char *fmt, ...) _printf_(1, 2);

/* Prints "file:line: message" (or "file: message" without a line) as an error; returns -EINVAL. */
int log_error_at(struct where at, const char *fmt, ...) _printf_(2, 3);
/* Prints each error of e as log_error_at() does, by file (in the order they first appear) and
 * line, and how many more were only counted; then frees them. */
int log_error_at_done(struct error_at *e);
