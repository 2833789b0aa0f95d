/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>

#include "basic/cpuset.h"
#include "basic/util.h"

static unsigned max_words(const struct cpuset *a, const struct cpuset *b) {
        return a->words > b->words ? a->words : b->words;
}

static unsigned min_words(const struct cpuset *a, const struct cpuset *b) {
        return a->words < b->words ? a->words : b->words;
}

/* A portable popcount: without -mpopcnt, __builtin_popcountll is a call into libgcc. */
static unsigned popcount64(uint64_t w) {
        w = w - ((w >> 1) & UINT64_C(0x5555555555555555));
        w = (w & UINT64_C(0x3333333333333333)) + ((w >> 2) & UINT64_C(0x3333333333333333));
        w = (w + (w >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
        return (unsigned) ((w * UINT64_C(0x0101010101010101)) >> 56);
}

unsigned cpuset_count(const struct cpuset *s) {
        unsigned n = 0;
        for (unsigned i = 0; i < s->words; i++)
                n += popcount64(s->bits[i]);
        return n;
}

bool cpuset_is_empty(const struct cpuset *s) {
        for (unsigned i = 0; i < s->words; i++)
                if (s->bits[i])
                        return false;
        return true;
}

bool cpuset_equal(const struct cpuset *a, const struct cpuset *b) {
        for (unsigned i = 0, n = max_words(a, b); i < n; i++)
                if (a->bits[i] != b->bits[i])
                        return false;
        return true;
}

bool cpuset_is_subset(const struct cpuset *a, const struct cpuset *b) {
        for (unsigned i = 0; i < a->words; i++)
                if (a->bits[i] & ~b->bits[i])
                        return false;
        return true;
}

bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b) {
        for (unsigned i = 0, n = min_words(a, b); i < n; i++)
                if (a->bits[i] & b->bits[i])
                        return true;
        return false;
}

void cpuset_or(struct cpuset *dst, const struct cpuset *src) {
        for (unsigned i = 0; i < src->words; i++)
                dst->bits[i] |= src->bits[i];
        dst->words = max_words(dst, src);
}

void cpuset_and(struct cpuset *dst, const struct cpuset *src) {
        unsigned n = min_words(dst, src);
        for (unsigned i = 0; i < n; i++)
                dst->bits[i] &= src->bits[i];
        for (unsigned i = n; i < dst->words; i++)
                dst->bits[i] = 0;
        dst->words = n;
}

void cpuset_andnot(struct cpuset *dst, const struct cpuset *src) {
        for (unsigned i = 0, n = min_words(dst, src); i < n; i++)
                dst->bits[i] &= ~src->bits[i];
}

int cpuset_next(const struct cpuset *s, int from) {
        if (from < 0)
                from = 0;
        unsigned w = (unsigned) from / 64;
        if (w >= s->words)
                return -1;
        uint64_t word = s->bits[w] & (~UINT64_C(0) << (from % 64));
        while (!word) {
                if (++w >= s->words)
                        return -1;
                word = s->bits[w];
        }
        return (int) (w * 64) + __builtin_ctzll(word);
}

/* Parses a decimal id at *p, advancing it. */
static int parse_id(const char **p, unsigned *ret) {
        const char *s = *p;
        unsigned long v = 0;

        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        while (isdigit((unsigned char) *s)) {
                v = v * 10 + (unsigned long) (*s - '0');
                if (v >= CPUSET_MAX)
                        return -ERANGE;
                s++;
        }
        *p = s;
        *ret = (unsigned) v;
        return 0;
}

static bool only_space(const char *s) {
        /* A NUL inside the buffer ends the string already; trailing newlines and blanks are fine. */
        for (; *s; s++)
                if (!isspace((unsigned char) *s))
                        return false;
        return true;
}

/* "LO" or "LO-HI" at *p, advancing it. */
static int parse_range(const char **p, unsigned *ret_lo, unsigned *ret_hi) {
        int r = parse_id(p, ret_lo);
        if (r < 0)
                return r;
        *ret_hi = *ret_lo;
        if (**p != '-')
                return 0;
        (*p)++;
        r = parse_id(p, ret_hi);
        return r < 0 ? r : *ret_hi < *ret_lo ? -EINVAL : 0;
}

static int parse_ranges(const char *p, struct cpuset *set) {
        if (only_space(p))
                return 0;
        for (;;) {
                unsigned lo, hi;
                int r = parse_range(&p, &lo, &hi);
                if (r < 0)
                        return r;
                for (unsigned i = lo; i <= hi; i++)
                        cpuset_set(set, i);
                if (*p != ',')
                        return only_space(p) ? 0 : -EINVAL;
                p++;
        }
}

/* Into *ret directly, cleared once: a set is 1 KiB, and a CPU list is parsed per core. */
int cpuset_parse_list(const char *s, struct cpuset *ret) {
        cpuset_clear(ret);
        int r = parse_ranges(s, ret);
        if (r < 0)
                cpuset_clear(ret);
        return r;
}

static int hexval(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        c = (char) tolower((unsigned char) c);
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

int cpuset_parse_mask(const char *s, struct cpuset *ret) {
        struct cpuset set = {0};
        size_t end = strlen(s);

        while (end > 0 && isspace((unsigned char) s[end - 1]))
                end--;
        if (end == 0)
                return -EINVAL;

        /* Walk from the least significant digit; commas separate 32-bit groups. */
        unsigned bit = 0, digits_in_group = 0;
        for (size_t i = end; i-- > 0;) {
                if (s[i] == ',') {
                        if (digits_in_group == 0 || digits_in_group > 8)
                                return -EINVAL;
                        bit = (bit + 31) / 32 * 32;
                        digits_in_group = 0;
                        continue;
                }
                int v = hexval(s[i]);
                if (v < 0)
                        return -EINVAL;
                for (unsigned b = 0; b < 4; b++)
                        if (v & (1 << b)) {
                                if (bit + b >= CPUSET_MAX)
                                        return -ERANGE;
                                cpuset_set(&set, bit + b);
                        }
                bit += 4;
                digits_in_group++;
        }
        if (digits_in_group == 0 || digits_in_group > 8)
                return -EINVAL;
        *ret = set;
        return 0;
}

char *cpuset_format(const struct cpuset *s) {
        struct strbuf b = {0};

        /* Formatted by hand: plan formats a few sets a replica, and printf is most of that. */
        for (int i = cpuset_next(s, 0); i >= 0;) {
                char item[2 * 12 + 2], *end = item + sizeof(item), *p = end;
                int j = i;
                while (cpuset_isset(s, j + 1))
                        j++;
                if (j != i) {
                        p = put_decimal(p, (unsigned) j);
                        *--p = '-';
                }
                p = put_decimal(p, (unsigned) i);
                if (b.len)
                        *--p = ',';
                strbuf_append_n(&b, p, (size_t) (end - p));
                i = cpuset_next(s, j + 1);
        }
        return strbuf_steal(&b);
}

int cpuset_from_bytes(const uint8_t *p, size_t n, struct cpuset *ret) {
        struct cpuset set = {0};

        for (size_t i = 0; i < n; i++)
                for (unsigned b = 0; b < 8; b++)
                        if (p[i] & (1u << b)) {
                                if (i * 8 + b >= CPUSET_MAX)
                                        return -ERANGE;
                                cpuset_set(&set, (unsigned) (i * 8 + b));
                        }
        *ret = set;
        return 0;
}

size_t cpuset_to_bytes(const struct cpuset *s, uint8_t *buf, size_t n) {
        size_t used = 0;

        memset(buf, 0, n);
        CPUSET_FOREACH(i, s) {
                if ((size_t) i / 8 >= n)
                        break;
                buf[i / 8] |= (uint8_t) (1u << (i % 8));
                used = (size_t) i / 8 + 1;
        }
        return used;
}
