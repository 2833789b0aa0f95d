/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>

#include "basic/util.h"
#include "core/hugepages.h"
#include "core/placement.h"

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

void pools_add_record(struct pools *p, int node, uint64_t page_kb, uint64_t pages, uint64_t others) {
        pools_add(p, node, page_kb, pages);
        struct pool *e = find(p, node, page_kb);
        e->others = others;
        e->others_known = true;
}

const struct pool *pools_find(const struct pools *p, int node, uint64_t page_kb) {
        return find(p, node, page_kb);
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
                if (!*l || *l == '#')
                        continue;
                char *w[5] = {0}, *save = NULL;
                size_t n = 0;
                for (char *t = strtok_r(l, " ", &save); t; t = strtok_r(NULL, " ", &save), n++)
                        if (n < ELEMENTSOF(w))
                                w[n] = t;
                uint64_t node, kb, pages, others = 0;
                if ((n != 3 && n != 4) || parse_uint64(w[0], 10, &node) < 0 || node > INT32_MAX ||
                    parse_uint64(w[1], 10, &kb) < 0 || kb == 0 || parse_uint64(w[2], 10, &pages) < 0 ||
                    (n == 4 && parse_uint64(w[3], 10, &others) < 0)) {
                        pools_done(&p);
                        *ret_line = line;
                        return -EINVAL;
                }
                if (n == 4)
                        pools_add_record(&p, (int) node, kb, pages, others);
                else
                        pools_add(&p, (int) node, kb, pages);
        }
        *ret = p;
        return 0;
}

char *pools_format(const struct pools *p) {
        struct strbuf b = {0};
        strbuf_append(&b, "# numaplan's huge pages: NODE PAGE_KB PAGES OTHERS (others' pages beside them then)\n");
        for (size_t i = 0; i < p->n; i++)
                if (p->v[i].pages)
                        strbuf_printf(&b, "%d %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", p->v[i].node, p->v[i].page_kb,
                                      p->v[i].pages, p->v[i].others);
        return strbuf_steal(&b);
}

struct pool_share pools_share(uint64_t current, const struct pool *recorded) {
        if (!recorded || recorded->pages == 0)
                return (struct pool_share){.others = current};
        if (!recorded->others_known)
                return (struct pool_share){.others = current, .disagrees = true};
        uint64_t beyond = current > recorded->others ? current - recorded->others : 0;
        uint64_t ours = recorded->pages < beyond ? recorded->pages : beyond;
        bool disagrees =
                recorded->others > UINT64_MAX - recorded->pages || recorded->others + recorded->pages != current;
        return (struct pool_share){.ours = ours, .others = current - ours, .disagrees = disagrees};
}

uint64_t pools_target(uint64_t others, uint64_t wanted) {
        return others > UINT64_MAX - wanted ? UINT64_MAX : others + wanted;
}

uint64_t pools_granted(uint64_t others, uint64_t after) {
        return after > others ? after - others : 0;
}
