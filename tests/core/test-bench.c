/* SPDX-License-Identifier: MIT */
/* numaplan bench's arithmetic and arms, without a host: the A B B A order, quantiles, each arm's
 * figures, the paired bootstrap's ratio and interval (a known slowdown found, none where there
 * is none, the same interval for the same answers), the sentence; the node farthest by the
 * distance table, the remote and unpinned drop-ins, and whether a unit got there. */

#include <math.h>

#include "basic/util.h"
#include "core/bench-arm.h"
#include "core/bench.h"
#include "core/observed.h"
#include "small-plan.h"
#include "tap.h"

static void schedule(void) {
        char got[17] = "";
        for (size_t k = 0; k < 16; k++)
                got[k] = bench_round_arm(k) == BENCH_PLANNED ? 'A' : 'B';
        is_str(got, "ABBAABBAABBAABBA", "rounds run A B B A, again and again");
        size_t first[N_BENCH_ARMS] = {0};
        for (size_t k = 0; k < 8; k += 2)
                first[bench_round_arm(k)]++;
        ok(first[BENCH_PLANNED] == first[BENCH_OTHER], "each arm runs first in a pair as often as the other");
}

static void quantiles(void) {
        const double v[] = {1, 2, 3, 4, 5};
        ok(bench_quantile(v, 5, 0.5) == 3, "the median of 1..5 is 3");
        ok(bench_quantile(v, 4, 0.5) == 2.5, "the median of 1..4 is 2.5, between the middle two");
        ok(bench_quantile(v, 5, 0.25) == 2, "the first quartile of 1..5 is 2");
        ok(bench_quantile(v, 5, 1) == 5 && bench_quantile(v, 5, 0) == 1, "0 and 1 are the ends");
        ok(fabs(bench_quantile(v, 5, 0.99) - 4.96) < 1e-9, "p99 of 1..5 is 4.96, interpolated");
        ok(bench_quantile(v, 0, 0.5) == 0 && bench_quantile(v, 1, 0.99) == 1, "none gives 0, one gives itself");
}

/* 2n rounds A B B A..., `per` answers each: A's around `a` ms, B's around `b` ms, each answer off
 * by a spread that the same index repeats in both arms (so the arms differ by b/a alone). */
static struct bench_round *make_rounds(size_t n, size_t per, double a, double b, double spread) {
        struct bench_round *v = xmalloc0((2 * n + 1) * sizeof(*v));
        for (size_t k = 0; k < 2 * n; k++) {
                v[k].arm = bench_round_arm(k);
                double base = v[k].arm == BENCH_PLANNED ? a : b;
                for (size_t i = 0; i < per; i++) {
                        double wobble = spread * ((double) ((i * 7 + k * 3) % 11) / 10.0 - 0.5);
                        bench_round_add(&v[k], base * (1 + wobble), v[k].arm == BENCH_PLANNED ? 100 : -1);
                }
        }
        return v;
}

static void free_rounds(struct bench_round *v, size_t n) {
        for (size_t k = 0; k < n; k++)
                bench_round_done(&v[k]);
        free(v);
}

static void figures(void) {
        struct bench_round *v = make_rounds(2, 5, 10, 20, 0);
        struct bench_arm_figures a, b;

        v[1].failed = 2;
        v[2].discarded = xstrdup("effective-cpus: want 0-1, got 0-3");
        bench_round_add(&v[2], 1, -1); /* a discarded round's answers never count */
        bench_arm_figures(v, 4, BENCH_PLANNED, &a);
        bench_arm_figures(v, 4, BENCH_OTHER, &b);
        is_int(a.requests, 10, "planned: its two rounds' answers");
        ok(a.p50_ms == 10 && a.p99_ms == 10, "planned: p50 and p99 10 ms");
        ok(a.tokens_per_s == 100, "planned: the answers' tokens per second, averaged");
        is_int(b.requests, 5, "other: the discarded round left out");
        is_int(b.rounds, 1, "other: one round counts");
        is_int(b.discarded, 1, "other: one discarded");
        is_int(b.failed, 2, "other: the failed requests counted, never as answers");
        ok(b.p50_ms == 20, "other: p50 20 ms, the failures not in it");
        ok(b.tokens_per_s < 0, "other: no tokens per second when no answer said its tokens");
        free_rounds(v, 4);
}

static void ratio(void) {
        struct bench_ratio r, again, other_seed;

        struct bench_round *v = make_rounds(4, 20, 10, 14.1, 0.2);
        bench_ratio(v, 8, BENCH_SEED, BENCH_RESAMPLES, &r);
        ok(r.known && r.pairs == 4, "4 pairs of rounds");
        ok(fabs(r.estimate - 1.41) < 0.01, "the estimate is B's median over A's: 1.41 (got %.3f)", r.estimate);
        ok(r.low > 1 && r.low <= r.estimate && r.estimate <= r.high, "the interval holds it and not 1 (%.3f-%.3f)",
           r.low, r.high);
        bench_ratio(v, 8, BENCH_SEED, BENCH_RESAMPLES, &again);
        ok(again.low == r.low && again.high == r.high, "the same answers give the same interval");
        bench_ratio(v, 8, BENCH_SEED + 1, BENCH_RESAMPLES, &other_seed);
        ok(fabs(other_seed.low - r.low) < 0.05, "another seed, about the same interval");
        free_rounds(v, 8);

        v = make_rounds(4, 20, 10, 10, 0.3);
        /* B's answers a little shuffled against A's: no difference but noise. */
        for (size_t i = 0; i < 20; i++)
                v[1].ms[i] = v[0].ms[19 - i];
        bench_ratio(v, 8, BENCH_SEED, BENCH_RESAMPLES, &r);
        ok(r.known && r.low <= 1 && r.high >= 1, "no slowdown: the interval holds 1 (%.3f-%.3f)", r.low, r.high);
        ok(fabs(r.estimate - 1) < 0.05, "and the estimate is about 1 (%.3f)", r.estimate);
        free_rounds(v, 8);

        v = make_rounds(2, 5, 10, 20, 0);
        v[1].discarded = xstrdup("interrupted");
        v[2].discarded = xstrdup("it did not answer");
        bench_ratio(v, 4, BENCH_SEED, BENCH_RESAMPLES, &r);
        ok(!r.known && r.pairs == 0, "every round of one arm discarded: no ratio");
        free_rounds(v, 4);

        v = make_rounds(2, 5, 10, 20, 0);
        v[2].discarded = xstrdup("it did not answer");
        bench_ratio(v, 4, BENCH_SEED, BENCH_RESAMPLES, &r);
        ok(r.known && r.pairs == 1 && r.estimate == 2 && r.low == 2 && r.high == 2,
           "one pair left: its ratio, with no spread to show");
        free_rounds(v, 4);
}

static void sentences(void) {
        struct bench_ratio r = {.known = true, .estimate = 1.412, .low = 1.3, .high = 1.524, .pairs = 4};
        struct bench_words w = {.against = BENCH_REMOTE, .node = 0, .accelerator = "GPU", .home = "1"};
        char *s = bench_sentence(&w, &r);
        is_str(s, "on node 0, away from its GPU, requests take 1.41x the time they take as planned, interval 1.30-1.52",
               "remote, one GPU");
        free(s);
        w = (struct bench_words){.against = BENCH_REMOTE, .node = 2, .home = "0-1"};
        s = bench_sentence(&w, &r);
        is_str(s,
               "on node 2, away from its own nodes 0-1, requests take 1.41x the time they take as planned, interval "
               "1.30-1.52",
               "remote, no accelerator");
        free(s);
        r = (struct bench_ratio){.known = true, .estimate = 0.99, .low = 0.95, .high = 1.04, .pairs = 2};
        w = (struct bench_words){.against = BENCH_UNPINNED};
        s = bench_sentence(&w, &r);
        is_str(s,
               "with numaplan's drop-in lifted, requests take 0.99x the time they take as planned, interval "
               "0.95-1.04: the interval holds 1, no difference this bench can tell",
               "unpinned, the interval holding 1");
        free(s);
        r = (struct bench_ratio){0};
        s = bench_sentence(&w, &r);
        is_str(s, "with numaplan's drop-in lifted: no ratio, since no round of each arm was answered", "no ratio");
        free(s);
}

/* Three nodes in a row: 0 and 2 farthest apart; CPUs 0-3, 4-7 and 8-11, SMT pairs. */
static struct topology *three_nodes(void) {
        static const int row[3][3] = {{10, 21, 32}, {21, 10, 21}, {32, 21, 10}};
        struct topology *t = xmalloc0(sizeof(*t));
        t->has_node_dirs = true;
        t->n_nodes = 3;
        t->nodes = xmalloc0(3 * sizeof(*t->nodes));
        t->max_cpu = 11;
        t->core_of = xmalloc0(12 * sizeof(int));
        t->socket_of = xmalloc0(12 * sizeof(int));
        for (int cpu = 0; cpu < 12; cpu++) {
                cpuset_set(&t->online_cpus, cpu);
                cpuset_set(&t->nodes[cpu / 4].cpus, cpu);
                t->core_of[cpu] = cpu & ~1;
        }
        for (int i = 0; i < 3; i++) {
                t->nodes[i].id = i;
                t->nodes[i].mem_total = UINT64_C(16) << 30;
                t->nodes[i].distances = xmalloc0(3 * sizeof(int));
                memcpy(t->nodes[i].distances, row[i], sizeof(row[i]));
        }
        topology_index_nodes(t);
        return t;
}

static struct cpuset set(const char *s) {
        struct cpuset c;
        cpuset_parse_list(s, &c);
        return c;
}

static void remote_node(void) {
        struct topology *t = three_nodes();
        struct placement pl = {.name = "r0", .unit = "r0.service", .n_cores = 1};
        struct bench_place b;
        int node = -1;

        pl.home = pl.nodes = set("0");
        pl.cpus = set("0-1");
        ok(bench_remote_node(t, &pl, &node) == 0 && node == 2, "from node 0, node 2 is the farthest (32)");
        bench_place_remote(t, &pl, node, &b);
        char *cpus = cpuset_format(&b.pl.cpus), *nodes = cpuset_format(&b.pl.nodes);
        is_str(cpus, "8-9", "as many cores there as planned, with their SMT siblings");
        is_str(nodes, "2", "bound to it");
        ok(b.pl.policy == POLICY_BIND && !b.pl.cpu_affinity_numa && b.pl.n_cpus == 2 && b.pl.n_cores == 1,
           "policy bind, CPUAffinity= its CPUs, 2 CPUs on 1 core");
        free(cpus);
        free(nodes);

        pl.home = pl.nodes = set("1");
        ok(bench_remote_node(t, &pl, &node) == 0 && node == 0, "from node 1, 0 and 2 tie at 21: the lower id");
        pl.home = set("0");
        pl.nodes = set("0-1");
        ok(bench_remote_node(t, &pl, &node) == 0 && node == 2, "memory extended to node 1: node 2, far from its home");
        pl.home = pl.nodes = set("0-2");
        ok(bench_remote_node(t, &pl, &node) == -ENOENT, "no node of its own is remote");
        pl.home = pl.nodes = set("0");
        t->nodes[2].mem_total = 0;
        ok(bench_remote_node(t, &pl, &node) == 0 && node == 1, "a node without memory is never remote");
        t->nodes[1].memory.kinds = MEMORY_GPU;
        ok(bench_remote_node(t, &pl, &node) == -ENOENT, "nor GPU memory");
        topology_free(t);
}

static void dropins(void) {
        struct small_plan sp;
        struct bench_place b;
        int node;

        small_plan_make(&sp, "[replica r0]\nunit = r0.service\nmemory = 1G\ncpus = cores:2\nmodel = /srv/m.gguf\n"
                             "warmup-url = http://127.0.0.1:8080/completion\n");
        const struct placement *pl = &sp.p->replicas[0];
        ok(bench_remote_node(sp.t, pl, &node) == 0 && node == 1, "the two-node host: the other node");
        bench_place_remote(sp.t, pl, node, &b);
        char *text = bench_dropin_render(&b, sp.t, sp.c, sp.p, &small_env);
        ok(startswith(text, BENCH_DROPIN_HEADER " the remote arm of replica r0, on node 1") != NULL,
           "the remote drop-in says whose it is");
        ok(!strstr(text, DROPIN_HEADER " from"), "and not that numaplan apply writes it");
        ok(strstr(text, "\nNUMAPolicy=bind\nNUMAMask=\nNUMAMask=1\nCPUAffinity=\nCPUAffinity=4-5\nAllowedCPUs=\n"
                        "AllowedCPUs=4-5\nAllowedMemoryNodes=\nAllowedMemoryNodes=1\n") != NULL,
           "it binds the replica to node 1, on 2 of its cores, each set emptied first (systemd adds them up)");
        ok(strstr(text, "prepare --nodes 1 -- \"/srv/m.gguf\"") != NULL, "and moves its model's page cache there");
        free(text);

        bench_place_unpinned(sp.t, pl, &b);
        text = bench_dropin_render(&b, sp.t, sp.c, sp.p, &small_env);
        is_str(text,
               BENCH_DROPIN_HEADER
               " the unpinned arm of replica r0, numaplan's drop-in lifted; numaplan bench removes "
               "it as it ends.\n[Service]\nNUMAPolicy=default\nNUMAMask=\nCPUAffinity=\n"
               "AllowedCPUs=\nAllowedMemoryNodes=\nEnvironment=NUMAPLAN_CPUS=0-7 NUMAPLAN_MEMS=0-1\n",
               "the unpinned drop-in resets numaplan's settings");
        free(text);

        /* Reached: as verify judges a running unit. */
        struct unit_state s = {.load_state = "loaded", .active_state = "active", .numa_policy = 0};
        struct cpuset mems = bench_memory_nodes(sp.t);
        char *why = NULL;
        s.effective_cpus = set("0-7");
        s.effective_mems = set("0-1");
        ok(bench_reached(&b.pl, true, &s, &mems, &why) && !why, "unpinned: every CPU and node, the default policy");
        s.effective_cpus = set("0-3");
        ok(!bench_reached(&b.pl, true, &s, &mems, &why), "unpinned, but on node 0's CPUs: not reached");
        is_str(why, "effective-cpus: want 0-7, got 0-3 (systemd's EffectiveCPUs is 0-3, the plan's 0-7)",
               "why, as verify says it");
        why = mfree(why);
        s.numa_policy = 2; /* MPOL_BIND */
        s.effective_cpus = set("0-7");
        ok(!bench_reached(&b.pl, true, &s, &mems, &why) && startswith(why, "numa-policy: want default") != NULL,
           "unpinned with numaplan's policy: not reached");
        why = mfree(why);
        s.active_state = "failed";
        ok(!bench_reached(pl, false, &s, &mems, &why) && startswith(why, "unit-active:") != NULL,
           "a failed unit reached nothing");
        free(why);
        small_plan_done(&sp);
}

int main(void) {
        schedule();
        quantiles();
        figures();
        ratio();
        sentences();
        remote_node();
        dropins();
        printf("1..%d\n", tap_count);
        return tap_failed ? 1 : 0;
}
