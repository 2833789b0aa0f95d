/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/unit-name.h"
#include "systemd/changeset.h"

/* A drop-in is a few hundred bytes; anything far larger is not one of ours. */
#define DROPIN_SIZE_MAX (64U << 10)

const char *action_to_string(enum action a) {
        static const char *const names[] = {"unchanged", "created", "updated", "removed"};
        return names[a];
}

static void set_action(struct change *c) {
        if (!c->new)
                c->action = c->old ? ACTION_REMOVED : ACTION_UNCHANGED;
        else if (!c->old)
                c->action = ACTION_CREATED;
        else
                c->action = streq(c->old, c->new) ? ACTION_UNCHANGED : ACTION_UPDATED;
}

static void add(struct changeset *cs, const char *unit, char *old, char *new) {
        cs->v = xrealloc(cs->v, (cs->n + 1) * sizeof(*cs->v));
        struct change *c = &cs->v[cs->n++];
        *c = (struct change){
                .unit = xstrdup(unit),
                .dir = xasprintf("%s.d", unit),
                .path = dropin_path(cs->unit_dir, unit),
                .old = old,
                .new = new,
                .helper = streq(unit, IRQBALANCE_UNIT),
        };
        set_action(c);
}

static bool is_ours(const char *content) {
        return content && startswith(content, DROPIN_HEADER);
}

/* A unit's drop-in as it is now: *ret NULL when there is none. -ELOOP for a symbolic link (of the
 * drop-in or its directory), -EBADFD for a FIFO, device or socket, -ENOTDIR, -EFBIG. */
static int read_dropin(int udfd, const char *unit, char **ret) {
        _cleanup_free_ char *dir = xasprintf("%s.d", unit);
        *ret = NULL;
        if (udfd < 0)
                return 0; /* no unit directory yet */
        _cleanup_close_ int dfd = open_dir_at(udfd, dir, false, NULL);
        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        int r = read_regular_at(dfd, DROPIN_NAME, DROPIN_SIZE_MAX, ret);
        return r == -ENOENT ? 0 : r;
}

static const char *why_not_ours(int r) {
        switch (r) {
        case -ELOOP:
                return "is a symbolic link (numaplan never writes or reads through one)";
        case -EBADFD:
                return "is a FIFO, a device or a socket, not a drop-in";
        case -EISDIR:
        case -ENOTDIR:
                return "is not where a drop-in can be (a directory, or a <unit>.d that is a file)";
        case -EFBIG:
                return "is larger than any drop-in";
        default:
                return NULL;
        }
}

/* The path an error about unit's drop-in names: its directory when that is the problem. */
static char *subject(const char *unit_dir, const char *unit, int udfd) {
        _cleanup_free_ char *dir = xasprintf("%s.d", unit);
        struct stat st;
        if (udfd >= 0 && fstatat(udfd, dir, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
                return xasprintf("%s/%s", unit_dir, dir);
        return dropin_path(unit_dir, unit);
}

/* The unit directory's descriptor; -ENOENT when there is none yet (no drop-ins: not an error,
 * and read_dropin() takes it so), another -errno said. */
static int open_unit_dir(const char *unit_dir) {
        int fd = open_dir_at(AT_FDCWD, unit_dir, false, NULL);
        if (fd < 0 && fd != -ENOENT)
                return log_error_errno(fd, "cannot open %s: %m", unit_dir);
        return fd;
}

char **changeset_our_units(const char *unit_dir) {
        char **units = xmalloc0(sizeof(char *));
        size_t n = 0;
        _cleanup_closedir_ DIR *d = fd_opendir(open_unit_dir(unit_dir));

        for (struct dirent *de; d && (de = readdir(d));) {
                size_t len = strlen(de->d_name);
                if (len < 3 || !streq(de->d_name + len - 2, ".d"))
                        continue;
                _cleanup_free_ char *unit = xstrndup(de->d_name, len - 2), *content = NULL,
                                    *behind = xasprintf("%s/" DROPIN_NAME, de->d_name);
                struct stat st;
                if (!unit_name_is_valid_service(unit, NULL))
                        continue;
                /* A link or a special file is not ours, whatever it says; a drop-in behind a linked
                 * <unit>.d is said (its name only looked at), since it is left in place. */
                int r = read_dropin(dirfd(d), unit, &content);
                if (r == -ELOOP && fstatat(dirfd(d), behind, &st, 0) == 0)
                        log_warning("%s: %s/%s is a symbolic link, which numaplan never writes or reads through: the %s "
                                    "behind it is left in place; remove it by hand if numaplan wrote it",
                                    unit, unit_dir, de->d_name, DROPIN_NAME);
                if (r < 0 || !is_ours(content))
                        continue;
                units = xrealloc(units, (n + 2) * sizeof(char *));
                units[n++] = TAKE_PTR(unit);
                units[n] = NULL;
        }
        strv_sort(units, n);
        return units;
}

int unit_text_check(const char *path, const char *text) {
        const char *bad = find_unsafe(text, "\n");
        if (!bad)
                return 0;
        char byte[2] = {*bad, 0};
        _cleanup_free_ char *shown = name_escape(byte), *where = name_escape(path);
        log_error("%s would hold a control character or a byte that is not UTF-8 (%s) at byte %zu, which systemd "
                  "would read as the end of a line or a line to ignore: refused, nothing written",
                  where, shown, (size_t) (bad - text));
        return -EINVAL;
}

int changeset_for_plan(const char *unit_dir, const struct dropin_env *env, const struct topology *t, const struct config *c,
                       const struct plan *p, struct changeset *ret) {
        struct changeset cs = {.unit_dir = xstrdup(unit_dir)};
        _cleanup_close_ int udfd = open_unit_dir(unit_dir);
        int r = 0;

        if (udfd < 0 && udfd != -ENOENT)
                r = udfd;
        for (size_t i = 0; r >= 0 && i < p->n_replicas; i++) {
                const struct placement *pl = &p->replicas[i];
                char *old;
                r = read_dropin(udfd, pl->unit, &old);
                if (r < 0) {
                        _cleanup_free_ char *s = subject(unit_dir, pl->unit, udfd);
                        const char *why = why_not_ours(r);
                        if (why)
                                log_error("%s %s: refused, nothing written; remove it or give the replica another unit",
                                          s, why);
                        else
                                log_error_errno(r, "cannot read %s: %m", s);
                        break;
                }
                char *text = dropin_render(t, c, p, pl, env);
                _cleanup_free_ char *path = dropin_path(unit_dir, pl->unit);
                r = unit_text_check(path, text);
                if (r < 0) {
                        free(old);
                        free(text);
                        break;
                }
                add(&cs, pl->unit, old, text);
                if (old && !is_ours(old))
                        log_warning("%s was not written by numaplan; it will be replaced", cs.v[cs.n - 1].path);
        }

        /* Replicas that left the configuration: only files numaplan wrote, known by their header. */
        _cleanup_strv_free_ char **units = r >= 0 ? changeset_our_units(unit_dir) : NULL;
        for (size_t i = 0; units && units[i]; i++) {
                bool planned = false;
                for (size_t j = 0; j < p->n_replicas && !planned; j++)
                        planned = streq(p->replicas[j].unit, units[i]);
                if (planned)
                        continue;
                char *old;
                r = read_dropin(udfd, units[i], &old);
                if (r < 0) {
                        log_error_errno(r, "cannot read the drop-in of %s: %m", units[i]);
                        break;
                }
                add(&cs, units[i], old, NULL);
        }
        if (r < 0) {
                changeset_done(&cs);
                return r;
        }
        *ret = cs;
        return 0;
}

int changeset_put(struct changeset *cs, const char *unit, char *text) {
        for (size_t i = 0; i < cs->n; i++)
                if (streq(cs->v[i].unit, unit)) {
                        free(cs->v[i].new);
                        cs->v[i].new = text;
                        set_action(&cs->v[i]);
                        return 0;
                }
        _cleanup_close_ int udfd = open_unit_dir(cs->unit_dir);
        char *old = NULL;
        int r = udfd < 0 && udfd != -ENOENT ? udfd : read_dropin(udfd, unit, &old);
        if (r < 0) {
                _cleanup_free_ char *s = subject(cs->unit_dir, unit, udfd);
                const char *why = why_not_ours(r);
                if (why)
                        log_error("%s %s: refused, nothing written; remove it, or set irq-affinity = no", s, why);
                else
                        log_error_errno(r, "cannot read %s: %m", s);
                free(text);
                return r;
        }
        if (text) { /* the one gate every unit text passes, this one's too */
                _cleanup_free_ char *path = dropin_path(cs->unit_dir, unit);
                r = unit_text_check(path, text);
                if (r < 0) {
                        free(old);
                        free(text);
                        return r;
                }
        }
        if (old && !is_ours(old) && !text)
                old = mfree(old); /* someone else's, and nothing of numaplan's to write: left alone */
        if (!old && !text)
                return 0;
        add(cs, unit, old, text);
        if (old && !is_ours(old))
                log_warning("%s was not written by numaplan; it will be replaced", cs->v[cs->n - 1].path);
        return 0;
}

int changeset_for_removal(const char *unit_dir, char *const *units, struct changeset *ret) {
        struct changeset cs = {.removal = true, .unit_dir = xstrdup(unit_dir)};
        _cleanup_strv_free_ char **ours = NULL;
        _cleanup_close_ int udfd = open_unit_dir(unit_dir);

        if (udfd < 0 && udfd != -ENOENT) {
                changeset_done(&cs);
                return udfd;
        }
        if (!units || !units[0])
                units = ours = changeset_our_units(unit_dir);
        for (size_t i = 0; units[i]; i++) {
                char *old;
                int r = read_dropin(udfd, units[i], &old);
                if (r < 0) {
                        _cleanup_free_ char *s = subject(unit_dir, units[i], udfd);
                        const char *why = why_not_ours(r);
                        if (!why) {
                                log_error_errno(r, "cannot read %s: %m", s);
                                changeset_done(&cs);
                                return r;
                        }
                        log_warning("%s %s: left alone", s, why);
                } else if (old && !is_ours(old)) {
                        log_warning("%s/%s.d/" DROPIN_NAME " was not written by numaplan; left alone", unit_dir, units[i]);
                        old = mfree(old);
                }
                add(&cs, units[i], old, NULL);
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

size_t changeset_count(const struct changeset *cs, enum action a) {
        size_t n = 0;
        for (size_t i = 0; i < cs->n; i++)
                n += cs->v[i].action == a;
        return n;
}

void changeset_done(struct changeset *cs) {
        for (size_t i = 0; i < cs->n; i++) {
                free(cs->v[i].unit);
                free(cs->v[i].dir);
                free(cs->v[i].path);
                free(cs->v[i].old);
                free(cs->v[i].new);
        }
        free(cs->v);
        free(cs->unit_dir);
        *cs = (struct changeset){0};
}
