/* SPDX-License-Identifier: MIT */
/* The commit of a changeset, and its journal.
 *
 * Each file is replaced atomically, but a set of files is not: a process killed between two
 * renames would leave some drop-ins of the new plan beside some of the old. So before the first
 * rename the commit writes a journal into the unit directory (".numaplan-journal", hidden from
 * systemd): every change, the name of its staged file and the old content. The next command that
 * writes reads it first and finishes the change (staged files still there are renamed, removals
 * done); a commit that failed and was being undone when it died is undone instead. Both are
 * idempotent, so a kill during recovery is recovered the same way. */

#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "systemd/changeset.h"

#define JOURNAL_SIZE_MAX (64U << 20) /* it holds what it replaces: even an old irqbalance drop-in */

/* One change as the journal holds it. */
struct entry {
        const char *dir;    /* "<unit>.d" */
        const char *staged; /* the staged file in dir; NULL for a removal */
        const char *old;    /* the content to restore; NULL: there was no file */
        bool made_dir;      /* the commit created dir */
        bool done;          /* renamed or unlinked by this process (not in the journal) */
};

static char *journal_text(const struct entry *e, size_t n, bool undo) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *changes = json_object_new_array();

        for (size_t i = 0; i < n; i++) {
                json_object *c = json_object_new_object();
                json_object_object_add(c, "dir", json_object_new_string(e[i].dir));
                json_object_object_add(c, "staged", json_string_or_null(e[i].staged));
                json_object_object_add(c, "old", json_string_or_null(e[i].old));
                json_object_object_add(c, "made_dir", json_object_new_boolean(e[i].made_dir));
                json_object_array_add(changes, c);
        }
        json_object_object_add(o, "version", json_object_new_int(1));
        json_object_object_add(o, "mode", json_object_new_string(undo ? "undo" : "forward"));
        json_object_object_add(o, "changes", changes);
        return xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

static int write_journal(int udfd, const struct entry *e, size_t n, bool undo) {
        _cleanup_free_ char *text = journal_text(e, n, undo);
        return write_file_atomic_at(udfd, CHANGESET_JOURNAL, text);
}

static void remove_dir_if_empty(int udfd, const char *dir) {
        (void) unlinkat(udfd, dir, AT_REMOVEDIR); /* fails, as it should, when not empty */
}

/* Puts one change back as it was. `done`: the change may have been made (always so in a
 * recovery, which cannot tell); a change not made needs only its staged file removed. */
static int undo_one(int udfd, const struct entry *e, bool done) {
        _cleanup_close_ int dfd = open_dir_at(udfd, e->dir, done && e->old != NULL, NULL);
        int r = 0;

        if (dfd == -ENOENT)
                return 0; /* nothing was made there */
        if (dfd < 0)
                return dfd;
        if (e->staged)
                (void) unlinkat(dfd, e->staged, 0);
        if (done && e->old)
                r = write_file_atomic_at(dfd, DROPIN_NAME, e->old);
        else if (done && unlinkat(dfd, DROPIN_NAME, 0) < 0 && errno != ENOENT)
                r = -errno;
        if (r >= 0 && e->made_dir) {
                closep(&dfd);
                remove_dir_if_empty(udfd, e->dir);
        }
        return r;
}

/* Takes one change all the way. */
static int finish_one(int udfd, const struct entry *e) {
        _cleanup_close_ int dfd = open_dir_at(udfd, e->dir, false, NULL);

        if (dfd == -ENOENT)
                return e->staged ? -ENOENT : 0; /* a removal already done, dir and all */
        if (dfd < 0)
                return dfd;
        if (e->staged) {
                if (renameat(dfd, e->staged, dfd, DROPIN_NAME) < 0 && errno != ENOENT)
                        return -errno; /* ENOENT: renamed before the kill */
                return fsync(dfd) < 0 ? -errno : 0;
        }
        if (unlinkat(dfd, DROPIN_NAME, 0) < 0 && errno != ENOENT)
                return -errno;
        closep(&dfd);
        remove_dir_if_empty(udfd, e->dir);
        return 0;
}

/* Temporaries of runs killed while staging (before any journal) are never anyone's: remove them
 * in every <unit>.d, and a directory they alone kept. */
static void remove_stale(int udfd) {
        _cleanup_closedir_ DIR *d = fd_opendir(openat(udfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));

        for (struct dirent *de; d && (de = readdir(d));) {
                size_t len = strlen(de->d_name);
                if (len < 3 || !streq(de->d_name + len - 2, ".d"))
                        continue;
                _cleanup_close_ int dfd = open_dir_at(udfd, de->d_name, false, NULL);
                if (dfd < 0)
                        continue; /* a link, or gone: not ours to clean */
                _cleanup_closedir_ DIR *s = fd_opendir(openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
                bool removed = false, other = false;
                for (struct dirent *e; s && (e = readdir(s));) {
                        if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                                continue;
                        if (startswith(e->d_name, ".#" DROPIN_NAME ".") && unlinkat(dfd, e->d_name, 0) == 0)
                                removed = true;
                        else
                                other = true;
                }
                if (removed && !other)
                        remove_dir_if_empty(udfd, de->d_name);
        }
        remove_stale_temporaries_at(udfd, CHANGESET_JOURNAL);
}

int changeset_recover(const char *unit_dir) {
        _cleanup_close_ int udfd = open_dir_at(AT_FDCWD, unit_dir, false, NULL);
        _cleanup_free_ char *text = NULL;
        int r;

        if (udfd == -ENOENT)
                return 0;
        if (udfd < 0)
                return log_error_errno(udfd, "cannot open %s: %m", unit_dir);
        r = read_regular_at(udfd, CHANGESET_JOURNAL, JOURNAL_SIZE_MAX, &text);
        if (r == -ENOENT) {
                remove_stale(udfd);
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "cannot read %s/" CHANGESET_JOURNAL ": %m", unit_dir);

        _cleanup_json_ json_object *o = json_tokener_parse(text);
        json_object *mode, *changes;
        if (!o || !json_object_object_get_ex(o, "mode", &mode) || !json_object_object_get_ex(o, "changes", &changes) ||
            !json_object_is_type(changes, json_type_array))
                return log_error_errno(-EBADMSG,
                                       "%s/" CHANGESET_JOURNAL " is not a journal numaplan can read: check the "
                                       "drop-ins, then delete it",
                                       unit_dir);
        bool undo = streq(json_object_get_string(mode), "undo");
        size_t n = json_object_array_length(changes), failed = 0;
        for (size_t i = 0; i < n; i++) {
                json_object *c = json_object_array_get_idx(changes, i), *v;
                struct entry e = {0};
                if (json_object_object_get_ex(c, "dir", &v))
                        e.dir = json_object_get_string(v);
                if (json_object_object_get_ex(c, "staged", &v) && !json_object_is_type(v, json_type_null))
                        e.staged = json_object_get_string(v);
                if (json_object_object_get_ex(c, "old", &v) && !json_object_is_type(v, json_type_null))
                        e.old = json_object_get_string(v);
                if (json_object_object_get_ex(c, "made_dir", &v))
                        e.made_dir = json_object_get_boolean(v);
                /* Only names numaplan makes: a journal must not steer writes elsewhere. */
                if (!e.dir || strchr(e.dir, '/') || e.dir[0] == '.' || (e.staged && strchr(e.staged, '/'))) {
                        failed++;
                        continue;
                }
                r = undo ? undo_one(udfd, &e, true) : finish_one(udfd, &e);
                if (r < 0) {
                        log_error_errno(r, "cannot %s %s/%s: %m", undo ? "restore" : "finish", unit_dir, e.dir);
                        failed++;
                }
        }
        if (failed)
                return log_error_errno(-EIO, "an interrupted apply in %s could not be %s (%zu change%s left)", unit_dir,
                                       undo ? "undone" : "finished", failed, failed == 1 ? "" : "s");
        r = unlink_durably_at(udfd, CHANGESET_JOURNAL);
        if (r < 0)
                return log_error_errno(r, "cannot remove %s/" CHANGESET_JOURNAL ": %m", unit_dir);
        log_notice("%s the interrupted apply recorded in %s/" CHANGESET_JOURNAL, undo ? "undid" : "finished", unit_dir);
        remove_stale(udfd);
        return 1;
}

bool changeset_interrupted(const char *unit_dir) {
        _cleanup_close_ int udfd = open_dir_at(AT_FDCWD, unit_dir, false, NULL);
        struct stat st;
        return udfd >= 0 && fstatat(udfd, CHANGESET_JOURNAL, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Undoes the first `upto` changes (and removes what was staged), recording that in the journal
 * first, so that a kill meanwhile is undone too. Returns how many could not be restored. */
static size_t roll_back(int udfd, const struct changeset *cs, struct entry *e, size_t n_entries, bool journaled) {
        size_t failed = 0;

        if (journaled && write_journal(udfd, e, n_entries, true) < 0)
                journaled = false; /* undo all the same; recovery would finish it, which is also whole */
        for (size_t i = 0; i < n_entries; i++) {
                int r = undo_one(udfd, &e[i], e[i].done);
                if (r < 0) {
                        log_error_errno(r, "cannot restore %s/%s/" DROPIN_NAME ": %m", cs->unit_dir, e[i].dir);
                        failed++;
                }
        }
        if (failed == 0)
                (void) unlink_durably_at(udfd, CHANGESET_JOURNAL);
        return failed;
}

/* The unit directory, made when it is not there yet. Logs; -errno. */
static int make_unit_dir(const struct changeset *cs) {
        int r = mkdir_parents(cs->unit_dir, 0755);
        int fd = r < 0 ? r : open_dir_at(AT_FDCWD, cs->unit_dir, false, NULL);
        if (fd < 0)
                return log_error_errno(fd, "cannot open %s: %m", cs->unit_dir);
        return fd;
}

int changeset_commit(const struct changeset *cs) {
        _cleanup_free_ struct entry *e = xmalloc0((cs->n + 1) * sizeof(*e));
        _cleanup_free_ char **staged = xmalloc0((cs->n + 1) * sizeof(char *));
        size_t n = 0;
        bool journaled = false;
        int r = 0;

        _cleanup_close_ int udfd = make_unit_dir(cs);
        if (udfd < 0)
                return udfd;

        /* Stage: every new file, complete and fsync'ed, beside its target. */
        for (size_t i = 0; r >= 0 && i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                if (c->action == ACTION_UNCHANGED)
                        continue;
                e[n] = (struct entry){.dir = c->dir, .old = c->old};
                if (c->new) {
                        _cleanup_close_ int dfd = open_dir_at(udfd, c->dir, true, &e[n].made_dir);
                        r = dfd < 0 ? dfd : write_temporary_at(dfd, DROPIN_NAME, c->new, 0, &staged[n]);
                        e[n].staged = staged[n];
                        if (r < 0)
                                log_error_errno(r, "cannot write beside %s: %m", c->path);
                }
                n++;
        }
        /* The journal, then the renames and unlinks, each atomic. */
        if (r >= 0) {
                r = write_journal(udfd, e, n, false);
                if (r < 0)
                        log_error_errno(r, "cannot write %s/" CHANGESET_JOURNAL ": %m", cs->unit_dir);
                journaled = r >= 0;
        }
        for (size_t i = 0, k = 0; r >= 0 && i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                if (c->action == ACTION_UNCHANGED)
                        continue;
                _cleanup_close_ int dfd = open_dir_at(udfd, c->dir, false, NULL);
                r = dfd < 0  ? dfd
                    : c->new ? rename_durably_at(dfd, e[k].staged, DROPIN_NAME)
                             : unlink_durably_at(dfd, DROPIN_NAME);
                if (r < 0) {
                        log_error_errno(r, "cannot %s %s: %m", c->new ? "replace" : "remove", c->path);
                        break;
                }
                e[k].done = true;
                if (!c->new) {
                        /* An empty <unit>.d is harmless, but leave none behind, even if killed later. */
                        closep(&dfd);
                        remove_dir_if_empty(udfd, c->dir);
                }
                k++;
        }
        if (r >= 0) {
                r = unlink_durably_at(udfd, CHANGESET_JOURNAL);
                if (r < 0) /* every file is in place: the next command's recovery is a no-op */
                        log_error_errno(r,
                                        "every drop-in is in place, but %s/" CHANGESET_JOURNAL " could not be removed "
                                        "(%m): run numaplan apply again to clear it",
                                        cs->unit_dir);
        } else {
                size_t lost = roll_back(udfd, cs, e, n, journaled);
                if (lost == 0)
                        log_error("nothing changed: every drop-in is as it was");
                else
                        log_error("%zu drop-in%s could not be restored (named above): the unit directory holds a mix "
                                  "of the old and the new plan until the next numaplan apply finishes the undo",
                                  lost, lost == 1 ? "" : "s");
        }
        for (size_t i = 0; i < n; i++)
                free(staged[i]);
        return r;
}

int changeset_commit_fresh(const struct changeset *cs) {
        _cleanup_free_ char **staged = xmalloc0((cs->n + 1) * sizeof(char *));
        _cleanup_free_ int *dfd = xmalloc0((cs->n + 1) * sizeof(int));
        int r = 0;

        for (size_t i = 0; i < cs->n; i++)
                if (cs->v[i].action != ACTION_CREATED && cs->v[i].action != ACTION_UNCHANGED)
                        return -EEXIST;
        _cleanup_close_ int udfd = make_unit_dir(cs);
        if (udfd < 0)
                return udfd;

        /* Staged first and then renamed, as a journaled commit does, so that a worker stopped
         * midway leaves whole drop-ins and temporaries, never a part of a drop-in. */
        for (size_t i = 0; i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                dfd[i] = -1;
                if (r < 0 || c->action != ACTION_CREATED)
                        continue;
                dfd[i] = mkdirat(udfd, c->dir, 0755) < 0 && errno != EEXIST ? -errno
                                                                            : open_dir_at(udfd, c->dir, false, NULL);
                r = dfd[i] < 0 ? dfd[i] : write_temporary_at(dfd[i], DROPIN_NAME, c->new, WRITE_VOLATILE, &staged[i]);
                if (r < 0)
                        log_error_errno(r, "cannot write beside %s: %m", c->path);
        }
        for (size_t i = 0; r >= 0 && i < cs->n; i++) {
                if (!staged[i])
                        continue;
                r = rename_at(dfd[i], staged[i], DROPIN_NAME, WRITE_VOLATILE);
                if (r < 0)
                        log_error_errno(r, "cannot put %s in place: %m", cs->v[i].path);
                else
                        staged[i] = mfree(staged[i]);
        }
        /* What is in place stays: it asserts the marker, which is not written after a failure. */
        for (size_t i = 0; i < cs->n; i++) {
                if (staged[i])
                        (void) unlinkat(dfd[i], staged[i], 0);
                free(staged[i]);
                if (dfd[i] >= 0)
                        close(dfd[i]);
        }
        return r;
}
