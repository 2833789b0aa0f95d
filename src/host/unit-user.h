/* SPDX-License-Identifier: MIT */
#pragma once

/* The user a unit runs its server as, for `prepare`, which its drop-in runs as root
 * (ExecStartPre=+): it opens the model's files as that user, so that it reads only what the
 * server could read, and keeps of root's powers only CAP_FOWNER, which mincore(2) asks of a
 * process that neither owns nor may write a file before it says which of its pages are cached.
 * Moving pages that only this process maps (MPOL_MF_MOVE) needs no capability. */

#include <sys/types.h>

struct unit_user {
        char *name;
        uid_t uid;
        gid_t gid;
        gid_t *groups; /* supplementary, from the group database */
        size_t n_groups;
};

void unit_user_done(struct unit_user *u);
/* `name` in the user database (User=, or a DynamicUser= that nss-systemd resolves). -ENOENT when
 * it has no such user. */
int unit_user_lookup(const char *name, struct unit_user *ret);
/* A DynamicUser= that the database does not know (no nss-systemd): systemd allocated `uid`, with
 * a group of the same number and no other. */
void unit_user_dynamic(const char *name, uid_t uid, struct unit_user *ret);
/* Becomes that user for good (groups, GID, UID, all three of each), with CAP_FOWNER alone in the
 * permitted, effective and bounding sets, no ambient capabilities and no new privileges. -errno:
 * the process must not go on. */
int unit_user_become(const struct unit_user *u);
