/* SPDX-License-Identifier: MIT */
#pragma once

/* A fixed-size bitmap of CPU (or node) ids with the kernel's list and mask syntaxes.
 * 8192 is the largest NR_CPUS a distribution kernel is built with (x86 MAXSMP);
 * node ids are far below it, so node sets use the same type. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 8192

struct cpuset {
        /* The words in use: bits[words] and every word after it are 0. Real sets use the first
         * word or two, so operations stop there instead of walking all 128. */
        unsigned words;
        uint64_t bits[CPUSET_MAX / 64];
};

static inline void cpuset_clear(struct cpuset *s) {
        *s = (struct cpuset){0};
}
static inline void cpuset_set(struct cpuset *s, unsigned i) {
        if (i >= CPUSET_MAX)
                return;
        s->bits[i / 64] |= UINT64_C(1) << (i % 64);
        if (i / 64 >= s->words)
                s->words = i / 64 + 1;
}
static inline bool cpuset_isset(const struct cpuset *s, int i) {
        return i >= 0 && i < CPUSET_MAX && (s->bits[i / 64] >> (i % 64)) & 1;
}

unsigned cpuset_count(const struct cpuset *s);
bool cpuset_is_empty(const struct cpuset *s);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);
/* a ⊆ b */
bool cpuset_is_subset(const struct cpuset *a, const struct cpuset *b);
bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b);
void cpuset_or(struct cpuset *dst, const struct cpuset *src);
void cpuset_and(struct cpuset *dst, const struct cpuset *src);
void cpuset_andnot(struct cpuset *dst, const struct cpuset *src);
/* The lowest member >= from, or -1. */
int cpuset_next(const struct cpuset *s, int from);
#define CPUSET_FOREACH(i, s) for (int i = cpuset_next((s), 0); i >= 0; i = cpuset_next((s), i + 1))

/* "0-3,8-11" (trailing whitespace allowed; "" is the empty set). -EINVAL on bad syntax,
 * -ERANGE for an id >= CPUSET_MAX; *ret is then empty. */
int cpuset_parse_list(const char *s, struct cpuset *ret);
/* The kernel's hex mask, "00000000,0000ffff", most significant group first. */
int cpuset_parse_mask(const char *s, struct cpuset *ret);
/* Kernel list syntax into a malloc'd string ("" for the empty set). */
char *cpuset_format(const struct cpuset *s);

/* systemd's D-Bus encoding: bit n in byte n/8. -ERANGE when a bit lies beyond CPUSET_MAX. */
int cpuset_from_bytes(const uint8_t *p, size_t n, struct cpuset *ret);
/* Returns the number of bytes written to `buf` (at least enough for the highest member). */
size_t cpuset_to_bytes(const struct cpuset *s, uint8_t *buf, size_t n);
