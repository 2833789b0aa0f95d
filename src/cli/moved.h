/* SPDX-License-Identifier: MIT */
#pragma once

/* What `prepare` and `migrate` say they moved: pages and bytes by node, what could not move and
 * why, in words and in JSON. */

#include <json-c/json.h>

#include "core/migrate.h"

/* "moved 2048 pages (8.0 MiB) in 0.012 s: node 0 -> 1: 2048; 3 pages did not move (pinned: 1,
 * EBUSY: 2); ..." and why pinned pages stay. */
char *moved_summary(const struct migrate_stats *st, double seconds);
/* {"pages": N, "bytes": N, "from": {"0": N}, "to": {"1": N}, "failed": {"pages": N, "pinned_pages":
 * N, "by_errno": {"EBUSY": N}}, "seconds": S, "resident_pages": N, "on_plan_before_pages": N} */
json_object *moved_json(const struct migrate_stats *st, double seconds);
/* Seconds of CLOCK_MONOTONIC. */
double moved_now(void);
