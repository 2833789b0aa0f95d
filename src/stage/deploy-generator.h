/* SPDX-License-Identifier: MIT */
#pragma once

/* The deploy step in generator mode, and the generator's own run (stage/deploy.h). */

#include "stage/deploy-outcome.h"

/* Generator mode: apply (the generator's directory checked, apply's own drop-ins and state
 * handed over, irqbalance's drop-in among apply's) and remove (the units recorded for the
 * generator to leave out). `irqbalance` is taken. */
int deploy_generator_apply(const struct inputs *in, const struct deploy_options *o, char *irqbalance,
                           struct deploy_outcome *ret);
int deploy_generator_remove(const struct inputs *in, const struct deploy_options *o, struct deploy_outcome *ret);
/* The generator's own run: the plan's drop-ins into its directory, then its marker. */
int deploy_generate(const struct inputs *in, struct deploy_outcome *ret);
/* The unit file `name` of `unit` (in `<dir>/<unit>.d/`) written, as every unit text is checked
 * first (control bytes, size). Logs; -errno. */
int deploy_write_unit_file(const char *dir, const char *unit, const char *name, const char *text);
