/* SPDX-License-Identifier: MIT */
#pragma once

/* Containers that a unit's client (docker run, podman run) started in the engine's own cgroup:
 * where they are and how they were placed, asked of the engine over its API socket. */

#include "core/observed.h"

struct root;

/* Asks docker's socket, then podman's (below the root), about container cf->name: fills the
 * engine, ID, state, first PID, cpuset flags, its cgroup and that cgroup's effective cpuset (with
 * `mount`, the cgroup v2 mount point). -errno, with cf->error and cf->why, when no engine knows it. */
int container_inspect(struct root *root, const char *mount, struct container_facts *cf);

/* The engine's JSON description of a container (GET /containers/NAME/json) into `cf`. */
int container_parse_inspect(const char *text, struct container_facts *cf);
