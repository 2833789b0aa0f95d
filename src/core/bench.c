/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "basic/util.h"
#include "core/bench.h"

const char *bench_against_name(enum bench_against a) {
        return a == BENCH_UNPINNED ? "unpinned" : "remote";
}

int bench_against_from_string(const char *s, enum bench_against *ret) {
        if (streq(s, "remote"))
                *ret = BENCH_REMOTE;
        else if (streq(s, "unpinned"))
                *ret = BENCH_UNPINNED;
        else
                return -EINVAL;
        return 0;
}

const char *bench_arm_name(enum bench_arm arm, enum bench_against against) {
        return arm == BENCH_PLANNED ? "planned" : bench_against_name(against);
}

enum bench_arm bench_round_arm(size_t k) {
        /* 0 1 2 3 4 5 6 7 -> A B B A A B B A */
        return ((k + 1) / 2) % 2 ? BENCH_OTHER : BENCH_PLANNED;
}

void bench_round_add(struct bench_round *r, double ms, double tokens_per_s) {
        r->ms = xgrow(r->ms, r->n_ms, sizeof(*r->ms));
        r->ms[r->n_ms++] = ms;
        if (tokens_per_s >= 0) {
                r->tokens_per_s = xgrow(r->tokens_per_s, r->n_tokens, sizeof(*r->tokens_per_s));
                r->tokens_per_s[r->n_tokens++] = tokens_per_s;
        }
}

void bench_round_done(struct bench_round *r) {
        free(r->ms);
        free(r->tokens_per_s);
        free(r->discarded);
        *r = (struct bench_round){0};
}

static int compare_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

double bench_quantile(const double *sorted, size_t n, double q) {
        if (n == 0)
                return 0;
        double pos = q * (double) (n - 1);
        size_t lo = (size_t) pos;
        if (lo + 1 >= n)
                return sorted[n - 1];
        return sorted[lo] + (pos - (double) lo) * (sorted[lo + 1] - sorted[lo]);
}

static bool round_counts(const struct bench_round *r) {
        return !r->discarded && r->n_ms > 0;
}

void bench_arm_figures(const struct bench_round *rounds, size_t n, enum bench_arm arm, struct bench_arm_figures *ret) {
        struct bench_arm_figures f = {.tokens_per_s = -1};
        double *all = NULL, tokens = 0;
        size_t n_all = 0, n_tokens = 0;

        for (size_t i = 0; i < n; i++) {
                const struct bench_round *r = &rounds[i];
                if (r->arm != arm)
                        continue;
                if (r->discarded) {
                        f.discarded++;
                        continue;
                }
                f.rounds++;
                f.failed += r->failed;
                all = xrealloc(all, (n_all + r->n_ms + 1) * sizeof(*all));
                for (size_t k = 0; k < r->n_ms; k++)
                        all[n_all++] = r->ms[k];
                for (size_t k = 0; k < r->n_tokens; k++, n_tokens++)
                        tokens += r->tokens_per_s[k];
        }
        if (n_all)
                qsort(all, n_all, sizeof(*all), compare_double);
        f.requests = n_all;
        f.p50_ms = bench_quantile(all, n_all, 0.5);
        f.p99_ms = bench_quantile(all, n_all, 0.99);
        if (n_tokens)
                f.tokens_per_s = tokens / (double) n_tokens;
        free(all);
        *ret = f;
}

/* splitmix64: small, fast, and the same on every host, so that an interval can be made again. */
static uint64_t next_random(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static size_t draw(uint64_t *state, size_t n) {
        return (size_t) (next_random(state) % n);
}

/* The counted rounds of each arm, in order: pairs[i] holds the i-th of A and of B. */
static size_t pair_rounds(const struct bench_round *rounds, size_t n, size_t (*pairs)[N_BENCH_ARMS]) {
        size_t seen[N_BENCH_ARMS] = {0};
        for (size_t i = 0; i < n; i++) {
                if (!round_counts(&rounds[i]))
                        continue;
                enum bench_arm arm = rounds[i].arm;
                pairs[seen[arm]++][arm] = i;
        }
        return seen[BENCH_PLANNED] < seen[BENCH_OTHER] ? seen[BENCH_PLANNED] : seen[BENCH_OTHER];
}

/* One draw: pairs with replacement, answers within each round with replacement; the ratio of the
 * medians pooled per arm. */
static double resample_ratio(const struct bench_round *rounds, size_t (*pairs)[N_BENCH_ARMS], size_t n_pairs,
                             uint64_t *state, double **pool) {
        double median[N_BENCH_ARMS];
        for (int arm = 0; arm < N_BENCH_ARMS; arm++) {
                size_t n = 0;
                for (size_t p = 0; p < n_pairs; p++) {
                        const struct bench_round *r = &rounds[pairs[draw(state, n_pairs)][arm]];
                        for (size_t k = 0; k < r->n_ms; k++)
                                pool[arm][n++] = r->ms[draw(state, r->n_ms)];
                }
                qsort(pool[arm], n, sizeof(double), compare_double);
                median[arm] = bench_quantile(pool[arm], n, 0.5);
        }
        return median[BENCH_PLANNED] > 0 ? median[BENCH_OTHER] / median[BENCH_PLANNED] : 0;
}

void bench_ratio(const struct bench_round *rounds, size_t n, uint64_t seed, unsigned resamples,
                 struct bench_ratio *ret) {
        size_t(*pairs)[N_BENCH_ARMS] = xmalloc0((n + 1) * sizeof(*pairs));
        struct bench_arm_figures a, b;
        struct bench_ratio r = {.pairs = pair_rounds(rounds, n, pairs)};

        bench_arm_figures(rounds, n, BENCH_PLANNED, &a);
        bench_arm_figures(rounds, n, BENCH_OTHER, &b);
        r.known = r.pairs > 0 && a.p50_ms > 0 && resamples > 0;
        if (r.known) {
                /* A draw holds at most n_pairs times the largest round, of each arm. */
                size_t most = 0;
                for (size_t i = 0; i < n; i++)
                        most = rounds[i].n_ms > most ? rounds[i].n_ms : most;
                double *pool[N_BENCH_ARMS] = {xmalloc0((r.pairs * most + 1) * sizeof(double)),
                                              xmalloc0((r.pairs * most + 1) * sizeof(double))};
                double *ratios = xmalloc0(resamples * sizeof(double));
                uint64_t state = seed;
                for (unsigned i = 0; i < resamples; i++)
                        ratios[i] = resample_ratio(rounds, pairs, r.pairs, &state, pool);
                qsort(ratios, resamples, sizeof(double), compare_double);
                r.estimate = b.p50_ms / a.p50_ms;
                r.low = bench_quantile(ratios, resamples, 0.025);
                r.high = bench_quantile(ratios, resamples, 0.975);
                free(ratios);
                free(pool[0]);
                free(pool[1]);
        }
        free(pairs);
        *ret = r;
}

char *bench_sentence(const struct bench_words *w, const struct bench_ratio *r) {
        _cleanup_free_ char *where = NULL;

        if (w->against == BENCH_UNPINNED)
                where = xstrdup("with numaplan's drop-in lifted");
        else if (w->accelerator)
                where = xasprintf("on node %d, away from its %s", w->node, w->accelerator);
        else
                where = xasprintf("on node %d, away from its own node%s %s", w->node,
                                  strpbrk(strempty(w->home), ",-") ? "s" : "", strempty(w->home));
        if (!r->known)
                return xasprintf("%s: no ratio, since no round of each arm was answered", where);
        return xasprintf("%s, requests take %.2fx the time they take as planned, interval %.2f-%.2f%s", where,
                         r->estimate, r->low, r->high,
                         r->low <= 1 && r->high >= 1 ? ": the interval holds 1, no difference this bench can tell"
                                                     : "");
}
