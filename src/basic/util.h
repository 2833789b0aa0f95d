/* SPDX-License-Identifier: MIT */
#pragma once

/* The few helpers every file uses: owned locals released by scope, and string tests. */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* Hand an owned pointer or descriptor over, leaving the local empty so cleanup skips it. */
#define TAKE_PTR(p) \
        ({ \
                __typeof__(p) _p_ = (p); \
                (p) = NULL; \
                _p_; \
        })
#define TAKE_FD(fd) \
        ({ \
                int _fd_ = (fd); \
                (fd) = -1; \
                _fd_; \
        })

static inline void *mfree(void *p) {
        free(p);
        return NULL;
}
static inline void freep(void *p) {
        free(*(void **) p);
}
static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
static inline DIR *safe_closedir(DIR *d) {
        if (d)
                closedir(d);
        return NULL;
}
static inline void closedirp(DIR **d) {
        safe_closedir(*d);
}
static inline void strv_free(char **v) {
        if (!v)
                return;
        for (char **i = v; *i; i++)
                free(*i);
        free(v);
}
static inline void strv_free_n(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}
static inline void strv_freep(char ***v) {
        strv_free(*v);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}
static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return streq(a, b);
}
static inline const char *startswith(const char *s, const char *prefix) {
        size_t n = strlen(prefix);
        return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}
static inline bool endswith(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && streq(s + n - m, suffix);
}
/* qsort() comparator for an array of strings. */
static inline int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}
/* Sorts n strings; qsort() must not be given NULL, even for none. */
static inline void strv_sort(char **v, size_t n) {
        if (n > 1)
                qsort(v, n, sizeof(char *), strcmp_ptr);
}
static inline const char *strempty(const char *s) {
        return s ? s : "";
}
static inline bool strv_contains(char *const *v, const char *s) {
        for (; v && *v; v++)
                if (streq(*v, s))
                        return true;
        return false;
}
static inline size_t strv_length(char *const *v) {
        size_t n = 0;
        while (v && v[n])
                n++;
        return n;
}

/* Out-of-memory is the one error we do not thread through every caller's message: the process
 * aborts, after `oom_hook` (set by basic/log.c) says so. */
extern void (*oom_hook)(void);
void *xmalloc(size_t n);
void *xmalloc0(size_t n);
void *xrealloc(void *p, size_t n);
/* Room for item n (0-based) of an array that only ever grows here, one item at a time: the array
 * doubles when n reaches a power of two, so that n appends copy O(n) bytes, not O(n²). */
void *xgrow(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);
char *xvasprintf(const char *fmt, va_list ap) _printf_(1, 0);

/* The decimal digits of v, written without printf() so that they end at `end` (ids formatted per
 * CPU or core); returns where they start. */
char *put_decimal(char *end, uint64_t v);

/* Appends to a malloc'd, NUL-terminated string buffer. */
struct strbuf {
        char *s;
        size_t len, cap;
};
void strbuf_append(struct strbuf *b, const char *s);
void strbuf_append_n(struct strbuf *b, const char *s, size_t n);
void strbuf_putc(struct strbuf *b, char c);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) _printf_(2, 3);
/* Appends each string given, in order: literal text and values joined without a format to parse
 * (a drop-in is written this way once per replica). */
#define strbuf_join(b, ...) strbuf_join_v((b), __VA_ARGS__, (const char *) NULL)
void strbuf_join_v(struct strbuf *b, ...) __attribute__((sentinel));
/* v in decimal, in `buf` (returned where the digits start): for strbuf_join(). */
#define DECIMAL_MAX 21
const char *format_uint(char buf[static DECIMAL_MAX], uint64_t v);
static inline char *strbuf_steal(struct strbuf *b) {
        char *s = b->s ? b->s : xstrdup("");
        *b = (struct strbuf){0};
        return s;
}
static inline void strbuf_done(struct strbuf *b) {
        free(b->s);
        *b = (struct strbuf){0};
}
#define _cleanup_strbuf_ _cleanup_(strbuf_done)

/* Strict number parsing: the whole string, no sign surprises. */
int parse_uint64(const char *s, unsigned base, uint64_t *ret);
int parse_int(const char *s, int *ret);
/* Strips trailing whitespace (and NULs: some captured sysfs files end with one) in place. */
char *strip_trailing(char *s);

/* "48.0 GiB" style: one decimal, binary units. */
void format_bytes(char *buf, size_t n, uint64_t bytes);
/* What a file of st_mode `mode` is, in words: "a FIFO", "a socket", "a character device", "a block
 * device", "a directory", "a symbolic link", "a regular file". */
const char *file_type_name(mode_t mode);
#define FORMAT_BYTES_MAX 32

/* Where something was written, for "file:line: message". A line of 0 means the file as a whole;
 * a NULL file means nowhere (a setting nobody wrote). */
struct where {
        const char *file;
        unsigned line;
};

/* An error in what the admin wrote (the configuration), found where it cannot be printed (the
 * pure core): the caller prints it with log_error_at(). */
struct error_at {
        struct where at;
        char *message;
        /* error_at_add(): the errors after the first, and how many more were not kept */
        struct error_at_next {
                struct where at;
                char *message;
        } * next;
        size_t n_next, n_left_off;
};
/* Errors kept in one error_at: a file with more than this is not worth reading further. */
#define ERROR_AT_KEEP 20

/* Sets the first error of *e (freeing its message) and returns -EINVAL. */
int error_at_set(struct error_at *e, struct where at, const char *fmt, ...) _printf_(3, 4);
int error_at_setv(struct error_at *e, struct where at, const char *fmt, va_list ap) _printf_(3, 0);
/* Adds an error after those *e holds (the first when it holds none), so that one run can say
 * every mistake of a file; past ERROR_AT_KEEP they are only counted. Returns -EINVAL. */
int error_at_add(struct error_at *e, struct where at, const char *fmt, ...) _printf_(3, 4);
int error_at_addv(struct error_at *e, struct where at, const char *fmt, va_list ap) _printf_(3, 0);
/* How many errors *e holds, those only counted included. */
size_t error_at_count(const struct error_at *e);
void error_at_done(struct error_at *e);

/* The nearest of `names` to `word`, when near enough to be a typo (an edit, that is a letter
 * missing, added or changed, or two neighbours swapped, per three letters, and two at most):
 * " (did you mean 'x'?)", else "" (malloc'd either way). */
char *suggest(const char *word, const char *const *names, size_t n);
