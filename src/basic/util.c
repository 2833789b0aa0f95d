/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>

#include <sys/stat.h>

#include "basic/util.h"

void (*oom_hook)(void);

/* Pure: the message is the I/O layer's (basic/log.c sets the hook); the end is abort(). */
static void oom(void) {
        if (oom_hook)
                oom_hook();
        abort();
}

void *xmalloc0(size_t n) {
        void *p = calloc(1, n ? n : 1);
        if (!p)
                oom();
        return p;
}

void *xmalloc(size_t n) {
        void *p = malloc(n ? n : 1);
        if (!p)
                oom();
        return p;
}

void *xrealloc(void *p, size_t n) {
        p = realloc(p, n ? n : 1);
        if (!p)
                oom();
        return p;
}

void *xgrow(void *p, size_t n, size_t size) {
        if (n & (n - 1))
                return p;
        size_t cap = n ? 2 * n : 1;
        if (cap < n || cap > SIZE_MAX / size)
                oom();
        return xrealloc(p, cap * size);
}

char *put_decimal(char *end, uint64_t v) {
        do
                *--end = (char) ('0' + v % 10);
        while (v /= 10);
        return end;
}

char *xstrdup(const char *s) {
        char *p = strdup(s);
        if (!p)
                oom();
        return p;
}

char *xstrndup(const char *s, size_t n) {
        char *p = strndup(s, n);
        if (!p)
                oom();
        return p;
}

/* Formatted once into the stack when short, as nearly all of numaplan's strings are, and copied
 * out at their length; glibc's vasprintf grows a heap buffer and shrinks it again. */
char *xvasprintf(const char *fmt, va_list ap) {
        char small[256];
        va_list again;

        va_copy(again, ap);
        int n = vsnprintf(small, sizeof(small), fmt, ap);
        if (n < 0)
                oom();
        char *s = xmalloc((size_t) n + 1);
        if ((size_t) n < sizeof(small))
                memcpy(s, small, (size_t) n + 1);
        else
                vsnprintf(s, (size_t) n + 1, fmt, again);
        va_end(again);
        return s;
}

char *xasprintf(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        char *s = xvasprintf(fmt, ap);
        va_end(ap);
        return s;
}

static void strbuf_reserve(struct strbuf *b, size_t extra) {
        if (b->len + extra + 1 <= b->cap)
                return;
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + extra + 1)
                cap *= 2;
        b->s = xrealloc(b->s, cap);
        b->cap = cap;
}

void strbuf_append_n(struct strbuf *b, const char *s, size_t n) {
        strbuf_reserve(b, n);
        memcpy(b->s + b->len, s, n);
        b->len += n;
        b->s[b->len] = 0;
}

void strbuf_append(struct strbuf *b, const char *s) {
        strbuf_append_n(b, s, strlen(s));
}

void strbuf_putc(struct strbuf *b, char c) {
        strbuf_append_n(b, &c, 1);
}

void strbuf_join_v(struct strbuf *b, ...) {
        va_list ap;

        va_start(ap, b);
        for (const char *s; (s = va_arg(ap, const char *));)
                strbuf_append(b, s);
        va_end(ap);
}

const char *format_uint(char buf[static DECIMAL_MAX], uint64_t v) {
        buf[DECIMAL_MAX - 1] = 0;
        return put_decimal(buf + DECIMAL_MAX - 1, v);
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...) {
        va_list ap;

        /* Into the room there is first: formatted a second time only when it did not fit. */
        size_t room = b->cap > b->len ? b->cap - b->len : 0;
        va_start(ap, fmt);
        int n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
                oom();
        if ((size_t) n >= room) {
                strbuf_reserve(b, (size_t) n);
                va_start(ap, fmt);
                vsnprintf(b->s + b->len, (size_t) n + 1, fmt, ap);
                va_end(ap);
        }
        b->len += (size_t) n;
}

int parse_uint64(const char *s, unsigned base, uint64_t *ret) {
        char *end;

        if (!s || !isxdigit((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, (int) base);
        if (errno == ERANGE)
                return -ERANGE;
        if (end == s || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_int(const char *s, int *ret) {
        char *end;

        if (!s || !*s || isspace((unsigned char) *s))
                return -EINVAL;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
                return -ERANGE;
        if (end == s || *end)
                return -EINVAL;
        *ret = (int) v;
        return 0;
}

char *strip_trailing(char *s) {
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = 0;
        return s;
}

void format_bytes(char *buf, size_t n, uint64_t bytes) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        unsigned __int128 scaled = (unsigned __int128) bytes * 10, scale = 1;
        size_t u = 0;

        /* Up a unit from what one decimal would print as 1024.0 (1048575 bytes is 1.0 MiB): while
         * bytes / scale >= 1023.95, which no byte count equals. In integers, not printf's %.1f:
         * every reason and drop-in of a plan says sizes, and the float path was most of that. */
        while (scaled * 2 > scale * 20479 && u + 1 < ELEMENTSOF(units)) {
                scale *= 1024;
                u++;
        }
        /* Tenths, a half rounded to even as %.1f rounds it. */
        unsigned __int128 tenths = scaled / scale, rest = scaled % scale;
        if (rest * 2 > scale || (rest * 2 == scale && tenths % 2))
                tenths++;
        char digits[48], *end = digits + sizeof(digits) - 1, *p = end;
        *end = 0;
        size_t unit_len = strlen(units[u]);
        p -= unit_len;
        memcpy(p, units[u], unit_len);
        *--p = ' ';
        if (u > 0) {
                p = put_decimal(p, (uint64_t) (tenths % 10));
                *--p = '.';
        }
        p = put_decimal(p, (uint64_t) (tenths / 10));
        size_t len = (size_t) (end - p);
        if (n == 0)
                return;
        if (len >= n)
                len = n - 1;
        memcpy(buf, p, len);
        buf[len] = 0;
}

int error_at_setv(struct error_at *e, struct where at, const char *fmt, va_list ap) {
        free(e->message);
        e->message = xvasprintf(fmt, ap);
        e->at = at;
        return -EINVAL;
}

int error_at_set(struct error_at *e, struct where at, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        int r = error_at_setv(e, at, fmt, ap);
        va_end(ap);
        return r;
}

int error_at_addv(struct error_at *e, struct where at, const char *fmt, va_list ap) {
        if (!e->message)
                return error_at_setv(e, at, fmt, ap);
        if (e->n_next + 1 >= ERROR_AT_KEEP) {
                e->n_left_off++;
                return -EINVAL;
        }
        e->next = xgrow(e->next, e->n_next, sizeof(*e->next));
        e->next[e->n_next++] = (struct error_at_next){at, xvasprintf(fmt, ap)};
        return -EINVAL;
}

int error_at_add(struct error_at *e, struct where at, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        int r = error_at_addv(e, at, fmt, ap);
        va_end(ap);
        return r;
}

size_t error_at_count(const struct error_at *e) {
        return !!e->message + e->n_next + e->n_left_off;
}

void error_at_done(struct error_at *e) {
        free(e->message);
        for (size_t i = 0; i < e->n_next; i++)
                free(e->next[i].message);
        free(e->next);
        *e = (struct error_at){0};
}

const char *file_type_name(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFIFO:
                return "a FIFO";
        case S_IFSOCK:
                return "a socket";
        case S_IFCHR:
                return "a character device";
        case S_IFBLK:
                return "a block device";
        case S_IFDIR:
                return "a directory";
        case S_IFLNK:
                return "a symbolic link";
        case S_IFREG:
                return "a regular file";
        }
        return "not a file of any known kind";
}

/* Edits between two words, a swap of two neighbours one edit (the optimal string alignment
 * distance, Damerau's): "shwo" is one edit from "show", as "pln" is from "plan". */
static size_t distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        if (la > 64 || lb > 64)
                return SIZE_MAX;
        size_t rows[3][65], *before = rows[0], *prev = rows[1], *row = rows[2]; /* rows i-2, i-1, i */
        for (size_t j = 0; j <= lb; j++)
                prev[j] = j;
        for (size_t i = 1; i <= la; i++) {
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
                        best = prev[j] + 1 < best ? prev[j] + 1 : best;
                        best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
                        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < best)
                                best = before[j - 2] + 1;
                        row[j] = best;
                }
                size_t *t = before;
                before = prev;
                prev = row;
                row = t;
        }
        return prev[lb];
}

/* The nearest of `names` to `word`, when near enough to be a typo: " (did you mean 'x'?)". */
char *suggest(const char *word, const char *const *names, size_t n) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
                size_t d = distance(word, names[i]);
                if (d < best_d) {
                        best_d = d;
                        best = names[i];
                }
        }
        if (!best || best_d > 2 || best_d * 3 > strlen(best))
                return xstrdup("");
        return xasprintf(" (did you mean '%s'?)", best);
}
