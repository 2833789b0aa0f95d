/* SPDX-License-Identifier: MIT */
#pragma once

/* Just enough TAP for C unit tests: ok(), is_int(), is_str(), and a plan printed at the end. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...) {
        va_list ap;

        tap_count++;
        if (!cond)
                tap_failed++;
        printf("%sok %d - ", cond ? "" : "not ", tap_count);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        return cond;
}

/* A point for a known bug not fixed yet: "not ok ... # TODO" is an expected failure; once it
 * passes it fails the test ("ok ... # TODO", an unexpected pass), so that the TODO goes. */
__attribute__((format(printf, 3, 4))) static inline int todo(int cond, const char *reason, const char *fmt, ...) {
        va_list ap;

        tap_count++;
        if (cond)
                tap_failed++;
        printf("%sok %d - ", cond ? "" : "not ", tap_count);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf(" # TODO %s\n", reason);
        return cond;
}

#define is_int(got, want, ...) \
        do { \
                long long g_ = (long long) (got), w_ = (long long) (want); \
                if (!ok(g_ == w_, __VA_ARGS__)) \
                        printf("#   got %lld, want %lld\n", g_, w_); \
        } while (0)

/* A string as diagnostics: on one line, or a line of the diagnostics for each of its lines. */
static inline void tap_diag(const char *label, const char *s) {
        if (!s || !strchr(s, '\n')) {
                printf("#   %s '%s'\n", label, s ? s : "(null)");
                return;
        }
        printf("#   %s:\n", label);
        for (const char *p = s; *p;) {
                size_t n = strcspn(p, "\n");
                printf("#     |%.*s\n", (int) n, p);
                p += n + (p[n] == '\n');
        }
}

#define is_str(got, want, ...) \
        do { \
                const char *g_ = (got), *w_ = (want); \
                if (!ok(g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_, __VA_ARGS__)) { \
                        tap_diag("got", g_); \
                        tap_diag("want", w_); \
                } \
        } while (0)

/* `in` as one line of a TAP description: newlines, tabs and other control characters as C
 * escapes. In a static buffer: one call per description. */
static inline const char *shown(const char *in) {
        static const char controls[] = "\n\t\r\v\f", letters[] = "ntrvf";
        static char buf[128];
        size_t j = 0;
        for (; *in && j + 5 < sizeof(buf); in++) {
                const char *c = strchr(controls, *in);
                if (c) {
                        buf[j++] = '\\';
                        buf[j++] = letters[c - controls];
                } else if ((unsigned char) *in < ' ')
                        j += (size_t) snprintf(buf + j, sizeof(buf) - j, "\\x%02x", (unsigned char) *in);
                else
                        buf[j++] = *in;
        }
        buf[j] = 0;
        return buf;
}

static inline int done_testing(void) {
        printf("1..%d\n", tap_count);
        return tap_failed ? 1 : 0;
}
