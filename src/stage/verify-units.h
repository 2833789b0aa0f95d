/* SPDX-License-Identifier: MIT */
#pragma once

/* What verify knows of each replica it checks, and its verdict: systemd's view over D-Bus, its
 * drop-in, the server's processes and tasks (the unit's cgroups, or its container's), a warm-up
 * request and the nodes' counters during it, where its pages and locked and pinned pages are,
 * its devices' interrupts, each judged by verify's checks (core/verify-checks.h). The verb
 * renders it: a table, TAP, JSON, the journal, metrics. */

#include <stdbool.h>
#include <stddef.h>

#include "core/numa-maps.h"
#include "core/rank-locality.h"
#include "core/verify-checks.h"
#include "stage/inputs.h"

struct unit_report {
        const struct placement *pl;
        struct check checks[N_CHECKS];
        bool ok;
        struct page_tally pages;
        struct numastat *during; /* each node's counters' increments during the warm-up */
        size_t n_numastat;
        char *summary;
        struct container_facts container;
        struct task_facts tasks;
        struct rank_facts ranks; /* which of its processes drives which accelerator, and their pages */
};

struct verify_options {
        bool no_warmup; /* no warm-up request: the pages as they are */
};

/* Every replica of `sel` (n of them) gathered and judged: EXIT_OK with one report each in *ret,
 * in order; EXIT_ENV when systemd cannot be asked (said), the reports as far as they got. */
int verify_units(const struct inputs *in, const struct placement *const *sel, size_t n, const struct verify_options *o,
                 struct unit_report **ret);
void unit_reports_free(struct unit_report *v, size_t n);
