/* SPDX-License-Identifier: MIT */
#pragma once

/* Where a replica's server runs: the processes of its unit's cgroup and of those below it
 * (Delegate=, podman run --cgroups=split); for a unit that only runs a container's client
 * (docker run), the processes of the container the replica names instead. verify checks, and
 * migrate moves, the server where it runs, never its client in its stead. */

#include "core/observed.h"
#include "core/verify-checks.h"

struct placement;
struct root;

/* Fills tf (processes and their cgroups; tf->readable false when the unit's cgroup cannot be
 * listed) and cf (what was seen of a container client and the engine's answer). */
void server_processes(struct root *root, const char *mount, const char *control_group, const struct placement *pl,
                      struct task_facts *tf, struct container_facts *cf);
