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

#define is_int(got, want, ...)                                                                        \
        do {                                                                                          \
                long long g_ = (long long) (got), w_ = (long long) (want);                           \
                if (!ok(g_ == w_, __VA_ARGS__))                                                       \
                        printf("#   got %lld, want %lld\n", g_, w_);                                  \
        } while (0)

#define is_str(got, want, ...)                                                                        \
        do {                                                                                          \
                const char *g_ = (got), *w_ = (want);                                                 \
                if (!ok(g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_, __VA_ARGS__))                      \
                        printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
        } while (0)

static inline int done_testing(void) {
        printf("1..%d\n", tap_count);
        return tap_failed ? 1 : 0;
}
