/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "core/warnings.h"
#include "small-plan.h"

const struct dropin_env small_env = {
        .marker = "/run/numaplan/unplaced",
        .marker_blocks = true,
        .exe = "/usr/sbin/numaplan",
        .models = "/run/numaplan/models",
};

struct topology *small_host(void) {
        struct topology *t = xmalloc0(sizeof(*t));

        t->has_node_dirs = true;
        t->n_nodes = 2;
        t->nodes = xmalloc0(2 * sizeof(*t->nodes));
        t->max_cpu = 7;
        t->core_of = xmalloc0(8 * sizeof(int));
        t->socket_of = xmalloc0(8 * sizeof(int));
        t->numa_balancing = 0;
        for (int cpu = 0; cpu < 8; cpu++) {
                cpuset_set(&t->online_cpus, cpu);
                cpuset_set(&t->nodes[cpu / 4].cpus, cpu);
                t->core_of[cpu] = cpu;
                t->socket_of[cpu] = cpu / 4;
        }
        for (int i = 0; i < 2; i++) {
                struct node *n = &t->nodes[i];
                n->id = i;
                n->mem_total = n->mem_free = n->mem_available = UINT64_C(16) << 30;
                n->memory_known = true;
                n->kind = NODE_CPU_MEMORY;
                n->cores = 4;
        }
        return t;
}

void small_plan_make(struct small_plan *sp, const char *text) {
        struct error_at err = {0};
        struct warnings w = {0};

        *sp = (struct small_plan){.t = small_host()};
        int r = config_parse_string(text, "test.conf", &sp->c, &err);
        if (r >= 0)
                r = plan_compute(sp->t, sp->c, &w, &sp->p, &err);
        warnings_done(&w);
        if (r < 0) {
                printf("Bail out! no plan on the two-node host: %s:%u: %s\n", strempty(err.at.file), err.at.line,
                       strempty(err.message));
                exit(1);
        }
}

void small_plan_done(struct small_plan *sp) {
        plan_free(sp->p);
        config_free(sp->c);
        topology_free(sp->t);
        *sp = (struct small_plan){0};
}
