/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether systemd loaded numaplan's drop-in for a unit, from the unit's DropInPaths (in the
 * order systemd applies them): the one answer status and verify both give. A file is told by
 * its device and inode, so that a link to the unit directory, or another spelling of its path,
 * is the same file; a drop-in of the same name that systemd loaded instead is another file (one
 * in a directory of higher priority masks ours). */

struct dropin_seen {
        int index;           /* ours among the paths, -1 when systemd did not load it */
        const char *instead; /* a path of the same name systemd loaded in its place, or NULL */
};

void dropin_seen(char *const *dropin_paths, const char *ours, struct dropin_seen *ret);
