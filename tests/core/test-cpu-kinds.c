/* SPDX-License-Identifier: MIT */
/* CPU kinds found and ranked as hwloc does, from what each CPU's files say, on hosts made here
 * after real ones (a Raptor Lake with Turbo Boost Max 3.0, a DGX Spark, Lakefield); and rule 5's
 * split of a node's cores by kind and L3 cache. */

#include "core/cpu-kinds.h"
#include "core/cpu-split.h"
#include "tap.h"

#define N 64

static struct cpu_facts facts[N];
static struct cpuset online;

static void host(size_t n) {
        memset(facts, 0, sizeof(facts));
        cpuset_clear(&online);
        for (size_t c = 0; c < n; c++)
                cpuset_set(&online, (unsigned) c);
}

static char *kind_cpus(const struct cpu_kinds *k, size_t i) {
        return i < k->n ? cpuset_format(&k->v[i].cpus) : xstrdup("(none)");
}

#define is_kind(k, i, want, ...) \
        do { \
                _cleanup_free_ char *s_ = kind_cpus(k, i); \
                is_str(s_, want, __VA_ARGS__); \
        } while (0)

static void test_raptor_lake(void) {
        struct cpu_kinds k;
        struct cpu_kinds_input in = {.cpus = &online, .facts = facts};
        host(20);
        /* 6 P-cores with 2 threads (0-11), 8 E-cores (12-19); two P-cores favoured by Turbo Boost
         * Max 3.0 go 4% higher: the same kind. */
        for (size_t c = 0; c < 20; c++)
                facts[c] = c < 12 ? (struct cpu_facts){.max_khz = c / 2 == 2 ? 5200000 : 5000000, .base_khz = 1900000}
                                  : (struct cpu_facts){.max_khz = 3900000, .base_khz = 1400000};
        cpu_kinds_build(&in, &k);
        is_int((int) k.n, 2, "hybrid: two kinds, the favoured cores' max evened out");
        is_kind(&k, 0, "0-11", "the P-cores first");
        is_kind(&k, 1, "12-19", "the E-cores last");
        ok(k.ranked_by == KINDS_BY_BASE_FREQ && k.v[0].max_khz == 5000000, "ranked by base frequency, max the lowest");
        cpu_kinds_done(&k);

        facts[4].max_khz = facts[5].max_khz = 5600000; /* 12%: a kind of its own */
        cpu_kinds_build(&in, &k);
        is_int((int) k.n, 3, "max frequencies 12%% apart are kinds apart");
        ok(k.ranked_by == KINDS_UNRANKED, "two kinds of one base frequency, no capacity: unranked");
        is_kind(&k, 0, "12-19", "in hwloc's order: the lowest max frequency first");
        cpu_kinds_done(&k);
}

static void test_gb10(void) {
        static const unsigned capacity[] = {718, 718, 731, 731, 731, 1017, 1017, 1017, 1017, 1024,
                                            718, 718, 718, 718, 718, 997,  997,  997,  997,  997};
        struct cpu_kinds k;
        struct cpu_kinds_input in = {.cpus = &online, .facts = facts, .midr = true};
        host(20);
        for (size_t c = 0; c < 20; c++)
                facts[c] = (struct cpu_facts){.capacity = capacity[c], .midr = c % 10 >= 5 ? 0x410fd851 : 0x410fd871};
        cpu_kinds_build(&in, &k);
        is_int((int) k.n, 2, "GB10 by MIDR: two kinds");
        is_kind(&k, 0, "5-9,15-19", "Cortex-X925 first");
        is_kind(&k, 1, "0-4,10-14", "Cortex-A725 last");
        ok(k.ranked_by == KINDS_BY_CAPACITY && k.v[0].capacity == 997 && k.v[1].capacity == 718,
           "ranked by the lowest capacity of each");
        cpu_kinds_done(&k);

        in.midr = false;
        cpu_kinds_build(&in, &k);
        is_int((int) k.n, 5, "cpu_capacity alone: five kinds");
        is_kind(&k, 0, "9", "capacity 1024 first");
        cpu_kinds_done(&k);

        in.midr = true;
        for (size_t c = 0; c < 20; c++)
                facts[c].midr = 0x410fd871;
        cpu_kinds_build(&in, &k);
        is_int((int) k.n, 0, "one MIDR: the cores are alike, no kind");
        cpu_kinds_done(&k);
}

static void test_lakefield(void) {
        struct cpuset atom = {0}, core = {0};
        struct cpu_kinds k;
        struct cpu_kinds_input in = {.cpus = &online, .facts = facts};
        host(5);
        for (size_t c = 0; c < 5; c++) {
                facts[c] = c < 4 ? (struct cpu_facts){.max_khz = 2800000, .base_khz = 1400000}
                                 : (struct cpu_facts){.max_khz = 3000000, .base_khz = 2000000};
                cpuset_set(c < 4 ? &atom : &core, (unsigned) c);
        }
        in.pmu[CORE_TYPE_ATOM] = &atom;
        in.pmu[CORE_TYPE_CORE] = &core;
        cpu_kinds_build(&in, &k);
        is_int((int) k.n, 2, "Lakefield: two kinds");
        is_kind(&k, 0, "4", "the Core first");
        ok(k.ranked_by == KINDS_BY_CORE_TYPE_BASE && k.v[0].core_type == CORE_TYPE_CORE,
           "ranked by core type, then base frequency");
        cpu_kinds_done(&k);

        /* Alike but for max frequencies 20% apart, with one base and one capacity: nothing ranks
         * them, and hwloc's order (by max, lowest first) stays. */
        host(4);
        for (size_t c = 0; c < 4; c++)
                facts[c] =
                        (struct cpu_facts){.max_khz = c < 2 ? 3600000 : 3000000, .base_khz = 2000000, .capacity = 1024};
        in = (struct cpu_kinds_input){.cpus = &online, .facts = facts};
        cpu_kinds_build(&in, &k);
        ok(k.n == 2 && k.ranked_by == KINDS_UNRANKED, "ties in every attribute: unranked");
        is_kind(&k, 0, "2-3", "in hwloc's order");
        cpu_kinds_done(&k);
}

/* ---- rule 5's split ---- */

static struct split_core cores[N];
static int owner[N];
static struct split_result res[8];

static char *owned(size_t n, int r) {
        struct cpuset s = {0};
        for (size_t i = 0; i < n; i++)
                if (owner[i] == r)
                        cpuset_set(&s, (unsigned) i);
        return cpuset_format(&s);
}

#define is_owned(n, r, want, ...) \
        do { \
                _cleanup_free_ char *s_ = owned(n, r); \
                is_str(s_, want, __VA_ARGS__); \
        } while (0)

static void split(size_t n, const size_t *take, size_t nw, bool best, bool ranked) {
        struct split_want w[8];
        for (size_t r = 0; r < nw; r++)
                w[r] = (struct split_want){take[r], best};
        cpu_split(&(struct split_input){cores, n, w, nw, ranked}, owner, res);
}

static void test_split_l3(void) {
        /* An EPYC node: 32 cores in 4 L3 caches of 8, no kinds. */
        for (size_t i = 0; i < 32; i++)
                cores[i] = (struct split_core){-1, (int) (i / 8)};
        split(32, (size_t[]){16, 16}, 2, false, false);
        is_owned(32, 0, "0-15", "two replicas: two whole L3 caches each");
        ok(res[0].whole == 2 && res[1].whole == 2 && !res[0].straddles, "whole, not straddling");
        split(32, (size_t[]){8, 8, 8, 8}, 4, false, false);
        is_owned(32, 3, "24-31", "four replicas: one L3 each");
        split(32, (size_t[]){4, 12, 16}, 3, false, false);
        is_owned(32, 0, "0-3", "four cores in one cache");
        is_owned(32, 1, "4-15", "twelve: a whole cache, and the rest of the four's");
        is_owned(32, 2, "16-31", "sixteen: two whole caches");

        /* A reserved core leaves a cache of 7: exact sets of caches still found. */
        for (size_t i = 0; i < 31; i++)
                cores[i] = (struct split_core){-1, (int) ((i + 1) / 8)};
        split(31, (size_t[]){16, 15}, 2, false, false);
        is_owned(31, 0, "7-22", "16 from the two caches of 8 that make it");
        is_owned(31, 1, "0-6,23-30", "15 from the cache of 7 and the last");
        ok(!res[0].straddles && !res[1].straddles, "neither straddles");

        /* No kinds, no caches: the cores in the order of the CPU list, as always. */
        for (size_t i = 0; i < 10; i++)
                cores[i] = (struct split_core){-1, -1};
        split(10, (size_t[]){4, 3, 3}, 3, false, false);
        is_owned(10, 0, "0-3", "in order");
        is_owned(10, 1, "4-6", "in order");
}

static void test_split_kinds(void) {
        /* GB10: two clusters of 10 with an L3 each, five little before five big in each. */
        for (size_t i = 0; i < 20; i++)
                cores[i] = (struct split_core){i % 10 >= 5 ? 0 : 1, (int) (i / 10)};
        split(20, (size_t[]){5, 5, 5, 5}, 4, false, true);
        for (int r = 0; r < 4; r++)
                ok(res[r].domains == 1 && res[r].best >= 2 && res[r].got == 5,
                   "GB10, four replicas: replica %d within one L3, %zu big cores", r, res[r].best);
        split(20, (size_t[]){10, 10}, 2, false, true);
        is_owned(20, 0, "0-9", "two replicas: a cluster each, five big cores each");
        split(20, (size_t[]){5, 5}, 2, true, true);
        is_owned(20, 0, "5-9", "cpu-kinds = best: big cores only");
        is_owned(20, 1, "15-19", "cpu-kinds = best: big cores only, the other cluster");
        split(20, (size_t[]){8}, 1, true, true);
        ok(res[0].got == 8 && res[0].best == 8, "best: 8 big cores across both clusters");
        split(20, (size_t[]){12}, 1, true, true);
        ok(res[0].got == 10, "best leaves 10 of 12 asked: short");

        /* Three big cores for four replicas: one gets only little ones. */
        for (size_t i = 0; i < 12; i++)
                cores[i] = (struct split_core){i < 3 ? 0 : 1, -1};
        split(12, (size_t[]){3, 3, 3, 3}, 4, false, true);
        ok(!res[0].least_only && res[3].least_only, "the last replica has only the least capable kind");
        split(12, (size_t[]){3, 3, 3, 3}, 4, false, false);
        ok(!res[3].least_only, "unranked kinds: no kind is least capable");

        /* A Strix Point: an L3 of 4 big cores, another of 8 little ones. Each replica's share of
         * big cores comes first, so both straddle, where a split by L3 alone keeps the first
         * within one cache. */
        for (size_t i = 0; i < 12; i++)
                cores[i] = (struct split_core){i < 4 ? 0 : 1, i < 4 ? 0 : 1};
        split(12, (size_t[]){6, 6}, 2, false, true);
        ok(res[0].best == 2 && res[1].best == 2, "two big cores each");
        ok(res[0].straddles && res[0].could_be_whole, "the first straddles where it could have been whole");
}

int main(void) {
        test_raptor_lake();
        test_gb10();
        test_lakefield();
        test_split_l3();
        test_split_kinds();
        return done_testing();
}
