/* SPDX-License-Identifier: MIT */
#pragma once

/* Containers that a unit's client (docker run, podman run) started in the engine's own cgroup:
 * where they are and how they were placed, asked of the engine over its API socket. */

#include "core/observed.h"

struct root;

/* Asks docker's socket, then podman's (below the root), about container cf->name: fills the
 * engine, ID, state, first PID, cpuset flags, its own cgroup (the one the engine names for its ID,
 * which the PID must run in) and that cgroup's effective cpuset (with `mount`, the cgroup v2 mount
 * point). -errno, with cf->error and cf->why, when no engine knows it or its answer does not hold
 * up. */
int container_inspect(struct root *root, const char *mount, struct container_facts *cf);

/* Docker's and podman's container IDs: 64 hex digits. */
#define CONTAINER_ID_LEN 64

/* The engine's JSON description of a container (GET /containers/NAME/json) into `cf`: Id, State
 * (Running, Pid) and HostConfig's CpusetCpus and CpusetMems, each checked for its type and range.
 * -EBADMSG with cf->why saying which field fails. */
int container_parse_inspect(const char *text, struct container_facts *cf);
/* The cgroup the engine gives container `id`, within `cgroup` (a process's): the path down to and
 * including that cgroup, in *ret. -ESRCH when `cgroup` is not in it. */
int container_scope(const char *engine, const char *id, const char *cgroup, char **ret);
