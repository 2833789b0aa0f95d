/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"
#include "core/held-pages.h"
#include "core/proc-maps.h"

/* The digits of [p, end), at least one, no wrap-around. */
static int decimal(const char *p, const char *end, uint64_t *ret) {
        uint64_t v = 0;
        if (p == end)
                return -EINVAL;
        for (; p < end; p++) {
                if (!isdigit((unsigned char) *p) || v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -EINVAL;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        *ret = v;
        return 0;
}

/* "Key:   1234 kB" of status: the number. -ENOENT when the key is absent. */
static int status_kb(const char *text, const char *key, uint64_t *ret) {
        size_t klen = strlen(key);
        for (const char *p = text; *p;) {
                const char *eol = strchrnul(p, '\n');
                if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
                        const char *v = p + klen + 1;
                        while (v < eol && (*v == ' ' || *v == '\t'))
                                v++;
                        const char *d = v;
                        while (d < eol && isdigit((unsigned char) *d))
                                d++;
                        if (eol - d != 3 || strncmp(d, " kB", 3) != 0)
                                return -EINVAL;
                        return decimal(v, d, ret);
                }
                p = *eol ? eol + 1 : eol;
        }
        return -ENOENT;
}

int status_held_kb(const char *status, uint64_t *ret_locked_kb, uint64_t *ret_pinned_kb) {
        uint64_t locked, pinned = 0;
        int r = status_kb(status, "VmLck", &locked);
        if (r < 0)
                return r;
        r = status_kb(status, "VmPin", &pinned);
        if (r < 0 && r != -ENOENT)
                return r;
        *ret_locked_kb = locked;
        *ret_pinned_kb = r == -ENOENT ? 0 : pinned;
        return 0;
}

int smaps_mapping_compare(const void *a, const void *b) {
        const struct smaps_mapping *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

/* Does the VmFlags line [p, eol) hold the two letters `flag` as a word? */
static bool has_flag(const char *p, const char *eol, const char *flag) {
        for (; p + 1 < eol; p++)
                if (p[0] == flag[0] && p[1] == flag[1] && (p[-1] == ' ' || p[-1] == '\t') &&
                    (p + 2 == eol || p[2] == ' ' || p[2] == '\t'))
                        return true;
        return false;
}

int smaps_parser_line(struct smaps_parser *p, const char *line, const char *eol) {
        struct maps_entry e;

        if (eol == line)
                return 0;
        if (maps_parse_line(line, eol, &e) == 0 && e.start < e.end) {
                p->v = xgrow(p->v, p->n, sizeof(*p->v));
                p->v[p->n++] = (struct smaps_mapping){.start = e.start, .end = e.end};
        } else if (p->n == 0 || !memchr(line, ':', (size_t) (eol - line)) || isdigit((unsigned char) *line))
                return -EINVAL; /* before the first mapping, or no "Key:" line */
        else if (strncmp(line, "VmFlags:", 8) == 0)
                p->v[p->n - 1].locked = has_flag(line + 8, eol, "lo");
        return 0;
}

void smaps_parser_finish(struct smaps_parser *p, struct smaps_mapping **ret, size_t *ret_n) {
        /* The kernel lists them by address; a capture made by hand may not. */
        if (p->n > 1)
                qsort(p->v, p->n, sizeof(*p->v), smaps_mapping_compare);
        *ret = TAKE_PTR(p->v);
        *ret_n = p->n;
        p->n = 0;
}

int smaps_mappings(const char *smaps, struct smaps_mapping **ret, size_t *ret_n) {
        struct smaps_parser p = {0};

        for (const char *s = smaps; *s;) {
                const char *eol = strchrnul(s, '\n');
                if (smaps_parser_line(&p, s, eol) < 0) {
                        free(p.v);
                        return -EINVAL;
                }
                s = *eol ? eol + 1 : eol;
        }
        smaps_parser_finish(&p, ret, ret_n);
        return 0;
}

/* "    3: 0x7f3e00000000/1048576": the address and length (*ret_none for an empty or sparse
 * slot); -ENOENT for a line of another shape (the next section), -EINVAL for one that breaks. */
static int buffer_line(const char *p, const char *eol, struct address_range *ret, bool *ret_none) {
        while (p < eol && *p == ' ')
                p++;
        const char *d = p;
        while (d < eol && isdigit((unsigned char) *d))
                d++;
        if (d == p || d + 2 > eol || d[0] != ':' || d[1] != ' ')
                return -ENOENT;
        p = d + 2;
        *ret_none = eol - p == 6 && strncmp(p, "<none>", 6) == 0;
        if (*ret_none)
                return 0;
        if (eol - p < 3 || strncmp(p, "0x", 2) != 0)
                return -EINVAL;
        uint64_t start = 0, len;
        for (p += 2, d = p; d < eol && *d != '/'; d++) {
                int x = isdigit((unsigned char) *d) ? *d - '0' : *d >= 'a' && *d <= 'f' ? *d - 'a' + 10 : -1;
                if (x < 0 || start >> 60)
                        return -EINVAL;
                start = start << 4 | (uint64_t) x;
        }
        if (d == p || d == eol || decimal(d + 1, eol, &len) < 0)
                return -EINVAL;
        *ret_none = len == 0 || start > UINT64_MAX - len; /* a sparse slot */
        *ret = (struct address_range){start, start + (*ret_none ? 0 : len)};
        return 0;
}

static const char *next_line(const char *p) {
        const char *eol = strchrnul(p, '\n');
        return *eol ? eol + 1 : eol;
}

int uring_buffers(const char *fdinfo, struct address_range **ret, size_t *ret_n) {
        const char *p = fdinfo;
        int added = 0;

        while (*p && strncmp(p, "UserBufs:", 9) != 0)
                p = next_line(p);
        for (p = *p ? next_line(p) : p; *p; p = next_line(p)) {
                const char *eol = strchrnul(p, '\n');
                struct address_range b;
                bool none;
                int r = buffer_line(p, eol, &b, &none);
                if (r == -ENOENT)
                        break; /* the next section */
                if (r < 0)
                        return r;
                if (!none) {
                        *ret = xrealloc(*ret, (*ret_n + 1) * sizeof(**ret));
                        (*ret)[(*ret_n)++] = b;
                        added++;
                }
        }
        return added;
}

int address_range_compare(const void *a, const void *b) {
        const struct address_range *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

uint64_t pinned_bytes_within(const struct address_range *pinned, size_t n, uint64_t start, uint64_t end) {
        uint64_t bytes = 0, done = start; /* [start, done) counted */
        for (size_t i = 0; i < n && pinned[i].start < end; i++) {
                uint64_t a = pinned[i].start > done ? pinned[i].start : done,
                         b = pinned[i].end < end ? pinned[i].end : end;
                if (b > a) {
                        bytes += b - a;
                        done = b;
                }
        }
        return bytes;
}
