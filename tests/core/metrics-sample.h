/* SPDX-License-Identifier: MIT */
#pragma once

/* A verify verdict to format: "inference@0.service" pinned on node 1 (anon, file and huge pages;
 * program code it shares with other units on node 0);
 * "llama\x2dserver@1.service" (a backslash in its name, as systemd escapes '-') on node 0 with a
 * failing memory-locality and most of its pages on node 1; "idle.service" not running, no pages. */

#include "basic/util.h"
#include "core/verify-metrics.h"

struct metrics_sample {
        struct check checks[3][N_CHECKS];
        struct page_tally pages[3];
        struct cpuset nodes[3], cpus[3];
        struct metrics_unit units[3];
};

static inline void metrics_sample_init(struct metrics_sample *s) {
        static const char *const names[] = {"inference@0.service", "llama\\x2dserver@1.service", "idle.service"};
        *s = (struct metrics_sample){0};
        for (unsigned u = 0; u < 3; u++) {
                for (unsigned c = 0; c < N_CHECKS; c++)
                        s->checks[u][c].ok = u == 0 || (u == 1 && c != CHECK_MEMORY_LOCALITY);
                s->pages[u].base_kb = 4;
                cpuset_parse_list(u == 1 ? "0" : "1", &s->nodes[u]);
                cpuset_parse_list(u == 1 ? "0-7" : "8-15", &s->cpus[u]);
                s->units[u] = (struct metrics_unit){
                        .unit = names[u],
                        .ok = u == 0,
                        .checks = s->checks[u],
                        .pages = &s->pages[u],
                        .nodes = &s->nodes[u],
                        .cpus = &s->cpus[u],
                        .min_local_bp = u == 1 ? 9900 : 9500,
                };
        }
        /* inference@0: 1000 anon, 500 file, 512 huge on node 1; 10 anon and 200 pages of shared
         * program code on node 0. */
        s->pages[0].anon[1] = 1000, s->pages[0].file[1] = 500, s->pages[0].huge[1] = 512;
        s->pages[0].anon[0] = 10, s->pages[0].file[0] = 200, s->pages[0].shared[0] = 200;
        s->pages[0].total[1] = 2012, s->pages[0].total[0] = 210;
        /* llama: 100 anon on node 0, 300 file on node 1. */
        s->pages[1].anon[0] = 100, s->pages[1].file[1] = 300;
        s->pages[1].total[0] = 100, s->pages[1].total[1] = 300;
}
