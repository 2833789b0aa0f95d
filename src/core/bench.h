/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan bench's arithmetic: the order of its rounds (A B B A A B B A ...), the latencies'
 * percentiles, each arm's figures, the ratio of the other arm's median to the planned one's with
 * its interval (a paired bootstrap over rounds, seeded: the same answers give the same
 * interval), and the sentence that says what the ratio means. Pure: numbers in, numbers out. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The two arms: A, the replica as its drop-in places it; B, the arm it is measured against. */
enum bench_arm { BENCH_PLANNED, BENCH_OTHER, N_BENCH_ARMS };
/* What B is: the replica on the node farthest from its accelerators, or with numaplan's drop-in
 * lifted. */
enum bench_against { BENCH_REMOTE, BENCH_UNPINNED };

const char *bench_against_name(enum bench_against a);
/* "remote", "unpinned" (-EINVAL otherwise). */
int bench_against_from_string(const char *s, enum bench_against *ret);
/* The arm's name in the report: "planned", or the against's. */
const char *bench_arm_name(enum bench_arm arm, enum bench_against against);

/* Which arm round k (from 0, of 2N) runs: A B B A, again and again. Each arm runs first as often
 * as second, so a drift over the bench (a warming host, a filling page cache) weighs on both. */
enum bench_arm bench_round_arm(size_t k);

/* One round: its arm, and its timed requests, each answered (with its time) or failed. */
struct bench_round {
        enum bench_arm arm;
        double *ms; /* the answered requests' times */
        size_t n_ms;
        double *tokens_per_s; /* of the answers that said how many tokens they produced */
        size_t n_tokens;
        unsigned failed;
        char *discarded; /* why its numbers are left out (its unit did not reach the arm's placement,
                          * did not start, did not answer); NULL when they count */
};
void bench_round_add(struct bench_round *r, double ms, double tokens_per_s);
void bench_round_done(struct bench_round *r);

/* The q-quantile (0..1) of n sorted values, interpolated between the two nearest ranks (as
 * numpy's default); 0 for none. */
double bench_quantile(const double *sorted, size_t n, double q);

/* An arm's figures over the rounds that count. */
struct bench_arm_figures {
        double p50_ms, p99_ms;
        double tokens_per_s; /* the mean over the answers that said; < 0 when none did */
        size_t requests;     /* answered */
        size_t failed;
        size_t rounds, discarded;
};
void bench_arm_figures(const struct bench_round *rounds, size_t n, enum bench_arm arm, struct bench_arm_figures *ret);

/* The other arm's median over the planned one's, and its 95% interval. */
struct bench_ratio {
        bool known; /* a pair of rounds, one of each arm, both with answers */
        double estimate, low, high;
        size_t pairs; /* the rounds paired: the i-th round of one arm with the i-th of the other */
};
#define BENCH_RESAMPLES 2000
#define BENCH_SEED UINT64_C(0x6e756d61706c616e) /* "numaplan" */
/* The i-th counted round of each arm makes a pair (neighbours in A B B A). Each of `resamples`
 * draws takes as many pairs as there are, with replacement, and from each round of a pair drawn
 * as many answers as it has, with replacement (so a bench of few rounds still shows the spread
 * within them); the ratio of the pooled medians. The interval is the draws' 2.5th and 97.5th
 * percentiles; the estimate, the ratio of all answers' medians. */
void bench_ratio(const struct bench_round *rounds, size_t n, uint64_t seed, unsigned resamples,
                 struct bench_ratio *ret);

/* What the sentence says: which arm B was, where, and of what. */
struct bench_words {
        enum bench_against against;
        int node;                /* remote: the node it ran on */
        const char *accelerator; /* "GPU", "GPUs", "accelerator", ...; NULL for a replica without */
        const char *home;        /* its own nodes, "1" or "0-1": said of a replica without accelerators */
};
/* "on node 0, away from its GPU, requests take 1.41x the time they take as planned, interval
 * 1.30-1.52", and what an interval that holds 1 means. */
char *bench_sentence(const struct bench_words *w, const struct bench_ratio *r);
