/* SPDX-License-Identifier: MIT */
#pragma once

/* verify's verdict in Prometheus' text exposition format, for node_exporter's textfile collector
 * (`numaplan verify --metrics FILE`). Pure: the caller says when the run was and how long it took,
 * and writes the text. The metric names are stable (numaplan(8), METRICS). */

#include <stdbool.h>
#include <stddef.h>

/* One replica unit's verdict, as verify reached it. */
struct metrics_unit {
        const char *unit;
        bool ok;
        const struct check *checks; /* N_CHECKS of them */
        const struct page_tally *pages;
        const struct cpuset *nodes, *cpus; /* planned */
        unsigned min_local_bp;
        const struct rank_facts *ranks; /* the processes that drive its accelerators; NULL: none */
};

struct metrics_run {
        bool success;       /* a verdict for every unit (exit 0 or 1); false: none (exit 2 or 3) */
        double timestamp_s; /* when the run started, seconds since the epoch */
        double duration_s;
        /* The host as verify read it, its tuning included, and the run's warnings: the facts that
         * change at run time. NULL when the host was not read (a bad configuration). */
        const struct topology *host;
        const struct warnings *warnings;
};

/* The whole file. Without success only the run's own metrics are there, and the host's. */
char *metrics_format(const struct metrics_run *run, const struct metrics_unit *units, size_t n);

/* Every metric name metrics_format() may write, NULL-terminated (for the docs' test). */
extern const char *const metrics_names[];
