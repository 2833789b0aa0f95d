/* SPDX-License-Identifier: MIT */
#include "basic/diff.h"

#define CONTEXT 3

struct lines {
        const char **start;
        size_t *len;
        size_t n;
};

static struct lines split(const char *text) {
        struct lines l = {0};
        for (const char *p = text ? text : ""; *p;) {
                const char *e = strchrnul(p, '\n');
                l.start = xrealloc(l.start, (l.n + 1) * sizeof(char *));
                l.len = xrealloc(l.len, (l.n + 1) * sizeof(size_t));
                l.start[l.n] = p;
                l.len[l.n++] = (size_t) (e - p);
                p = *e ? e + 1 : e;
        }
        return l;
}

static bool same(const struct lines *a, size_t i, const struct lines *b, size_t j) {
        return a->len[i] == b->len[j] && memcmp(a->start[i], b->start[j], a->len[i]) == 0;
}

/* One step of the edit script: ' ' keep, '-' old only, '+' new only. */
struct op {
        char kind;
        size_t a, b;
};

void diff_unified(struct strbuf *out, const char *old_name, const char *old, const char *new_name, const char *new) {
        struct lines a = split(old), b = split(new);
        size_t w = b.n + 1;
        size_t *lcs = xmalloc0((a.n + 1) * w * sizeof(size_t));
        struct op *ops = xmalloc0((a.n + b.n + 1) * sizeof(struct op));
        size_t n_ops = 0;

        for (size_t i = a.n; i-- > 0;)
                for (size_t j = b.n; j-- > 0;)
                        lcs[i * w + j] = same(&a, i, &b, j)                          ? lcs[(i + 1) * w + j + 1] + 1
                                         : lcs[(i + 1) * w + j] > lcs[i * w + j + 1] ? lcs[(i + 1) * w + j]
                                                                                     : lcs[i * w + j + 1];
        for (size_t i = 0, j = 0; i < a.n || j < b.n;) {
                if (i < a.n && j < b.n && same(&a, i, &b, j))
                        ops[n_ops++] = (struct op){' ', i++, j++};
                else if (j < b.n && (i == a.n || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]))
                        ops[n_ops++] = (struct op){'+', i, j++};
                else
                        ops[n_ops++] = (struct op){'-', i++, j};
        }

        /* Within a change, the old lines first and then the new ones, as diff -u prints them:
         * patch(1) takes lines in another order only with fuzz. A change's old lines are
         * consecutive in the old text and its new lines in the new one, so this is the same edit. */
        for (size_t k = 0; k < n_ops;) {
                if (ops[k].kind == ' ') {
                        k++;
                        continue;
                }
                size_t end = k, n_old = 0, i0 = ops[k].a, j0 = ops[k].b;
                for (; end < n_ops && ops[end].kind != ' '; end++)
                        n_old += ops[end].kind == '-';
                for (size_t t = k; t < end; t++)
                        ops[t] = t - k < n_old ? (struct op){'-', i0 + (t - k), j0}
                                               : (struct op){'+', i0 + n_old, j0 + (t - k - n_old)};
                k = end;
        }

        bool header = false;
        for (size_t k = 0; k < n_ops;) {
                if (ops[k].kind == ' ') {
                        k++;
                        continue;
                }
                /* Changes closer than 2*CONTEXT unchanged lines share a hunk. */
                size_t last = k;
                for (size_t t = k + 1; t < n_ops && t - last <= 2 * CONTEXT + 1; t++)
                        if (ops[t].kind != ' ')
                                last = t;
                size_t from = k > CONTEXT ? k - CONTEXT : 0;
                size_t to = last + 1 + CONTEXT < n_ops ? last + 1 + CONTEXT : n_ops;
                size_t a0 = ops[from].a, b0 = ops[from].b, na = 0, nb = 0;
                for (size_t t = from; t < to; t++) {
                        na += ops[t].kind != '+';
                        nb += ops[t].kind != '-';
                }
                if (!header) {
                        strbuf_printf(out, "--- %s\n+++ %s\n", old ? old_name : "/dev/null",
                                      new ? new_name : "/dev/null");
                        header = true;
                }
                strbuf_printf(out, "@@ -%zu,%zu +%zu,%zu @@\n", na ? a0 + 1 : a0, na, nb ? b0 + 1 : b0, nb);
                for (size_t t = from; t < to; t++) {
                        const struct lines *src = ops[t].kind == '+' ? &b : &a;
                        size_t line = ops[t].kind == '+' ? ops[t].b : ops[t].a;
                        strbuf_printf(out, "%c%.*s\n", ops[t].kind, (int) src->len[line], src->start[line]);
                }
                k = to;
        }
        free(lcs);
        free(ops);
        free(a.start);
        free(a.len);
        free(b.start);
        free(b.len);
}
