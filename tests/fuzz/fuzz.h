/* SPDX-License-Identifier: MIT */
#pragma once

/* What every fuzz target shares: libFuzzer's entry point, and the input as a NUL-terminated
 * string (the parsers take C strings, and a NUL inside is part of what they must survive). */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_string(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = 0;
        return s;
}

/* A failed expectation is a crash libFuzzer reports with its input. */
#define fuzz_assert(x) \
        do { \
                if (!(x)) \
                        __builtin_trap(); \
        } while (0)
