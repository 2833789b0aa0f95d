/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdlib.h>

#include "basic/util.h"
#include "core/placement.h"

void placement_explain(struct placement *pl, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        char *line = xvasprintf(fmt, ap);
        va_end(ap);
        pl->why = xrealloc(pl->why, (pl->n_why + 1) * sizeof(char *));
        pl->why[pl->n_why++] = line;
}

struct plan *plan_free(struct plan *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_replicas; i++) {
                free(p->replicas[i].name);
                free(p->replicas[i].unit);
                free(p->replicas[i].accels);
                free(p->replicas[i].environment);
                free(p->replicas[i].container);
                free(p->replicas[i].hugepages);
                free(p->replicas[i].warmup_url);
                free(p->replicas[i].copies);
                free(p->replicas[i].nics);
                free(p->replicas[i].ranks);
                strv_free_n(p->replicas[i].why, p->replicas[i].n_why);
        }
        free(p->replicas);
        free(p->nodes);
        free(p);
        return NULL;
}

const struct plan_node *plan_node(const struct plan *p, int id) {
        for (size_t i = 0; i < p->n_nodes; i++)
                if (p->nodes[i].id == id)
                        return &p->nodes[i];
        return NULL;
}
