/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <libgen.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/unit-name.h"
#include "systemd/changeset.h"

const char *action_to_string(enum action a) {
        static const char *const names[] = {"unchanged", "created", "updated", "removed"};
        return names[a];
}

static void add(struct changeset *cs, const char *unit, char *path, char *old, char *new) {
        cs->v = xrealloc(cs->v, (cs->n + 1) * sizeof(*cs->v));
        struct change *c = &cs->v[cs->n++];
        *c = (struct change){.unit = xstrdup(unit), .path = path, .old = old, .new = new};
        if (!new)
                c->action = old ? ACTION_REMOVED : ACTION_UNCHANGED;
        else if (!old)
                c->action = ACTION_CREATED;
        else
                c->action = streq(old, new) ? ACTION_UNCHANGED : ACTION_UPDATED;
}

static bool is_ours(const char *content) {
        return content && startswith(content, DROPIN_HEADER);
}

/* The units of the unit directory that carry a drop-in numaplan wrote, sorted. */
static char **our_units(const char *unit_dir) {
        char **units = xmalloc0(sizeof(char *));
        size_t n = 0;
        struct dirent *de;
        DIR *d = opendir(unit_dir);

        if (!d)
                return units;
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                if (len < 3 || !streq(de->d_name + len - 2, ".d"))
                        continue;
                _cleanup_free_ char *unit = xstrndup(de->d_name, len - 2), *path = dropin_path(unit_dir, unit),
                                    *content = NULL;
                if (!unit_name_is_valid_service(unit, NULL) || read_file(path, &content) < 0 || !is_ours(content))
                        continue;
                units = xrealloc(units, (n + 2) * sizeof(char *));
                units[n++] = TAKE_PTR(unit);
                units[n] = NULL;
        }
        closedir(d);
        qsort(units, n, sizeof(char *), strcmp_ptr);
        return units;
}

/* A unit's drop-in path and current content (NULL when there is none). */
static int read_current(const char *unit_dir, const char *unit, char **ret_path, char **ret_old) {
        char *path = dropin_path(unit_dir, unit), *old = NULL;
        int r = read_file(path, &old);
        if (r < 0 && r != -ENOENT) {
                log_error_errno(r, "cannot read %s: %m", path);
                free(path);
                return r;
        }
        *ret_path = path;
        *ret_old = old;
        return 0;
}

int changeset_for_plan(const char *unit_dir, const char *marker, const struct topology *t, const struct config *c,
                       const struct plan *p, struct changeset *ret) {
        struct changeset cs = {0};

        for (size_t i = 0; i < p->n_replicas; i++) {
                const struct placement *pl = &p->replicas[i];
                char *path, *old;
                int r = read_current(unit_dir, pl->unit, &path, &old);
                if (r < 0) {
                        changeset_done(&cs);
                        return r;
                }
                if (old && !is_ours(old))
                        log_warning("%s was not written by numaplan; it will be replaced", path);
                add(&cs, pl->unit, path, old, dropin_render(t, c, p, pl, marker));
        }

        /* Replicas that left the configuration: only files numaplan wrote, known by their header. */
        _cleanup_strv_free_ char **units = our_units(unit_dir);
        for (size_t i = 0; units[i]; i++) {
                bool planned = false;
                for (size_t j = 0; j < p->n_replicas && !planned; j++)
                        planned = streq(p->replicas[j].unit, units[i]);
                if (planned)
                        continue;
                char *path, *old;
                int r = read_current(unit_dir, units[i], &path, &old);
                if (r < 0) {
                        changeset_done(&cs);
                        return r;
                }
                add(&cs, units[i], path, old, NULL);
        }
        *ret = cs;
        return 0;
}

int changeset_for_removal(const char *unit_dir, char *const *units, struct changeset *ret) {
        struct changeset cs = {0};
        _cleanup_strv_free_ char **ours = NULL;

        if (!units || !units[0])
                units = ours = our_units(unit_dir);
        for (size_t i = 0; units[i]; i++) {
                char *path, *old;
                int r = read_current(unit_dir, units[i], &path, &old);
                if (r < 0) {
                        changeset_done(&cs);
                        return r;
                }
                if (old && !is_ours(old)) {
                        log_warning("%s was not written by numaplan; left alone", path);
                        free(old);
                        old = NULL;
                }
                add(&cs, units[i], path, old, NULL);
        }
        *ret = cs;
        return 0;
}

bool changeset_changed(const struct changeset *cs) {
        for (size_t i = 0; i < cs->n; i++)
                if (cs->v[i].action != ACTION_UNCHANGED)
                        return true;
        return false;
}

static char *parent_of(const char *path) {
        _cleanup_free_ char *copy = xstrdup(path);
        return xstrdup(dirname(copy));
}

/* Puts back what step `upto` and the ones before it changed. Best effort: it logs what it could
 * not restore, since the error that brought us here is the one to return. Returns how many
 * files it could not restore. */
static size_t roll_back(const struct changeset *cs, char **staged, bool *done, size_t upto, bool *made_dir) {
        size_t failed = 0;

        for (size_t i = 0; i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                int r = 0;
                if (done[i] && i < upto) {
                        if (c->old) {
                                _cleanup_free_ char *dir = parent_of(c->path);
                                r = mkdir_parents(dir, 0755); /* a removal took its directory along */
                                if (r >= 0)
                                        r = write_file_atomic(c->path, c->old);
                        } else
                                r = unlink(c->path) < 0 ? -errno : 0;
                        if (r < 0) {
                                log_error_errno(r, "cannot restore %s: %m", c->path);
                                failed++;
                        }
                }
                if (staged[i])
                        (void) unlink(staged[i]);
                if (made_dir[i]) {
                        _cleanup_free_ char *dir = parent_of(c->path);
                        (void) rmdir(dir);
                }
        }
        return failed;
}

int changeset_commit(const struct changeset *cs) {
        char **staged = xmalloc0((cs->n + 1) * sizeof(char *));
        bool *done = xmalloc0(cs->n + 1), *made_dir = xmalloc0(cs->n + 1);
        int r = 0;
        size_t i;

        for (i = 0; i < cs->n; i++)
                remove_stale_temporaries(cs->v[i].path); /* of an apply killed before its renames */

        /* Stage: every new file, complete and fsync'ed, beside its target. */
        for (i = 0; r == 0 && i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                if (c->action != ACTION_CREATED && c->action != ACTION_UPDATED)
                        continue;
                _cleanup_free_ char *dir = parent_of(c->path);
                if (access(dir, F_OK) < 0) {
                        r = mkdir_parents(dir, 0755);
                        made_dir[i] = r == 0;
                }
                if (r == 0)
                        r = write_temporary(c->path, c->new, &staged[i]);
                if (r < 0)
                        log_error_errno(r, "cannot write beside %s: %m", c->path);
        }

        /* Commit: renames and unlinks, each atomic; on a failure, undo the ones made. */
        for (i = 0; r == 0 && i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                if (c->action == ACTION_UNCHANGED)
                        continue;
                r = c->new ? rename_durably(staged[i], c->path) : unlink_durably(c->path);
                if (r < 0) {
                        log_error_errno(r, "cannot %s %s: %m", c->new ? "replace" : "remove", c->path);
                        break;
                }
                free(staged[i]);
                staged[i] = NULL;
                done[i] = true;
                if (!c->new) {
                        /* An empty <unit>.d is harmless, but leave none behind, even if killed later. */
                        _cleanup_free_ char *dir = parent_of(c->path);
                        (void) rmdir(dir);
                }
        }
        if (r < 0) {
                size_t lost = roll_back(cs, staged, done, i + 1, made_dir);
                if (lost == 0)
                        log_error("nothing changed: every drop-in is as it was");
                else
                        log_error("%zu drop-in%s could not be restored (named above): the unit directory holds a mix "
                                  "of the old and the new plan; fix the cause and run numaplan apply again",
                                  lost, lost == 1 ? "" : "s");
        }

        for (i = 0; i < cs->n; i++)
                free(staged[i]);
        free(staged);
        free(done);
        free(made_dir);
        return r;
}

void changeset_done(struct changeset *cs) {
        for (size_t i = 0; i < cs->n; i++) {
                free(cs->v[i].unit);
                free(cs->v[i].path);
                free(cs->v[i].old);
                free(cs->v[i].new);
        }
        free(cs->v);
        *cs = (struct changeset){0};
}
