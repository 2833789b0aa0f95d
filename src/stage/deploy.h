/* SPDX-License-Identifier: MIT */
#pragma once

/* The step after the plan, one for every command that changes the host: apply (and its --check,
 * and the boot step's apply --boot), remove, and the generator. It takes the inputs and returns
 * one outcome: what changed, or with `check` would, of numaplan's drop-ins (the replicas' and
 * irqbalance's), the huge page pools and the interrupts; on the way it takes the lock, finishes
 * an interrupted commit, refuses what root must not run, commits, reloads systemd and restarts
 * what changed, keeps the records, prunes the model copies and lets the replicas start (apply's
 * boot marker, or the generator's marker). What it does is said as it goes (stderr, the journal);
 * the verbs render the outcome, and the generator logs it. */

#include <stdbool.h>

#include "stage/deploy-outcome.h"

/* The boot step's first act (apply --boot), before the configuration is read: apply's boot marker
 * made, which keeps the replicas from starting until an apply succeeds and removes it. EXIT_OK,
 * or EXIT_ENV said. */
int deploy_boot_begin(const struct globals *g, bool runtime);
/* Runs the step for `in` (loaded for apply and the generator, its directories only for remove).
 * Returns the outcome's exit code, and the outcome, which holds whatever was found before a
 * failure. */
int deploy_run(const struct inputs *in, const struct deploy_options *o, struct deploy_outcome *ret);
