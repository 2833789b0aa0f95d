/* SPDX-License-Identifier: MIT */
#pragma once

/* What apply and remove share around the deploy step (stage/deploy.h): the check that a replayed
 * host goes nowhere near this host's systemd, before; the outcome shown, after. */

#include <stdbool.h>

struct deploy_outcome;
struct globals;
struct inputs;

struct report_options {
        bool check; /* what would be done: "would be" */
        bool diff;  /* a unified diff of every change (on stderr with `json`) */
        bool json;  /* {"changed", "units": [{"unit", "action"}], "hugepages", "interrupts"} on stdout */
};

/* The diff, then the report: one line a unit, "UNIT: [would be ]ACTION PATH[NOTE]", the pools and
 * the interrupts, or a sentence when nothing changed; with `json` the document instead (in
 * generator mode with "generator_dir" and each drop-in's path). As much as the outcome shows. */
void deploy_report(const struct deploy_outcome *o, const struct report_options *r);
/* Refuses, with EXIT_USAGE, to deploy a replayed host's plan (or, for remove, anything under a
 * replayed root) to this host's systemd or unit directories. */
int inputs_check_replay(const struct inputs *in, const struct globals *g, bool reload, const char *verb);
