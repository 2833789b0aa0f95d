/* SPDX-License-Identifier: MIT */
#pragma once

#include "core/verify-metrics.h"

/* Writes verify's metrics to `path` (for node_exporter's textfile collector, a *.prom file in its
 * directory): a temporary beside it, then renamed over it, so that a scrape never reads half a
 * file. The directory must exist. Logs and returns -errno. */
int metrics_write_file(const char *path, const struct metrics_run *run, const struct metrics_unit *units, size_t n);

/* Now, in seconds: since the epoch (CLOCK_REALTIME) and on CLOCK_MONOTONIC. */
double now_realtime_s(void);
double now_monotonic_s(void);
