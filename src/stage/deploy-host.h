/* SPDX-License-Identifier: MIT */
#pragma once

/* What a deployment does to this host itself: huge page pools, interrupts, model copies. */

#include <stdbool.h>

#include "stage/deploy-outcome.h"

/* The huge page pools of `plan` (NULL: none, which gives numaplan's pages back) into ret->pools:
 * reserved when the drop-ins go to systemd's directories of this (`live`) host, reckoned only
 * with `dry`; a test's tree or a replayed host reserves nothing, and says so. EXIT_OK, or
 * EXIT_ENV for a record that cannot be kept or a shortfall (said, pool by pool). */
int deploy_pools(const struct inputs *in, bool live, const struct plan *plan, bool dry, struct deploy_outcome *ret);
/* The interrupts of ret->targets (`want`: none gives numaplan's back) into ret->irqs, steered or
 * with `dry` reckoned, for systemd's unit directories of this (`live`) host only. EXIT_OK, or
 * EXIT_ENV: a record not kept, an interrupt not set. */
int deploy_irqs(const struct inputs *in, bool live, bool want, bool dry, struct deploy_outcome *ret);
/* The directories of model copies that `plan` (NULL: none) no longer reads, taken away when the
 * drop-ins are systemd's on this (`live`) host. */
void deploy_copies(const struct inputs *in, bool live, const struct plan *plan);
