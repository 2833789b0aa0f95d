/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "host/trusted-path.h"

void untrusted_done(struct untrusted *u) {
        free(u->path);
        free(u->why);
        *u = (struct untrusted){0};
}

_printf_(3, 4) static int untrusted(struct untrusted *ret, const char *path, const char *format, ...) {
        va_list ap;

        untrusted_done(ret);
        ret->path = name_escape(path);
        va_start(ap, format);
        ret->why = xvasprintf(format, ap);
        va_end(ap);
        return 0;
}

/* The last entry of a walk is above what the caller named: a directory it will be made in. */
#define TRUST_ABOVE (1U << 16)

/* One entry on the way, `target` when it is what the caller named. */
static int judge(const char *path, const struct stat *st, bool target, unsigned flags, struct untrusted *ret) {
        target = target && !(flags & TRUST_ABOVE);
        bool dir_wanted = !target || (flags & TRUST_DIRECTORY);

        if (st->st_uid != 0 && st->st_uid != geteuid())
                return untrusted(ret, path, "belongs to uid %u, not root", (unsigned) st->st_uid);
        if (S_ISLNK(st->st_mode))
                return 1; /* its owner alone can change it; where it leads is judged as resolved */
        if (dir_wanted != !!S_ISDIR(st->st_mode) || (!dir_wanted && !S_ISREG(st->st_mode)))
                return untrusted(ret, path, "is %s, not %s", file_type_name(st->st_mode),
                                 dir_wanted ? "a directory" : "a regular file");
        /* Others may write a sticky directory above (as /tmp): a name there is its owner's alone.
         * Not the directory root itself writes into, where another could make a name first. */
        bool sticky_ok = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) && !target;
        if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_ok)
                return untrusted(ret, path, "is writable by group or others (mode %04o)",
                                 (unsigned) (st->st_mode & 07777));
        return 1;
}

/* Each entry from / down to `path`, none followed. */
static int walk(const char *path, unsigned flags, struct untrusted *ret) {
        _cleanup_strbuf_ struct strbuf at = {0};
        struct stat st, above;

        if (lstat("/", &st) < 0)
                return -errno;
        const char *p = path + strspn(path, "/");
        int r = judge("/", &st, !*p, flags, ret);
        while (r > 0 && *p) {
                size_t len = strcspn(p, "/");
                const char *next = p + len + strspn(p + len, "/");
                above = st;
                strbuf_printf(&at, "/%.*s", (int) len, p);
                if (lstat(at.s, &st) < 0) {
                        if (errno != ENOENT || !(flags & TRUST_MISSING_OK))
                                return -errno;
                        /* Made by root from here on, in the directory above: one root holds, or a
                         * sticky one (as /tmp), where nobody can take a name root made. */
                        at.s[at.len - len - 1 > 0 ? at.len - len - 1 : 1] = '\0';
                        return judge(at.s, &above, false, flags, ret);
                }
                r = judge(at.s, &st, !*next, flags, ret);
                p = next;
        }
        return r;
}

/* The longest part of `path` that exists, resolved, and whether that is all of it; NULL with
 * errno set. */
static char *resolve_existing(const char *path, unsigned flags, bool *ret_whole) {
        _cleanup_free_ char *copy = xstrdup(path);

        *ret_whole = true;
        for (;;) {
                char *real = realpath(copy, NULL);
                if (real || errno != ENOENT || !(flags & TRUST_MISSING_OK))
                        return real;
                char *slash = strrchr(copy, '/');
                if (!slash || slash == copy)
                        return NULL;
                *slash = '\0';
                *ret_whole = false;
        }
}

int path_trusted(const char *path, unsigned flags, struct untrusted *ret) {
        if (path[0] != '/')
                return untrusted(ret, path, "is not an absolute path");
        int r = walk(path, flags, ret);
        if (r <= 0)
                return r;
        bool whole;
        _cleanup_free_ char *real = resolve_existing(path, flags, &whole);
        if (!real)
                return -errno;
        if (streq(real, path))
                return 1;
        /* A link on the way: where it leads must be root's too. Short of what is missing, that is
         * the directory root will make it in. */
        return walk(real, whole ? flags : flags | TRUST_ABOVE, ret);
}
