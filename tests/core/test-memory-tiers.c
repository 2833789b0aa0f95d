/* SPDX-License-Identifier: MIT */
/* hwloc's memory tiers on hand-made nodes: grouping by kinds and by 10% of bandwidth or latency,
 * the DRAM/HBM guess and when it is not made, one tier nothing names, nodes without memory. */

#include "basic/util.h"
#include "core/config.h"
#include "core/memory-tiers.h"
#include "tap.h"

#define GIB (1ULL << 30)

/* A node with memory, its kinds and HMAT figures (read and write alike). */
static struct node mk(int id, unsigned kinds, uint64_t bw, uint64_t lat) {
        return (struct node){
                .id = id,
                .mem_total = 16 * GIB,
                .memory = {.kinds = kinds,
                           .read_bandwidth = bw,
                           .write_bandwidth = bw,
                           .read_latency = lat,
                           .write_latency = lat,
                           .tier = -1,
                           .kernel_tier = -1,
                           .accelerator = -1},
        };
}

static void test_figures(void) {
        struct node_memory m = {.read_bandwidth = 100, .write_bandwidth = 51, .read_latency = 80};
        is_int(node_memory_bandwidth(&m), 75, "bandwidth: the average of read and write");
        is_int(node_memory_latency(&m), 0, "latency with only read known: unknown");
}

static void test_spm_guess(void) {
        /* Two sockets of DRAM, HBM as soft-reserved memory beside each, an NVDIMM, a CXL expander. */
        struct node v[] = {mk(0, 0, 95000, 105),           mk(1, 0, 95000, 105),
                           mk(2, MEMORY_SPM, 390000, 125), mk(3, MEMORY_SPM, 390000, 125),
                           mk(4, MEMORY_NVM, 14000, 600),  mk(5, MEMORY_CXL, 37500, 255)};
        memory_tiers_assign(v, ELEMENTSOF(v));
        is_int(v[2].memory.tier, 0, "HBM first");
        is_str(memory_kind_name(v[2].memory.kinds), "HBM", "SPM over twice DRAM's bandwidth is HBM");
        is_str(memory_kind_name(v[0].memory.kinds), "DRAM", "the unknown tier beside it is DRAM");
        is_int(v[0].memory.tier, 1, "DRAM second");
        is_int(v[5].memory.tier, 2, "CXL memory by its bandwidth");
        is_str(memory_kind_name(v[5].memory.kinds), "CXL-DRAM", "CXL alone is named CXL-DRAM");
        is_int(v[4].memory.tier, 3, "NVM last");

        /* Not twice as fast: no guess, SPM stays SPM, the DRAM tier has no name. */
        struct node w[] = {mk(0, 0, 100000, 100), mk(1, MEMORY_SPM, 190000, 100)};
        memory_tiers_assign(w, ELEMENTSOF(w));
        ok(w[0].memory.kinds == 0 && w[1].memory.kinds == MEMORY_SPM, "under twice the bandwidth: nothing guessed");
        is_int(w[1].memory.tier, 0, "tiers still ordered by bandwidth");
}

static void test_unknown_pair(void) {
        /* Two unknown tiers (HBM that is not soft-reserved): guessed when over twice as fast. */
        struct node v[] = {mk(0, 0, 100000, 0), mk(1, 0, 300000, 0)};
        memory_tiers_assign(v, ELEMENTSOF(v));
        ok(v[0].memory.kinds == MEMORY_DRAM && v[1].memory.kinds == MEMORY_HBM, "two unknown tiers: DRAM and HBM");
        ok(v[1].memory.tier == 0 && v[0].memory.tier == 1, "HBM the faster tier");

        /* Within 10%: one tier, nothing names it, so no tier at all. */
        struct node w[] = {mk(0, 0, 100000, 100), mk(1, 0, 109000, 100)};
        memory_tiers_assign(w, ELEMENTSOF(w));
        ok(w[0].memory.tier == -1 && w[1].memory.tier == -1 && !w[0].memory.kinds, "one unnamed tier: none");

        /* Latency alone splits tiers, but guesses nothing (bandwidth unknown). */
        struct node x[] = {mk(0, 0, 0, 100), mk(1, 0, 0, 200)};
        memory_tiers_assign(x, ELEMENTSOF(x));
        ok(x[0].memory.tier >= 0 && x[0].memory.tier != x[1].memory.tier && !x[0].memory.kinds && !x[1].memory.kinds,
           "latency over 10%% apart: two tiers, no kind");

        /* Three unknown tiers: hwloc guesses nothing. */
        struct node y[] = {mk(0, 0, 10000, 0), mk(1, 0, 50000, 0), mk(2, 0, 300000, 0)};
        memory_tiers_assign(y, ELEMENTSOF(y));
        ok(!y[0].memory.kinds && !y[1].memory.kinds && !y[2].memory.kinds && y[2].memory.tier == 0,
           "three unknown tiers: no guess");
}

static void test_gpu_and_empty(void) {
        /* A superchip: CPU memory, GPU memory, and nodes the driver reserved without memory. */
        struct node v[] = {mk(0, 0, 0, 0), mk(1, MEMORY_GPU, 0, 0), mk(2, 0, 0, 0)};
        v[2].mem_total = 0;
        memory_tiers_assign(v, ELEMENTSOF(v));
        ok(v[0].memory.tier == 0 && v[0].memory.kinds == 0, "CPU memory: tier 0, no kind (nothing says DRAM)");
        ok(v[1].memory.tier == 1 && v[1].memory.kinds == MEMORY_GPU, "GPU memory: its own tier, its kind kept");
        ok(v[2].memory.tier == -1 && v[2].memory.kinds == 0, "a node without memory: no tier, no kind");

        /* One node: one tier nothing names. */
        struct node w[] = {mk(0, 0, 100000, 90)};
        memory_tiers_assign(w, 1);
        is_int(w[0].memory.tier, -1, "a plain host: no tier");
        /* DRAM known already (a GPU tier beside): no guess made over it. */
        struct node x[] = {mk(0, MEMORY_DRAM, 100000, 0), mk(1, 0, 300000, 0), mk(2, 0, 900000, 0)};
        memory_tiers_assign(x, ELEMENTSOF(x));
        ok(x[1].memory.kinds == 0 && x[2].memory.kinds == 0, "a DRAM tier already there: no guess");
}

int main(void) {
        test_figures();
        test_spm_guess();
        test_unknown_pair();
        test_gpu_and_empty();
        return done_testing();
}
