/* SPDX-License-Identifier: MIT */
#pragma once

/* What `prepare` settles before it touches a model: that --nodes names nodes this host has, and,
 * run as root for a unit with User= or DynamicUser=, whose rights it reads the files with. */

#include <stdint.h>

#include "basic/cpuset.h"
#include "stage/globals.h"

/* --nodes LIST, checked as a list and against the host's nodes (through the root): EXIT_OK with
 * the nodes in *ret, else EXIT_USAGE after saying which value, or which node, is wrong. */
int prepare_nodes(const struct globals *g, const char *value, struct cpuset *ret);
/* What the nodes have free together (their meminfo's MemFree), through the root; -errno when one's
 * cannot be read. */
int prepare_nodes_free(const struct globals *g, const struct cpuset *nodes, uint64_t *ret);

/* For a unit with User= or DynamicUser=, systemd gives its commands, those run as root with '+'
 * too, that user's name in $USER: prepare becomes that user (host/unit-user.h) before it opens
 * any file. A dynamic user that the user database does not know (no nss-systemd) is asked of
 * systemd, which allocated it. 0 (as that user, or as root without $USER or with root's), or
 * -errno after saying that nothing is prepared. */
int prepare_become_unit_user(void);
/* Its two steps, for the copy (model-copies), which mounts as root first: 1 and the user in *ret,
 * 0 for none to become, -errno (said); then becoming it, -errno said. */
struct unit_user;
int prepare_unit_user(struct unit_user *ret);
int prepare_become(const struct unit_user *u);
