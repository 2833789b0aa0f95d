/* SPDX-License-Identifier: MIT */
#include "core/maps-range.h"

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

bool maps_line_range(const char *line, size_t len, uint64_t *ret_start, uint64_t *ret_end) {
        const char *p = line, *stop = line + len;
        uint64_t v[2];

        for (int k = 0; k < 2; k++) {
                const char *from = p;
                v[k] = 0;
                for (int d; p < stop && (d = hex_digit(*p)) >= 0; p++) {
                        if (v[k] >> 60)
                                return false; /* past 64 bits */
                        v[k] = v[k] << 4 | (uint64_t) d;
                }
                if (p == from || p >= stop || *p != (k == 0 ? '-' : ' '))
                        return false;
                p++;
        }
        if (v[1] <= v[0] || p >= stop || *p == '-')
                return false;
        for (const char *q = p; q + 2 < stop; q++)
                if (q[0] == ' ' && q[1] == '[' && q[2] == 'v')
                        return false;
        *ret_start = v[0];
        *ret_end = v[1];
        return true;
}
