/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>

#include "basic/parse-util.h"
#include "basic/util.h"
#include "core/hugepages.h"
#include "core/planner.h"

void pools_done(struct pools *p) {
        free(p->v);
        *p = (struct pools){0};
}

static struct pool *find(const struct pools *p, int node, uint64_t page_kb) {
        for (size_t i = 0; i < p->n; i++)
                if (p->v[i].node == node && p->v[i].page_kb == page_kb)
                        return &p->v[i];
        return NULL;
}

void pools_add(struct pools *p, int node, uint64_t page_kb, uint64_t pages) {
        struct pool *e = find(p, node, page_kb);
        if (e) {
                e->pages = e->pages > UINT64_MAX - pages ? UINT64_MAX : e->pages + pages;
                return;
        }
        /* Sorted by node, then size: the record and the report read the same every time. */
        size_t i = p->n;
        p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
        for (; i > 0 && (p->v[i - 1].node > node || (p->v[i - 1].node == node && p->v[i - 1].page_kb > page_kb)); i--)
                p->v[i] = p->v[i - 1];
        p->v[i] = (struct pool){node, page_kb, pages};
        p->n++;
}

uint64_t pools_get(const struct pools *p, int node, uint64_t page_kb) {
        const struct pool *e = find(p, node, page_kb);
        return e ? e->pages : 0;
}

void pools_for_plan(const struct plan *plan, struct pools *ret) {
        *ret = (struct pools){0};
        for (size_t i = 0; i < plan->n_replicas; i++) {
                const struct placement *pl = &plan->replicas[i];
                for (size_t j = 0; j < pl->n_hugepages; j++)
                        pools_add(ret, pl->hugepages[j].node, pl->hugepage_kb, pl->hugepages[j].pages);
        }
}

int pools_parse(const char *text, struct pools *ret, unsigned *ret_line) {
        struct pools p = {0};
        unsigned line = 0;

        for (const char *s = text; *s;) {
                const char *eol = strchrnul(s, '\n');
                _cleanup_free_ char *l = xstrndup(s, (size_t) (eol - s));
                line++;
                s = *eol ? eol + 1 : eol;
                if (!*l)
                        continue;
                char *w[4] = {0}, *save = NULL;
                size_t n = 0;
                for (char *t = strtok_r(l, " ", &save); t; t = strtok_r(NULL, " ", &save), n++)
                        if (n < ELEMENTSOF(w))
                                w[n] = t;
                uint64_t node, kb, pages;
                if (n != 3 || parse_uint64(w[0], 10, &node) < 0 || node > INT32_MAX ||
                    parse_uint64(w[1], 10, &kb) < 0 || kb == 0 || parse_uint64(w[2], 10, &pages) < 0) {
                        pools_done(&p);
                        *ret_line = line;
                        return -EINVAL;
                }
                pools_add(&p, (int) node, kb, pages);
        }
        *ret = p;
        return 0;
}

char *pools_format(const struct pools *p) {
        struct strbuf b = {0};
        for (size_t i = 0; i < p->n; i++)
                if (p->v[i].pages)
                        strbuf_printf(&b, "%d %" PRIu64 " %" PRIu64 "\n", p->v[i].node, p->v[i].page_kb, p->v[i].pages);
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

uint64_t pools_target(uint64_t current, uint64_t recorded, uint64_t wanted) {
        uint64_t others = current > recorded ? current - recorded : 0;
        return others > UINT64_MAX - wanted ? UINT64_MAX : others + wanted;
}

uint64_t pools_granted(uint64_t current_before, uint64_t recorded, uint64_t wanted, uint64_t after) {
        uint64_t others = current_before > recorded ? current_before - recorded : 0;
        uint64_t ours = after > others ? after - others : 0;
        return ours < wanted ? ours : wanted;
}
