/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether a path that root will run or read on a replica's behalf, at every start of it, is beyond
 * an ordinary user's reach: nobody but root (or the user running numaplan, for a tree of their
 * own) can replace it or any directory above it. The rule sudo and sshd apply to their files. */

enum {
        TRUST_DIRECTORY = 1 << 0,  /* `path` is a directory root writes into: not even a sticky one will do */
        TRUST_MISSING_OK = 1 << 1, /* `path`, or directories above it, may not exist yet: root creates them */
};

struct untrusted {
        char *path; /* what is at fault: `path` itself or a directory above it, escaped for a message */
        char *why;  /* "belongs to uid 1000, not root", "is writable by group or others (mode 0775)", ... */
};

/* 1 when `path` is held by root alone; 0 when it is not, with *ret saying why; -errno when it
 * cannot be looked at (-ENOENT without TRUST_MISSING_OK). Follows the path as given and as it
 * resolves, so that neither a link nor what it points to can be another user's. */
int path_trusted(const char *path, unsigned flags, struct untrusted *ret);
void untrusted_done(struct untrusted *u);
