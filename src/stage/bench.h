/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan bench, in place: the replica as its drop-in places it against the other arm
 * (core/bench-arm.h), in rounds A B B A ..., each a restart of its unit with the arm's runtime
 * drop-in (or without), a wait for it to answer, a warm-up request and timed ones; then the unit
 * restored, whatever happened: placed by its own drop-in, running if it ran, stopped if not. */

#include <stdbool.h>
#include <stddef.h>

#include "core/bench-arm.h"
#include "core/bench.h"
#include "stage/inputs.h"

/* Where a bench is, for a progress line. */
struct bench_step {
        size_t round, n_rounds; /* from 0 */
        enum bench_arm arm;
        const char *doing; /* "starting", "waiting for it to answer", "timing" */
        unsigned request, n_requests;
        double left_s; /* about how long the rest takes; < 0 while unknown */
};

struct bench_options {
        enum bench_against against;
        unsigned rounds;                                              /* of each arm */
        unsigned requests;                                            /* timed, each round */
        void (*progress)(const struct bench_step *s, void *userdata); /* NULL: none */
        void *userdata;
};

struct bench_report {
        const struct placement *pl;
        struct bench_place other;
        struct bench_round *rounds; /* 2 * rounds of each arm, as far as it got */
        size_t n_rounds;
        bool was_running;
        bool restored; /* placed by its own drop-in, running as it was, or stopped */
        char *left;    /* what is not restored, and what to do; NULL when restored */
        int signal;    /* the signal that ended it early; 0 */
        double seconds;
};

/* Benches the replica `pl` of `in`. Returns an exit code: EXIT_OK (done, restored), EXIT_FAILED
 * (refused: the running replica fails verify's placement checks, said; or no round of each arm
 * was answered), EXIT_USAGE (no warmup-url, no node to be remote on: nothing done), EXIT_ENV
 * (systemd, libcurl, a bench's drop-in already there; or not restored: *ret says what is left),
 * 128 + the signal's number when one ended it and all was restored. */
int bench_replica(const struct inputs *in, const struct placement *pl, const struct bench_options *o,
                  struct bench_report *ret);
void bench_report_done(struct bench_report *r);
/* "/run/systemd/system/UNIT.d/" BENCH_DROPIN_NAME */
char *bench_dropin_path(const char *unit);
