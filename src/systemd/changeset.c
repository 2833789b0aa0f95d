/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/unit-name.h"
#include "systemd/changeset.h"

/* A drop-in of numaplan's past DROPIN_SIZE_MAX, told by its first line: an older numaplan's
 * irqbalance drop-in, which banned any number of interrupts. The kernel numbers them below a
 * million, so it holds some 15 MiB at most; read whole, since the commit's journal keeps what it
 * replaces. */
#define DROPIN_OLD_MAX (24U << 20)

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

/* Whether the regular file `name` under `dfd` begins with numaplan's header. */
static bool head_is_ours(int dfd, const char *name) {
        char head[sizeof(DROPIN_HEADER)] = "";
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        return fd >= 0 && read(fd, head, sizeof(head) - 1) == (ssize_t) sizeof(head) - 1 && streq(head, DROPIN_HEADER);
}

/* A unit's drop-in as it is now: *ret NULL when there is none. -ELOOP for a symbolic link (of the
 * drop-in or its directory), -EBADFD for a FIFO, device or socket, -ENOTDIR, -EFBIG for a file
 * past DROPIN_SIZE_MAX that is not numaplan's, -E2BIG for one of numaplan's past DROPIN_OLD_MAX. */
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
        if (r == -EFBIG && head_is_ours(dfd, DROPIN_NAME)) {
                r = read_regular_at(dfd, DROPIN_NAME, DROPIN_OLD_MAX, ret);
                if (r == -EFBIG)
                        r = -E2BIG;
                else if (r >= 0 && !is_ours(*ret)) { /* replaced since */
                        *ret = mfree(*ret);
                        r = -EFBIG;
                }
        }
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
                return "is larger than any drop-in numaplan writes, and not numaplan's";
        case -E2BIG:
                return "is numaplan's, but past the 24 MiB it keeps a copy of to undo a change";
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
                 * <unit>.d is said (its name only looked at), since it is left in place, and so is
                 * any other that cannot be read: a file numaplan may have written is never passed
                 * over in silence. A file that is not numaplan's by its first line is not said. */
                int r = read_dropin(dirfd(d), unit, &content);
                bool linked = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
                if (r == -ELOOP && linked) {
                        if (fstatat(dirfd(d), behind, &st, 0) == 0)
                                log_warning(
                                        "%s: %s/%s is a symbolic link, which numaplan never writes or reads through: "
                                        "the %s behind it is left in place; remove it by hand if numaplan wrote it",
                                        unit, unit_dir, de->d_name, DROPIN_NAME);
                } else if (r < 0 && r != -EFBIG && r != -ENOTDIR) {
                        _cleanup_free_ char *s = subject(unit_dir, unit, dirfd(d));
                        const char *why = why_not_ours(r);
                        if (why)
                                log_warning("%s %s: left alone", s, why);
                        else
                                log_warning_errno(r, "cannot read %s: %m; left alone", s);
                }
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
        if (strlen(text) > DROPIN_SIZE_MAX) {
                _cleanup_free_ char *where = name_escape(path);
                return log_error_errno(-E2BIG,
                                       "%s would be %zu KiB, past the %u KiB numaplan writes into a drop-in (and reads "
                                       "back from one): refused, nothing written",
                                       where, (strlen(text) + 1023) >> 10, DROPIN_SIZE_MAX >> 10);
        }
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

int changeset_for_plan(const char *unit_dir, const struct dropin_env *env, const struct topology *t,
                       const struct config *c, const struct plan *p, struct changeset *ret) {
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

/* How many times `word` is in `text`. */
static size_t count_words(const char *text, const char *word) {
        size_t n = 0;
        for (const char *s = text; (s = strstr(s, word)); s += strlen(word))
                n++;
        return n;
}

/* Whether a unit file's `text` sets ExecStart= (an empty one included). */
static bool sets_exec_start(const char *text) {
        for (const char *l = text; *l; l += strcspn(l, "\n"), l += !!*l) {
                const char *key = startswith(l + strspn(l, " \t"), "ExecStart");
                if (key && key[strspn(key, " \t")] == '=')
                        return true;
        }
        return false;
}

/* The unit's other drop-ins in this directory that set ExecStart= too. systemd applies a unit's
 * drop-ins in the order of their names, so only the last one's command runs: said, whichever it is. */
static void say_other_exec_start(const char *unit_dir, int udfd, const char *unit) {
        _cleanup_free_ char *dir = xasprintf("%s.d", unit);
        _cleanup_closedir_ DIR *d = udfd >= 0 ? opendir_at(udfd, dir) : NULL;

        for (struct dirent *de; d && (de = readdir(d));) {
                struct stat st;
                _cleanup_free_ char *path = xasprintf("%s/%s/%s", unit_dir, dir, de->d_name), *text = NULL;
                /* systemd reads *.conf but hidden files, through links; one linked to /dev/null is masked. */
                if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf") || streq(de->d_name, DROPIN_NAME) ||
                    fstatat(dirfd(d), de->d_name, &st, 0) < 0 || S_ISCHR(st.st_mode))
                        continue;
                int r = read_file_max(path, DROPIN_SIZE_MAX, &text);
                if (r < 0) {
                        log_warning_errno(r, "cannot read %s to tell whether it sets ExecStart= too: %m", path);
                        continue;
                }
                if (!sets_exec_start(text))
                        continue;
                if (strcmp(de->d_name, DROPIN_NAME) > 0)
                        log_warning(
                                "%s sets ExecStart= too, and systemd applies a unit's drop-ins in the order of their "
                                "names: its command, after " DROPIN_NAME "'s, is the one that runs, without numaplan's "
                                "bans; give it a name that sorts before " DROPIN_NAME ", or put its arguments in "
                                "IRQBALANCE_ARGS, which numaplan's command keeps",
                                path);
                else
                        log_warning(
                                "%s sets ExecStart= too, and systemd applies a unit's drop-ins in the order of their "
                                "names: numaplan's " DROPIN_NAME ", after it, replaces its command; put its "
                                "arguments in IRQBALANCE_ARGS, which numaplan's command keeps",
                                path);
        }
}

int changeset_put(struct changeset *cs, const char *unit, char *text) {
        _cleanup_free_ char *path = dropin_path(cs->unit_dir, unit);
        int r;

        if (text && strlen(text) > DROPIN_SIZE_MAX) {
                log_error("%s would be %zu KiB, banning %zu interrupts, past the %u KiB numaplan writes into a drop-in "
                          "(and reads back from one), some 25,000 interrupts: refused, nothing written; set "
                          "irq-affinity = yes on fewer replicas, or = no",
                          path, (strlen(text) + 1023) >> 10, count_words(text, " --banirq="), DROPIN_SIZE_MAX >> 10);
                free(text);
                return -E2BIG;
        }
        if (text) { /* the one gate every unit text passes, this one's too */
                r = unit_text_check(path, text);
                if (r < 0) {
                        free(text);
                        return r;
                }
        }
        _cleanup_close_ int udfd = open_unit_dir(cs->unit_dir);
        for (size_t i = 0; i < cs->n; i++)
                if (streq(cs->v[i].unit, unit)) { /* numaplan's, which the plan would remove */
                        if (text)
                                say_other_exec_start(cs->unit_dir, udfd, unit);
                        free(cs->v[i].new);
                        cs->v[i].new = text;
                        set_action(&cs->v[i]);
                        return 0;
                }
        char *old = NULL;
        r = udfd < 0 && udfd != -ENOENT ? udfd : read_dropin(udfd, unit, &old);
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
        if (old && !is_ours(old)) {
                /* Not a unit the admin gave numaplan: its files are the admin's, never replaced. */
                r = text ? log_error_errno(-EEXIST,
                                           "%s is not numaplan's (its first line is not numaplan's): it holds the "
                                           "admin's own settings for %s, which numaplan never replaces: refused, "
                                           "nothing written; give it another name ending in .conf, or set "
                                           "irq-affinity = no",
                                           path, unit)
                         : 0;
                free(old);
                free(text);
                return r;
        }
        if (text)
                say_other_exec_start(cs->unit_dir, udfd, unit);
        if (old || text)
                add(cs, unit, old, text);
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
                        log_warning("%s/%s.d/" DROPIN_NAME " was not written by numaplan; left alone", unit_dir,
                                    units[i]);
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
