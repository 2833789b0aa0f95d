/* SPDX-License-Identifier: MIT */
#pragma once

/* The placement: topology and configuration in, plan out. Pure: no I/O, no printing, no globals,
 * so the same inputs give byte-identical plans and the tests can run it on any host. The rules
 * of numaplan.conf(5), PLACEMENT, are the contract. */

#include "core/config.h"
#include "core/placement.h"
#include "core/topology.h"
#include "core/warnings.h"

/* Returns 0 and the plan, adding what it decided for the admin to `w`; or -EINVAL with *err
 * naming the replica, the line of the key that decided it, and the reason in numbers. */
int plan_compute(const struct topology *t, const struct config *c, struct warnings *w, struct plan **ret,
                 struct error_at *err);
