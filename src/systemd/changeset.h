/* SPDX-License-Identifier: MIT */
#pragma once

/* What apply or remove will do to the unit directory, and doing it all or not at all. */

#include <stdbool.h>
#include <stddef.h>

struct config;
struct plan;
struct topology;

enum action { ACTION_UNCHANGED, ACTION_CREATED, ACTION_UPDATED, ACTION_REMOVED };

struct change {
        char *unit;
        char *path;
        char *old; /* current content; NULL when absent */
        char *new; /* wanted content; NULL to remove */
        enum action action;
};

struct changeset {
        struct change *v;
        size_t n;
};

/* Every planned drop-in (asserting `marker`), and the removal of numaplan's drop-ins for units no
 * longer planned. Logs; -errno. */
int changeset_for_plan(const char *unit_dir, const char *marker, const struct topology *t, const struct config *c,
                       const struct plan *p, struct changeset *ret);
/* The removal of numaplan's drop-ins: of `units`, or of all when `units` is empty. */
int changeset_for_removal(const char *unit_dir, char *const *units, struct changeset *ret);

bool changeset_changed(const struct changeset *cs);
/* The commit: stages every new file beside its target, then renames them into place (and unlinks
 * removed ones); if any step fails, restores every file already changed and removes what was
 * staged. Logs, naming any file it could not restore; -errno. */
int changeset_commit(const struct changeset *cs);
void changeset_done(struct changeset *cs);

const char *action_to_string(enum action a);
