/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"
#include "core/proc-maps.h"

int file_id_compare(const void *a, const void *b) {
        const struct file_id *x = a, *y = b;
        if (x->dev != y->dev)
                return x->dev < y->dev ? -1 : 1;
        return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int hex_digit(char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
}

/* A number in `base` (16 or 10) at *p, up to `stop`; at least one digit, no wrap-around. */
static int number(const char **p, const char *eol, unsigned base, char stop, uint64_t *ret) {
        const char *s = *p;
        uint64_t v = 0;
        int d;

        for (; *p < eol && **p != stop; (*p)++) {
                d = hex_digit(**p);
                if (d < 0 || (unsigned) d >= base || v > (UINT64_MAX - (uint64_t) d) / base)
                        return -EINVAL;
                v = v * base + (uint64_t) d;
        }
        if (*p == s || *p == eol)
                return -EINVAL;
        (*p)++; /* the separator */
        *ret = v;
        return 0;
}

/* "START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]" */
int maps_parse_line(const char *p, const char *eol, struct maps_entry *e) {
        uint64_t end, offset, major, minor;
        char perms[4];

        if (number(&p, eol, 16, '-', &e->start) < 0 || number(&p, eol, 16, ' ', &end) < 0)
                return -EINVAL;
        if (eol - p < 5 || p[4] != ' ')
                return -EINVAL;
        memcpy(perms, p, 4);
        p += 5;
        e->readable = perms[0] == 'r';
        e->exec = perms[2] == 'x';
        e->end = end;
        if (number(&p, eol, 16, ' ', &offset) < 0 || number(&p, eol, 16, ':', &major) < 0 ||
            number(&p, eol, 16, ' ', &minor) < 0)
                return -EINVAL;
        if (major > UINT32_MAX || minor > UINT32_MAX)
                return -EINVAL;
        uint64_t ino = 0;
        const char *s = p;
        while (p < eol && *p >= '0' && *p <= '9') {
                if (ino > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -EINVAL;
                ino = ino * 10 + (uint64_t) (*p++ - '0');
        }
        if (p == s || (p < eol && *p != ' '))
                return -EINVAL;
        e->id = (struct file_id){.dev = major << 32 | minor, .ino = ino};
        return 0;
}

int maps_each_file(const char *maps, void (*fn)(const struct maps_entry *e, void *userdata), void *userdata) {
        for (const char *p = maps; *p;) {
                const char *eol = strchrnul(p, '\n');
                if (eol > p) {
                        struct maps_entry e;
                        if (maps_parse_line(p, eol, &e) < 0)
                                return -EINVAL;
                        if (e.id.ino != 0)
                                fn(&e, userdata);
                }
                p = *eol ? eol + 1 : eol;
        }
        return 0;
}

struct collect {
        struct maps_entry *v;
        size_t n, cap;
};

static void collect(const struct maps_entry *e, void *userdata) {
        struct collect *c = userdata;
        if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 64;
                c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
        }
        c->v[c->n++] = *e;
}

int maps_files(const char *maps, struct maps_entry **ret, size_t *ret_n) {
        struct collect c = {0};
        int r = maps_each_file(maps, collect, &c);
        if (r < 0) {
                free(c.v);
                return r;
        }
        *ret = c.v;
        *ret_n = c.n;
        return 0;
}

int maps_files_line(const char *line, const char *eol, struct maps_entry **v, size_t *n) {
        struct maps_entry e;

        if (eol == line)
                return 0;
        if (maps_parse_line(line, eol, &e) < 0)
                return -EINVAL;
        if (e.id.ino != 0) {
                *v = xgrow(*v, *n, sizeof(**v));
                (*v)[(*n)++] = e;
        }
        return 0;
}

bool maps_line_range(const char *line, size_t len, uint64_t *ret_start, uint64_t *ret_end) {
        struct maps_entry e;

        if (maps_parse_line(line, line + len, &e) < 0 || e.end <= e.start || !e.readable)
                return false;
        for (const char *q = line; q + 2 < line + len; q++)
                if (q[0] == ' ' && q[1] == '[' && q[2] == 'v')
                        return false;
        *ret_start = e.start;
        *ret_end = e.end;
        return true;
}
