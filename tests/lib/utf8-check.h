/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether bytes are well-formed UTF-8, by the table of the Unicode Standard (3.9, table 3-7)
 * rather than by the decoder under test: the tests of the sanitizer check it against this. */

#include <stdbool.h>
#include <stddef.h>

static inline bool utf8_well_formed(const char *s, size_t n) {
        const unsigned char *p = (const unsigned char *) s, *end = p + n;

        while (p < end) {
                unsigned c = *p;
                size_t len;
                unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
                if (c < 0x80)
                        len = 1;
                else if (c >= 0xc2 && c <= 0xdf)
                        len = 2;
                else if (c >= 0xe0 && c <= 0xef) {
                        len = 3;
                        if (c == 0xe0)
                                lo = 0xa0; /* overlong below */
                        else if (c == 0xed)
                                hi = 0x9f; /* surrogates above */
                } else if (c >= 0xf0 && c <= 0xf4) {
                        len = 4;
                        if (c == 0xf0)
                                lo = 0x90; /* overlong below */
                        else if (c == 0xf4)
                                hi = 0x8f; /* past U+10FFFF above */
                } else
                        return false;
                if ((size_t) (end - p) < len)
                        return false;
                for (size_t i = 1; i < len; i++) {
                        unsigned b = p[i];
                        if (i == 1 ? b < lo || b > hi : b < 0x80 || b > 0xbf)
                                return false;
                }
                p += len;
        }
        return true;
}
