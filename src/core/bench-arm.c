/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "basic/util.h"
#include "core/bench-arm.h"
#include "core/memory-kind.h"
#include "core/observed.h"
#include "core/verify-checks.h"

struct cpuset bench_memory_nodes(const struct topology *t) {
        struct cpuset s = {0};
        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].mem_total > 0)
                        cpuset_set(&s, (unsigned) t->nodes[i].id);
        return s;
}

int bench_remote_node(const struct topology *t, const struct placement *pl, int *ret) {
        /* Away from its accelerators' nodes (its home), and on none of its own. */
        const struct cpuset *from = cpuset_is_empty(&pl->home) ? &pl->nodes : &pl->home;
        struct cpuset own = pl->home;
        int best = -1;
        long best_d = -1;

        cpuset_or(&own, &pl->nodes);
        for (size_t i = 0; i < t->n_nodes; i++) {
                const struct node *n = &t->nodes[i];
                if (cpuset_isset(&own, n->id) || cpuset_is_empty(&n->cpus) || n->mem_total == 0 ||
                    memory_kind_forbidden(n->memory.kinds))
                        continue;
                long d = 0;
                CPUSET_FOREACH(o, from)
                        d += topology_distance(t, o, n->id);
                if (d > best_d) /* nodes come by id: the lower one keeps a tie */
                        best = n->id, best_d = d;
        }
        if (best < 0)
                return -ENOENT;
        *ret = best;
        return 0;
}

static int core_of(const struct topology *t, int cpu) {
        return t->core_of && cpu <= t->max_cpu && t->core_of[cpu] >= 0 ? t->core_of[cpu] : cpu;
}

/* `cores` whole cores of `cpus` (all of them for 0, or when there are fewer), in list order. */
static struct cpuset take_cores(const struct topology *t, const struct cpuset *cpus, unsigned cores) {
        struct cpuset taken = {0}, seen = {0};
        unsigned n = 0;
        CPUSET_FOREACH(c, cpus) {
                int core = core_of(t, c);
                if (!cpuset_isset(&seen, core)) {
                        if (cores && n == cores)
                                continue;
                        cpuset_set(&seen, (unsigned) core);
                        n++;
                }
                cpuset_set(&taken, (unsigned) c);
        }
        return taken;
}

static void count_cpus(const struct topology *t, struct placement *pl) {
        struct cpuset cores = {0};
        CPUSET_FOREACH(c, &pl->cpus)
                cpuset_set(&cores, (unsigned) core_of(t, c));
        pl->n_cpus = cpuset_count(&pl->cpus);
        pl->n_cores = cpuset_count(&cores);
}

void bench_place_remote(const struct topology *t, const struct placement *pl, int node, struct bench_place *ret) {
        const struct node *n = topology_node(t, node);

        *ret = (struct bench_place){.against = BENCH_REMOTE, .node = node, .pl = *pl};
        cpuset_clear(&ret->pl.nodes);
        cpuset_set(&ret->pl.nodes, (unsigned) node);
        ret->pl.policy = POLICY_BIND;
        ret->pl.cpu_affinity_numa = false;
        ret->pl.cpus = n ? take_cores(t, &n->cpus, pl->n_cores) : (struct cpuset){0};
        /* A node's copy is a tmpfs bound to the plan's nodes: the original, moved there. */
        ret->pl.copies = NULL;
        count_cpus(t, &ret->pl);
}

void bench_place_unpinned(const struct topology *t, const struct placement *pl, struct bench_place *ret) {
        *ret = (struct bench_place){.against = BENCH_UNPINNED, .node = -1, .pl = *pl};
        ret->pl.nodes = bench_memory_nodes(t);
        /* No AllowedMemoryNodes=: verify's check then wants every node with memory. */
        ret->pl.policy = POLICY_PREFERRED;
        ret->pl.cpu_affinity_numa = false;
        ret->pl.cpus = t->online_cpus;
        count_cpus(t, &ret->pl);
}

static char *render_unpinned(const struct bench_place *b) {
        _cleanup_free_ char *cpus = cpuset_format(&b->pl.cpus), *nodes = cpuset_format(&b->pl.nodes);
        /* Empty assignments reset what numaplan's drop-in set; the variables say where it may run,
         * its thread counts stay the plan's. */
        return xasprintf(BENCH_DROPIN_HEADER " the unpinned arm of replica %s, numaplan's drop-in lifted; "
                                             "numaplan bench removes it as it ends.\n"
                                             "[Service]\nNUMAPolicy=default\nNUMAMask=\nCPUAffinity=\n"
                                             "AllowedCPUs=\nAllowedMemoryNodes=\n"
                                             "Environment=NUMAPLAN_CPUS=%s NUMAPLAN_MEMS=%s\n",
                         b->pl.name, cpus, nodes);
}

/* systemd adds a set to the one an earlier drop-in gave (NUMAMask=1 then NUMAMask=0 is 0-1): each
 * is emptied before it is set. */
static const char *const set_keys[] = {"NUMAMask=", "CPUAffinity=", "AllowedCPUs=", "AllowedMemoryNodes="};

char *bench_dropin_render(const struct bench_place *b, const struct topology *t, const struct config *c,
                          const struct plan *p, const struct dropin_env *env) {
        if (b->against == BENCH_UNPINNED)
                return render_unpinned(b);
        _cleanup_free_ char *text = dropin_render(t, c, p, &b->pl, env);
        struct strbuf out = {0};
        strbuf_printf(&out,
                      BENCH_DROPIN_HEADER " the remote arm of replica %s, on node %d, the farthest from its own; "
                                          "numaplan bench removes it as it ends.\n",
                      b->pl.name, b->node);
        /* numaplan's own header says "run numaplan apply": not of this file. */
        for (const char *line = strchr(text, '\n'); line && line[1]; line = strchr(line, '\n')) {
                line++;
                for (size_t i = 0; i < ELEMENTSOF(set_keys); i++)
                        if (startswith(line, set_keys[i]))
                                strbuf_printf(&out, "%s\n", set_keys[i]);
                strbuf_append_n(&out, line, strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n'));
        }
        return strbuf_steal(&out);
}

bool bench_reached(const struct placement *want, bool lifted, const struct unit_state *s,
                   const struct cpuset *memory_nodes, char **ret_why) {
        static void (*const checks[])(const struct verify_facts *, struct check *) = {
                check_unit_active, check_numa_policy, check_effective_cpus, check_effective_memory_nodes};
        static const unsigned ids[] = {CHECK_UNIT_ACTIVE, CHECK_NUMA_POLICY, CHECK_EFFECTIVE_CPUS,
                                       CHECK_EFFECTIVE_MEMORY_NODES};
        struct verify_facts f = {.unit = want->unit, .pl = want, .state = s, .memory_nodes = memory_nodes};

        *ret_why = NULL;
        for (size_t i = 0; i < ELEMENTSOF(checks) && !*ret_why; i++) {
                struct check c = {0};
                if (ids[i] == CHECK_NUMA_POLICY && lifted) {
                        const char *got = numa_policy_name(s->numa_policy);
                        if (s->numa_policy >= 0 && !streq(got, "default"))
                                *ret_why = xasprintf("%s: want default, got %s", check_name(ids[i]), got);
                        continue;
                }
                checks[i](&f, &c);
                if (!c.ok)
                        *ret_why = xasprintf("%s: want %s, got %s%s%s%s", check_name(ids[i]), strempty(c.want),
                                             *strempty(c.got) ? c.got : "nothing", c.detail ? " (" : "",
                                             strempty(c.detail), c.detail ? ")" : "");
                check_done(&c);
        }
        return !*ret_why;
}

const char *bench_accelerator_words(const struct topology *t, const struct placement *pl) {
        bool all_gpus = true;
        if (pl->n_accels == 0)
                return NULL;
        for (size_t i = 0; i < pl->n_accels; i++)
                all_gpus = all_gpus && ((t->accels[pl->accels[i]].class >> 16) & 0xff) == 0x03;
        if (all_gpus)
                return pl->n_accels > 1 ? "GPUs" : "GPU";
        return pl->n_accels > 1 ? "accelerators" : "accelerator";
}
