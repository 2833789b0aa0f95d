/* SPDX-License-Identifier: MIT */
#pragma once

#include "core/config.h"
#include "core/placement.h"
#include "core/topology.h"
#include "core/warnings.h"

/* The step of plan_compute() that gives every replica its network adapters (nics =,
 * core/planner-nics.c): nics = auto, the nearest to its accelerators in the PCIe tree (the same
 * switch, then the same root port, the same host bridge, the same node), none from another node;
 * a CPU-only replica, those of its node; a list, the adapters whose interfaces it names. A name no
 * adapter has is an error at its line (-EINVAL, *err) once every adapter's interfaces are named;
 * before that (at boot) the start resolves it. nic-remote when none sits on a replica's node. */
int plan_nics(const struct topology *t, const struct config *c, struct plan *p, struct warnings *w,
              struct error_at *err);
