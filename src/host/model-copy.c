/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "host/model-copy.h"
#include "host/model-files.h"

#define COPY_LOCK ".numaplan-copy.lock"

char *model_copy_path(const char *dir, const char *path) {
        return xasprintf("%s%s", dir, path);
}

static bool is_mount_point(const char *dir) {
        struct stat a, b;
        _cleanup_free_ char *up = xasprintf("%s/..", dir);
        return stat(dir, &a) == 0 && stat(up, &b) == 0 && a.st_dev != b.st_dev;
}

int model_copy_mount(const char *dir, const struct cpuset *nodes, uint64_t size, uid_t uid, gid_t gid, bool dry) {
        _cleanup_free_ char *list = cpuset_format(nodes);
        struct statfs sf;
        /* What tmpfs itself needs beside the files (directories, partial pages): a little. */
        uint64_t want = (size + size / 64 + (UINT64_C(2) << 20) + (UINT64_C(1) << 20) - 1) & ~((UINT64_C(1) << 20) - 1);

        bool mounted = is_mount_point(dir) && statfs(dir, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
        if (mounted && (uint64_t) sf.f_blocks * (uint64_t) sf.f_bsize >= want)
                return 0;
        _cleanup_free_ char *opts = xasprintf("mode=0755,uid=%u,gid=%u,size=%" PRIu64 ",mpol=%s:%s", (unsigned) uid,
                                              (unsigned) gid, want, cpuset_count(nodes) > 1 ? "interleave" : "bind", list);
        if (dry) {
                log_notice("(dry run) would %s a tmpfs on %s (%s)", mounted ? "grow" : "mount", dir, opts);
                return 0;
        }
        if (mkdir_parents(dir, 0755) < 0)
                return log_error_errno(-errno, "cannot make %s for the model's copy: %m", dir);
        if (mount(mounted ? NULL : "numaplan-models", dir, "tmpfs", (mounted ? MS_REMOUNT : 0) | MS_NOSUID | MS_NODEV,
                  opts) < 0)
                return log_error_errno(-errno, "cannot %s a tmpfs on %s (%s): %m", mounted ? "grow" : "mount", dir, opts);
        return 0;
}

/* The file's data, extent by extent (holes stay holes), in the kernel: sendfile(2), as fast as
 * read(2) and write(2) with a large buffer (tests/bench/copy.sh), and a file truncated meanwhile
 * ends it early, where a mapping of it would raise SIGBUS. */
static int copy_data(int in, int out, uint64_t size) {
        off_t data = 0;
        while ((uint64_t) data < size) {
                off_t start = lseek(in, data, SEEK_DATA);
                if (start < 0)
                        break; /* ENXIO: only a hole is left */
                off_t end = lseek(in, start, SEEK_HOLE);
                if (end < 0 || (uint64_t) end > size)
                        end = (off_t) size;
                for (off_t off = start; off < end;) {
                        ssize_t n = sendfile(out, in, &off, (size_t) (end - off));
                        if (n < 0)
                                return -errno;
                        if (n == 0)
                                return -ENODATA; /* it shrank meanwhile */
                }
                data = end;
        }
        return ftruncate(out, (off_t) size) < 0 ? -errno : 0;
}

static bool fresh(int dstdir, const char *name, const struct stat *src) {
        struct stat st;
        return fstatat(dstdir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
               st.st_size == src->st_size && st.st_mtim.tv_sec == src->st_mtim.tv_sec &&
               st.st_mtim.tv_nsec == src->st_mtim.tv_nsec;
}

/* One regular file, open as `in`, to `name` in dstdir, when stale. */
static int copy_file(int in, const struct stat *src, int dstdir, const char *name, const char *shown, bool dry,
                     struct copy_stats *st) {
        if (fresh(dstdir, name, src)) {
                st->fresh++;
                return 0;
        }
        if (dry) {
                log_notice("(dry run) would copy %s", shown);
                st->files++;
                st->bytes += (uint64_t) src->st_size;
                return 0;
        }
        _cleanup_free_ char *tmp = xasprintf(".#%s.numaplan", name);
        (void) unlinkat(dstdir, tmp, 0);
        _cleanup_close_ int out = openat(dstdir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (out < 0)
                return -errno;
        int r = copy_data(in, out, (uint64_t) src->st_size);
        /* The original's mode (and, made by root, its owner), so that its server reads the copy as
         * it read the file; its times, which say the copy is fresh. */
        if (r >= 0 && ((geteuid() == 0 && fchown(out, src->st_uid, src->st_gid) < 0) || fchmod(out, src->st_mode & 0777) < 0 ||
                       futimens(out, (struct timespec[]){src->st_atim, src->st_mtim}) < 0))
                r = -errno;
        if (r >= 0 && renameat(dstdir, tmp, dstdir, name) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlinkat(dstdir, tmp, 0);
                return r;
        }
        st->files++;
        st->bytes += (uint64_t) src->st_size;
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

static void remove_tree_at(int dirfd, const char *name) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(dup(fd)) : NULL;
        for (struct dirent *de; d && (de = readdir(d));)
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        remove_tree_at(fd, de->d_name);
        if (d)
                closedir(d);
        if (unlinkat(dirfd, name, fd >= 0 ? AT_REMOVEDIR : 0) < 0 && errno == EISDIR)
                (void) unlinkat(dirfd, name, AT_REMOVEDIR);
}

struct tree {
        const char *top;  /* the original directory, for messages */
        int model;        /* the model's tree (model_tree()): where its links may lead */
        const char *base; /* the original directory below it */
        bool dry;
        struct copy_stats *st;
};

/* A link out of the copied directory that the kernel resolves to a regular file inside the
 * model's tree (a Hugging Face snapshot named, whose files link into the repository's blobs): its
 * file, open; -errno for any other. */
static int link_into_tree(const struct tree *t, const char *sub) {
        _cleanup_free_ char *rel = xasprintf("%s/%s", t->base, sub);
        int fd = t->model >= 0 ? model_open_beneath(t->model, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) : -EBADF;
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
                close(fd);
                return -EBADFD;
        }
        return fd;
}

static int copy_dir(struct tree *t, int src, int dst, const char *rel, unsigned depth) {
        DIR *d = fdopendir(dup(src));
        char **names = NULL;
        size_t n = 0;

        if (!d)
                return -errno;
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.') { /* ".", "..", and the hidden: partial downloads, locks */
                        names = xrealloc(names, (n + 2) * sizeof(char *));
                        names[n++] = xstrdup(de->d_name);
                        names[n] = NULL;
                }
        closedir(d);
        if (names)
                strv_sort(names, n);

        for (size_t i = 0; i < n; i++) {
                const char *name = names[i];
                _cleanup_free_ char *sub = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name),
                                    *raw = xasprintf("%s/%s", t->top, sub), *shown = name_escape(raw);
                struct stat s;
                if (fstatat(src, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
                        continue; /* gone meanwhile */
                if (S_ISLNK(s.st_mode)) {
                        char target[4096];
                        ssize_t k = readlinkat(src, name, target, sizeof(target) - 1);
                        if (k < 0)
                                continue;
                        target[k] = 0;
                        if (!link_stays_inside(sub, target)) {
                                /* Its file, when it is the model's; nothing else is read through a link. */
                                _cleanup_close_ int in = link_into_tree(t, sub);
                                int r = in < 0 ? in : fstat(in, &s) < 0 ? -errno : copy_file(in, &s, dst, name, shown, t->dry, t->st);
                                if (r < 0) {
                                        _cleanup_free_ char *to = name_escape(target);
                                        log_warning("%s: a link out of the model's tree (to %s): left out of the copy", shown, to);
                                        t->st->skipped++;
                                }
                                continue;
                        }
                        char have[4096];
                        ssize_t h = readlinkat(dst, name, have, sizeof(have) - 1);
                        if (h == k && memcmp(have, target, (size_t) k) == 0)
                                continue;
                        if (!t->dry) {
                                remove_tree_at(dst, name);
                                if (symlinkat(target, dst, name) < 0) {
                                        log_warning_errno(-errno, "%s: cannot make its link in the copy: %m", shown);
                                        t->st->skipped++;
                                        continue;
                                }
                        }
                        t->st->links++;
                } else if (S_ISDIR(s.st_mode)) {
                        if (depth + 1 >= MODEL_DEPTH_MAX)
                                continue;
                        _cleanup_close_ int sd = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        bool created;
                        int dd = -1;
                        if (!t->dry) {
                                struct stat was;
                                if (fstatat(dst, name, &was, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(was.st_mode))
                                        remove_tree_at(dst, name);
                                dd = open_dir_at(dst, name, true, &created);
                        }
                        if (sd < 0 || (!t->dry && dd < 0)) {
                                log_warning("%s: cannot copy this directory: %s", shown, strerror(sd < 0 ? errno : -dd));
                                t->st->skipped++;
                        } else {
                                if (dd >= 0 && ((geteuid() == 0 && fchown(dd, s.st_uid, s.st_gid) < 0) ||
                                                fchmod(dd, s.st_mode & 0777) < 0))
                                        log_warning_errno(-errno, "%s: cannot give the copy its owner and mode: %m",
                                                          shown);
                                (void) copy_dir(t, sd, dd, sub, depth + 1);
                        }
                        if (dd >= 0)
                                close(dd);
                } else if (S_ISREG(s.st_mode)) {
                        _cleanup_close_ int in = openat(src, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                        int r = in < 0 ? -errno : fstat(in, &s) < 0 ? -errno : 0;
                        if (r >= 0)
                                r = copy_file(in, &s, dst, name, shown, t->dry, t->st);
                        if (r < 0) {
                                log_warning_errno(r, "%s: cannot copy it: %m", shown);
                                t->st->skipped++;
                        }
                }
        }
        /* What the original no longer has goes from the copy (an older snapshot, a removed shard). */
        DIR *c = !t->dry && dst >= 0 ? fdopendir(dup(dst)) : NULL;
        for (struct dirent *de; c && (de = readdir(c));)
                if (de->d_name[0] != '.' && !(names && strv_contains(names, de->d_name)))
                        remove_tree_at(dst, de->d_name);
        if (c)
                closedir(c);
        strv_free(names);
        return 0;
}

static int copy_one(const char *dir, const char *raw, bool dry, struct copy_stats *st) {
        _cleanup_free_ char *dest = model_copy_path(dir, raw), *parent = xstrdup(dest), *path = name_escape(raw);
        char *slash = strrchr(parent, '/');
        const char *name = slash + 1;
        struct stat s;
        int r;

        *slash = 0;
        /* The path model = names is the admin's: followed if it is a link. */
        _cleanup_close_ int in = open(raw, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (in < 0 || fstat(in, &s) < 0)
                return log_warning_errno(-errno, "%s: %m: no copy of it", path);
        if (!S_ISREG(s.st_mode) && !S_ISDIR(s.st_mode))
                return log_warning_errno(-EBADFD, "%s: neither a file nor a directory: no copy of it", path);
        if (!dry && mkdir_parents(parent, 0755) < 0)
                return log_warning_errno(-errno, "cannot make the copy of %s: %m", path);
        /* A dry run reads what copies there are, and makes none. */
        _cleanup_close_ int pd = dry ? open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                     : open_dir_at(AT_FDCWD, parent, false, NULL);
        if (pd < 0 && !dry)
                return log_warning_errno(pd, "cannot open the copy's directory of %s: %m", path);
        if (S_ISREG(s.st_mode)) {
                if (pd < 0) { /* dry, and no copy yet */
                        st->files++;
                        st->bytes += (uint64_t) s.st_size;
                        return 0;
                }
                r = copy_file(in, &s, pd, name, path, dry, st);
                if (r < 0) {
                        st->skipped++;
                        return log_warning_errno(r, "%s: cannot copy it: %m", path);
                }
                return 0;
        }
        _cleanup_close_ int dd = -1;
        if (pd >= 0) {
                bool created;
                dd = dry ? openat(pd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                         : open_dir_at(pd, name, true, &created);
                if (dd < 0 && !dry)
                        return log_warning_errno(dd, "cannot make the copy of %s: %m", path);
        }
        _cleanup_free_ char *base = NULL;
        struct tree t = {.top = raw, .dry = dry, .st = st, .model = -1};
        model_tree(in, &s, &t.model, &base);
        t.base = base;
        r = copy_dir(&t, in, dd, "", 0);
        if (t.model >= 0)
                close(t.model);
        return r;
}

int model_copy_files(const char *dir, char *const *paths, bool dry, struct copy_stats *st) {
        _cleanup_free_ char *lock = xasprintf("%s/" COPY_LOCK, dir);
        _cleanup_close_ int fd = -1;
        unsigned failed = 0, n = 0;

        if (!dry) {
                /* A replica on the same nodes that starts now waits for this copy, then finds it fresh. */
                fd = lock_file(lock, 600);
                if (fd < 0)
                        return fd;
        }
        for (size_t i = 0; paths && paths[i]; i++, n++)
                if (copy_one(dir, paths[i], dry, st) < 0)
                        failed++;
        return n && failed == n ? -ENOENT : 0;
}

int model_copies_prune(const char *models_dir, char *const *keep) {
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, models_dir, false, NULL);
        DIR *d = fd >= 0 ? fdopendir(dup(fd)) : NULL;
        int n = 0;

        for (struct dirent *de; d && (de = readdir(d));) {
                if (de->d_name[0] == '.' || (keep && strv_contains(keep, de->d_name)))
                        continue;
                if (!startswith(de->d_name, "node"))
                        continue; /* not numaplan's */
                _cleanup_free_ char *path = xasprintf("%s/%s", models_dir, de->d_name);
                if (is_mount_point(path) && umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0) {
                        log_warning_errno(-errno, "cannot unmount the model copies in %s: %m", path);
                        continue;
                }
                remove_tree_at(fd, de->d_name);
                n++;
        }
        if (d)
                closedir(d);
        return n;
}
