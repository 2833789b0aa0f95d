/* SPDX-License-Identifier: MIT */
#pragma once

/* The end that apply and remove share: show or write the changes, tell systemd, report. */

#include <stdbool.h>

struct changeset;

struct commit_options {
        bool check;     /* report what would change; exit 1 when something would */
        bool diff;      /* unified diff of every change */
        bool json;      /* {"changed":..., "units": [...]} on stdout */
        bool no_reload; /* leave systemd alone */
        bool restart;   /* restart running units whose drop-in changed */
        bool marker;    /* create APPLIED_MARKER (apply) */
};

/* Returns the exit code. */
int commit_changes(const struct changeset *cs, const struct commit_options *o);
