/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "live/model-copy.h"
#include "host/model-files.h"

/* The temporary a file is copied to before its rename: short, so that a name of 255 bytes still
 * has one, and one name for all, since one copier at a time works in a directory of copies (its
 * lock). Hidden, so no model's. */
#define COPY_TEMPORARY ".#numaplan-copy"

struct job {
        int place; /* the directory of copies */
        dev_t dev; /* its file system: nothing beyond it is touched */
        bool dry;
        bool root;    /* copies take their original's owner */
        gid_t gid;    /* the group a file is made with */
        mode_t umask; /* what a file's mode loses when it is made */
        struct copy_stats *st;
};

char *model_copy_path(const char *dir, const char *path) {
        return xasprintf("%s%s", dir, path);
}

/* The file's data, extent by extent (holes stay holes), in the kernel: sendfile(2), as fast as
 * read(2) and write(2) with a large buffer (tests/bench/copy.sh), and a file truncated meanwhile
 * ends it early, where a mapping of it would raise SIGBUS. A file with as many blocks as bytes
 * has no hole: one call from its start, not a search for its data. */
static int copy_data(int in, int out, const struct stat *src) {
        uint64_t size = (uint64_t) src->st_size;
        bool dense = (uint64_t) src->st_blocks * 512 >= size;
        off_t data = 0;
        while ((uint64_t) data < size) {
                off_t start = dense ? data : lseek(in, data, SEEK_DATA);
                if (start < 0)
                        break; /* ENXIO: only a hole is left */
                off_t end = dense ? (off_t) size : lseek(in, start, SEEK_HOLE);
                if (end < 0 || (uint64_t) end > size)
                        end = (off_t) size;
                if (start != data && lseek(out, start, SEEK_SET) < 0)
                        return -errno;
                for (off_t off = start; off < end;) {
                        ssize_t n = sendfile(out, in, &off, (size_t) (end - off));
                        if (n < 0)
                                return -errno;
                        if (n == 0)
                                return -ENODATA; /* it shrank meanwhile */
                }
                data = end;
        }
        /* A hole at the end, which no data written made part of the file. */
        return (uint64_t) data < size && ftruncate(out, (off_t) size) < 0 ? -errno : 0;
}

static bool same_file_times(const struct stat *a, const struct stat *b) {
        return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
               a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Whether `name` in dstdir is a fresh copy of a file that looks like `src`. */
static bool fresh(int dstdir, const char *name, const struct stat *src) {
        struct stat st;
        return dstdir >= 0 && fstatat(dstdir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
               same_file_times(&st, src);
}

/* The data into the temporary, made with the original's mode as far as the umask lets it; when
 * the tmpfs has no room for it beside the stale copy, without the stale copy, which a refresh
 * replaces anyway. The temporary of a killed copier is gone: copy_dir() took it away. */
static int fill_temporary(const struct job *j, int in, const struct stat *src, int dstdir, const char *name, int *ret) {
        for (bool again = false;; again = true) {
                _cleanup_close_ int out =
                        openat(dstdir, COPY_TEMPORARY, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                               src->st_mode & 0777);
                if (out < 0 && errno == EEXIST && !again && unlinkat(dstdir, COPY_TEMPORARY, 0) == 0)
                        continue;
                if (out < 0)
                        return -errno;
                int r = copy_data(in, out, src);
                if (r >= 0 && (src->st_mode & 0777 & j->umask) && fchmod(out, src->st_mode & 0777) < 0)
                        r = -errno;
                if (r >= 0) {
                        *ret = TAKE_FD(out);
                        return 0;
                }
                (void) unlinkat(dstdir, COPY_TEMPORARY, 0);
                struct stat old;
                if (again || (r != -ENOSPC && r != -EDQUOT) || fstatat(dstdir, name, &old, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(old.st_mode) || unlinkat(dstdir, name, 0) < 0)
                        return r;
        }
}

/* One regular file, open as `in`, to `name` in dstdir, stale or missing there. */
static int copy_file(const struct job *j, int in, const struct stat *src, int dstdir, const char *name,
                     const char *shown) {
        if (j->dry) {
                log_info("(dry run) would copy %s", shown);
                j->st->files++;
                j->st->bytes += (uint64_t) src->st_size;
                return 0;
        }
        _cleanup_close_ int out = -1;
        int r = fill_temporary(j, in, src, dstdir, name, &out);
        /* The original's mode (and, made by root, its owner), so that its server reads the copy as
         * it read the file; its times, which say the copy is fresh. */
        if (r >= 0 &&
            ((j->root && (src->st_uid != 0 || src->st_gid != j->gid) && fchown(out, src->st_uid, src->st_gid) < 0) ||
             futimens(out, (struct timespec[]){src->st_atim, src->st_mtim}) < 0))
                r = -errno;
        if (r >= 0 && renameat(dstdir, COPY_TEMPORARY, dstdir, name) < 0) {
                r = -errno; /* a directory where the file goes: it goes first */
                if (r == -EISDIR && rm_rf_at(dstdir, name, j->dev) &&
                    renameat(dstdir, COPY_TEMPORARY, dstdir, name) == 0)
                        r = 0;
        }
        if (r < 0) {
                (void) unlinkat(dstdir, COPY_TEMPORARY, 0);
                return r;
        }
        j->st->files++;
        j->st->bytes += (uint64_t) src->st_size;
        return 0;
}

/* Does a link at `rel` (its path inside the tree) with `target` stay inside the tree? Relative
 * targets only, resolved by their words: "snapshots/r/f" -> "../../blobs/h" stays. */
static bool link_stays_inside(const char *rel, const char *target) {
        if (target[0] == '/')
                return false;
        int depth = 0;
        for (const char *p = rel; *p; p++)
                depth += *p == '/';
        for (const char *p = target; *p;) {
                size_t n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        depth--;
                else if (n && !(n == 1 && p[0] == '.'))
                        depth++;
                if (depth < 0)
                        return false;
                p += n;
                p += *p == '/';
        }
        return true;
}

/* Directory `name` under `dirfd` in the copy, made when absent; whatever else has that name there
 * goes first. Never through a link, never onto another file system. */
static int copy_dir_at(const struct job *j, int dirfd, const char *name, bool create, bool *ret_made) {
        if (ret_made)
                *ret_made = false;
        for (bool again = false;; again = true) {
                int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != j->dev)) {
                        close(fd);
                        return -EXDEV;
                }
                if (fd >= 0 || !create || again)
                        return fd >= 0 ? fd : -errno;
                if (errno != ENOENT && !rm_rf_at(dirfd, name, j->dev))
                        return -ENOTEMPTY;
                if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
                        return -errno;
                if (ret_made)
                        *ret_made = true;
        }
}

struct tree {
        const struct job *job;
        const char *top;  /* the original directory, for messages */
        int model;        /* the model's tree (model_tree()): where its links may lead */
        const char *base; /* the original directory below it */
};

/* A link out of the copied directory that the kernel resolves to a regular file inside the
 * model's tree (a Hugging Face snapshot named, whose files link into the repository's blobs): its
 * file, open; -errno for any other. */
static int link_into_tree(const struct tree *t, const char *sub) {
        _cleanup_free_ char *rel = xasprintf("%s/%s", t->base, sub);
        int fd = t->model >= 0 ? model_open_beneath(t->model, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
                               : -EBADF;
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
                close(fd);
                return -EBADFD;
        }
        return fd;
}

/* The names of a directory's entries that are a model's (not hidden), sorted. */
static char **list_names(int dirfd, size_t *ret_n) {
        _cleanup_closedir_ DIR *d = fd_opendir(fcntl(dirfd, F_DUPFD_CLOEXEC, 3));
        char **names = xmalloc0(sizeof(char *));
        size_t n = 0, room = 1;

        if (d)
                rewinddir(d); /* the descriptor's offset is shared with dirfd's: wherever it was left */
        for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_name[0] == '.') /* ".", "..", and the hidden: partial downloads, locks */
                        continue;
                if (n + 1 >= room) {
                        room *= 2;
                        names = xrealloc(names, room * sizeof(char *));
                }
                names[n++] = xstrdup(de->d_name);
                names[n] = NULL;
        }
        strv_sort(names, n);
        *ret_n = n;
        return names;
}

/* An entry of a directory being copied, and where its copy goes. */
struct entry {
        int src;           /* the original directory */
        int dst;           /* its copy (-1 in a dry run where it is not there) */
        int look;          /* the copy to compare with (-1: just made, nothing to look at) */
        const char *name;  /* in both */
        const char *sub;   /* its path below the copied directory */
        const char *shown; /* the original's path, for messages (escaped) */
        struct stat st;    /* the original's, not following a link */
};

static unsigned copy_dir(struct tree *t, int src, int dst, bool made, const char *rel, unsigned depth);

/* A link below the named directory: kept as a link when it stays in the tree, its file copied
 * when it resolves to one of the model's; else the copy cannot be whole. Returns the problems. */
static unsigned copy_link(struct tree *t, const struct entry *e) {
        const struct job *j = t->job;
        char target[4096], have[4096];
        ssize_t k = readlinkat(e->src, e->name, target, sizeof(target) - 1);
        if (k < 0)
                return 0; /* gone meanwhile */
        target[k] = 0;
        if (!link_stays_inside(e->sub, target)) {
                _cleanup_close_ int in = link_into_tree(t, e->sub);
                struct stat s;
                int r = in < 0 ? in : fstat(in, &s) < 0 ? -errno : 0;
                if (r >= 0 && fresh(e->look, e->name, &s)) {
                        j->st->fresh++;
                        return 0;
                }
                if (r >= 0)
                        r = copy_file(j, in, &s, e->dst, e->name, e->shown);
                if (r >= 0)
                        return 0;
                _cleanup_free_ char *to = name_escape(target);
                log_warning("%s: a link out of the model's tree (to %s): no whole copy", e->shown, to);
                return 1;
        }
        ssize_t h = e->look >= 0 ? readlinkat(e->look, e->name, have, sizeof(have) - 1) : -1;
        if (!(h == k && memcmp(have, target, (size_t) k) == 0) && !j->dry &&
            (!rm_rf_at(e->dst, e->name, j->dev) || symlinkat(target, e->dst, e->name) < 0)) {
                log_warning_errno(-errno, "%s: cannot make its link in the copy: %m", e->shown);
                return 1;
        }
        j->st->links++;
        return 0;
}

/* A directory below the named one, `depth` below it. */
static unsigned copy_subdir(struct tree *t, const struct entry *e, unsigned depth) {
        const struct job *j = t->job;
        if (depth + 1 >= MODEL_DEPTH_MAX) {
                log_warning("%s: more than %d directories deep: no whole copy", e->shown, MODEL_DEPTH_MAX);
                return 1;
        }
        _cleanup_close_ int sd = openat(e->src, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        bool made = false;
        _cleanup_close_ int dd = e->dst < 0 ? -1 : copy_dir_at(j, e->dst, e->name, !j->dry, &made);
        if (sd < 0 || (!j->dry && dd < 0)) {
                log_warning("%s: cannot copy this directory: %s", e->shown, strerror(sd < 0 ? errno : -dd));
                return 1;
        }
        if (dd >= 0 && !j->dry &&
            ((j->root && fchown(dd, e->st.st_uid, e->st.st_gid) < 0) || fchmod(dd, e->st.st_mode & 0777) < 0))
                log_warning_errno(-errno, "%s: cannot give the copy its owner and mode: %m", e->shown);
        return copy_dir(t, sd, dd, made, e->sub, depth + 1);
}

static unsigned copy_regular(struct tree *t, const struct entry *e) {
        const struct job *j = t->job;
        /* Looked at, not opened, when the copy is fresh: an up-to-date copy costs two stats a file. */
        if (fresh(e->look, e->name, &e->st)) {
                j->st->fresh++;
                return 0;
        }
        _cleanup_close_ int in = openat(e->src, e->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat s; /* the file opened: what is copied */
        int r = in < 0 ? -errno : fstat(in, &s) < 0 ? -errno : 0;
        if (r >= 0)
                r = copy_file(j, in, &s, e->dst, e->name, e->shown);
        if (r >= 0)
                return 0;
        log_warning_errno(r, "%s: cannot copy it: %m; no whole copy", e->shown);
        return 1;
}

/* Copies the directory open as `src` into `dst` (-1 in a dry run where it is not there); returns
 * how many of its entries could not be copied. */
static unsigned copy_dir(struct tree *t, int src, int dst, bool made, const char *rel, unsigned depth) {
        const struct job *j = t->job;
        size_t n;
        _cleanup_strv_free_ char **names = list_names(src, &n);
        unsigned problems = 0;

        /* A directory just made holds nothing to look at: no copy is fresh, none is left over. */
        int look = made ? -1 : dst;
        if (look >= 0 && !j->dry)
                (void) unlinkat(dst, COPY_TEMPORARY, 0); /* a killed copier's */
        for (size_t i = 0; i < n; i++) {
                const char *name = names[i];
                _cleanup_free_ char *sub = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name),
                                    *raw = xasprintf("%s/%s", t->top, sub), *shown = name_escape(raw);
                struct entry e = {.src = src, .dst = dst, .look = look, .name = name, .sub = sub, .shown = shown};
                if (fstatat(src, name, &e.st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue; /* gone meanwhile */
                if (S_ISLNK(e.st.st_mode))
                        problems += copy_link(t, &e);
                else if (S_ISDIR(e.st.st_mode))
                        problems += copy_subdir(t, &e, depth);
                else if (S_ISREG(e.st.st_mode))
                        problems += copy_regular(t, &e);
                /* a FIFO, socket or device in the tree is no file of the model */
        }
        if (look < 0 || j->dry)
                return problems;
        /* What the original no longer has goes from the copy (an older snapshot, a removed shard). */
        size_t m;
        _cleanup_strv_free_ char **have = list_names(dst, &m);
        for (size_t i = 0; i < m; i++)
                if (!bsearch(&have[i], names, n, sizeof(char *), strcmp_ptr) && !rm_rf_at(dst, have[i], j->dev))
                        problems++;
        return problems;
}

/* The directory of the copy of `raw`'s parent below the place: each directory on the way made
 * when absent, none followed if it is a link. -ENOENT in a dry run where one is missing. */
static int parent_dir(const struct job *j, const char *raw) {
        if (j->place < 0)
                return -ENOENT; /* a dry run, before the tmpfs is mounted */
        _cleanup_close_ int fd = fcntl(j->place, F_DUPFD_CLOEXEC, 3);
        const char *last = strrchr(raw, '/');

        for (const char *p = raw + strspn(raw, "/"); fd >= 0 && p < last;) {
                size_t len = strcspn(p, "/");
                _cleanup_free_ char *name = xstrndup(p, len);
                int next = copy_dir_at(j, fd, name, !j->dry, NULL);
                close(fd);
                fd = next;
                p += len + strspn(p + len, "/");
        }
        return fd < 0 ? fd : TAKE_FD(fd);
}

/* In place of a copy that cannot be whole, a link to the original: the server starts and reads
 * the original, and verify says that it does. */
static enum copy_outcome link_original(const struct job *j, int pd, const char *name, const char *raw,
                                       const char *shown, const char *dir) {
        _cleanup_free_ char *dest = model_copy_path(dir, raw), *dshown = name_escape(dest);
        j->st->partial++;
        if (j->dry) {
                log_notice("(dry run) %s: would link %s to the original", shown, dshown);
                return COPY_LINKED;
        }
        if (pd < 0 || !rm_rf_at(pd, name, j->dev) || symlinkat(raw, pd, name) < 0) {
                log_warning("%s: no copy of it on this node, and no link to it in %s either: %s", shown, dshown,
                            strerror(pd < 0  ? -pd
                                     : errno ? errno
                                             : EBUSY));
                return COPY_NONE;
        }
        log_warning(
                "%s: no whole copy on this node: %s links to the original, which the replica reads from wherever its "
                "page cache is",
                shown, dshown);
        return COPY_LINKED;
}

static enum copy_outcome copy_one(const struct job *j, const char *dir, const char *raw) {
        _cleanup_free_ char *shown = name_escape(raw);
        const char *slash = strrchr(raw, '/'), *name = slash ? slash + 1 : raw;
        struct stat s;

        _cleanup_close_ int pd =
                raw[0] == '/' && *name && !streq(name, ".") && !streq(name, "..") ? parent_dir(j, raw) : -EINVAL;
        if (pd < 0 && !(j->dry && pd == -ENOENT))
                return link_original(j, pd, name, raw, shown, dir);
        /* The path model = names is the admin's: followed if it is a link. */
        _cleanup_close_ int in = open(raw, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (in < 0 || fstat(in, &s) < 0) {
                log_warning_errno(-errno, "%s: %m: no copy of it", shown);
                return link_original(j, pd, name, raw, shown, dir);
        }
        if (S_ISREG(s.st_mode)) {
                if (fresh(pd, name, &s)) {
                        j->st->fresh++;
                        return COPY_WHOLE;
                }
                int r = copy_file(j, in, &s, pd, name, shown);
                if (r >= 0)
                        return COPY_WHOLE;
                log_warning_errno(r, "%s: cannot copy it: %m", shown);
                return link_original(j, pd, name, raw, shown, dir);
        }
        if (!S_ISDIR(s.st_mode)) {
                log_warning("%s: neither a file nor a directory: no copy of it", shown);
                return link_original(j, pd, name, raw, shown, dir);
        }
        bool made = false;
        _cleanup_close_ int dd = pd < 0 ? -1 : copy_dir_at(j, pd, name, !j->dry, &made);
        if (dd < 0 && !j->dry) {
                log_warning_errno(dd, "cannot make the copy of %s: %m", shown);
                return link_original(j, pd, name, raw, shown, dir);
        }
        _cleanup_free_ char *base = NULL;
        struct tree t = {.job = j, .top = raw, .model = -1};
        model_tree(in, &s, &t.model, &base);
        t.base = base;
        unsigned problems = copy_dir(&t, in, dd, made, "", 0);
        if (t.model >= 0)
                close(t.model);
        return problems ? link_original(j, pd, name, raw, shown, dir) : COPY_WHOLE;
}

enum copy_outcome model_copy_files(int place, dev_t dev, const char *dir, char *const *paths, bool dry,
                                   struct copy_stats *st) {
        struct job j = {.place = place,
                        .dev = dev,
                        .dry = dry,
                        .root = geteuid() == 0,
                        .gid = getegid(),
                        .umask = umask(0),
                        .st = st};
        umask(j.umask);
        enum copy_outcome first = COPY_NONE;

        for (size_t i = 0; paths && paths[i]; i++) {
                enum copy_outcome o = copy_one(&j, dir, paths[i]);
                if (i == 0)
                        first = o;
        }
        return first;
}
