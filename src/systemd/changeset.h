/* SPDX-License-Identifier: MIT */
#pragma once

/* What apply or remove will do to the unit directory, and doing it all or not at all. Every file
 * is reached through the unit directory's descriptor, never through a symbolic link: a link (or a
 * FIFO, a device) where numaplan's drop-in or its <unit>.d belongs is someone else's, and apply
 * refuses to touch it; remove leaves it alone. */

#include <stdbool.h>
#include <stddef.h>

struct config;
struct dropin_env;
struct plan;
struct topology;

enum action { ACTION_UNCHANGED, ACTION_CREATED, ACTION_UPDATED, ACTION_REMOVED };

struct change {
        char *unit;
        char *dir;  /* "<unit>.d", relative to the unit directory */
        char *path; /* "<unit-dir>/<unit>.d/50-numaplan.conf", for messages and reports */
        char *old;  /* current content; NULL when absent */
        char *new;  /* wanted content; NULL to remove */
        enum action action;
        bool helper; /* not a replica's: irqbalance's, which restarts whenever its drop-in changes */
};

struct changeset {
        bool removal; /* of changeset_for_removal(): an unchanged unit has no drop-in of numaplan's */
        char *unit_dir;
        struct change *v;
        size_t n;
};

/* Every planned drop-in (asserting `marker`), and the removal of numaplan's drop-ins for units no
 * longer planned. Logs; -errno (-ELOOP: a link where a drop-in belongs). */
int changeset_for_plan(const char *unit_dir, const struct dropin_env *env, const struct topology *t,
                       const struct config *c, const struct plan *p, struct changeset *ret);
/* Sets the drop-in of `unit`, a unit no replica is (irqbalance's), to `text` (taken; NULL: none of
 * numaplan's), in place of what the set holds for it. A file of that name that is not numaplan's
 * is the admin's: -EEXIST with `text`, left alone without. Says the unit's other drop-ins that set
 * ExecStart= too. Logs; -errno as changeset_for_plan(). */
int changeset_put(struct changeset *cs, const char *unit, char *text);
/* Whether `text` may be written into the unit file `path`: no control byte but newlines, only
 * UTF-8, no more than DROPIN_SIZE_MAX. Logs; -EINVAL, -E2BIG when not. */
int unit_text_check(const char *path, const char *text);
/* The removal of numaplan's drop-ins: of `units`, or of all when `units` is empty. */
int changeset_for_removal(const char *unit_dir, char *const *units, struct changeset *ret);
/* The units of the unit directory that carry a drop-in numaplan wrote, sorted, NULL-terminated. */
char **changeset_our_units(const char *unit_dir);

bool changeset_changed(const struct changeset *cs);
size_t changeset_count(const struct changeset *cs, enum action a);
void changeset_done(struct changeset *cs);
#define _cleanup_changeset_ _cleanup_(changeset_done)
const char *action_to_string(enum action a);

/* The commit: stages every new file beside its target, records the whole change in a journal in
 * the unit directory, then renames the files into place (and unlinks removed ones). If a step
 * fails, every file already changed is restored; if the process dies midway, the journal lets
 * changeset_recover() finish the change. Logs, naming any file it could not restore; -errno. */
int changeset_commit(const struct changeset *cs);
/* The commit into a directory that holds none of the set's files and is made anew at every boot,
 * in memory (a generator's, which systemd empties before each run): every file staged beside its
 * place and then renamed into it, with neither journal nor fsync. What a stopped commit leaves is
 * whole drop-ins and temporaries; the generator's marker, written last, is what the units wait
 * for. -EEXIST, having written nothing, when a change is not a creation. Logs; -errno. */
int changeset_commit_fresh(const struct changeset *cs);
/* Finishes (or, if it was being undone, undoes) a commit that was interrupted, and removes the
 * temporaries of killed runs. For every command that writes, before it reads the directory.
 * Returns 1 when there was something to finish, 0 when not, -errno. */
int changeset_recover(const char *unit_dir);
/* Whether an interrupted commit waits for changeset_recover() (for verify and status). */
bool changeset_interrupted(const char *unit_dir);
#define CHANGESET_JOURNAL ".numaplan-journal"
