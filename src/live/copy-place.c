/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "basic/cpuset.h"
#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/mountinfo.h"
#include "basic/util.h"
#include "live/copy-place.h"

/* A replica that starts beside another on its node waits this long for the other's copy. */
#define COPY_LOCK_WAIT_S 600

/* Whether the directory open as `fd` (`shown` in messages) is one that nobody but root, or this
 * process's user, can change: owned by either, and writable by others only when sticky (as /tmp,
 * where a name is its owner's to change), and `last` not even then. */
static int check_held(int fd, const char *shown, bool last) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return log_warning_errno(-errno, "cannot look at %s: %m", shown);
        if (st.st_uid != 0 && st.st_uid != geteuid()) {
                log_warning("%s belongs to uid %u, not root: refused, since root would mount and write below it", shown,
                            (unsigned) st.st_uid);
                return -EPERM;
        }
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st.st_mode & S_ISVTX))) {
                log_warning("%s is writable by others (mode %04o): refused, since root would mount and write below it",
                            shown, (unsigned) (st.st_mode & 07777));
                return -EPERM;
        }
        return 0;
}

/* Why `name` under `dirfd` could not be opened as a directory, said; -errno. */
static int not_a_directory(int dirfd, const char *name, const char *shown, int error) {
        struct stat st;
        if ((error == ELOOP || error == ENOTDIR) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISLNK(st.st_mode)) {
                        log_warning("%s is a symbolic link: refused, since root would mount or write where it points",
                                    shown);
                        return -ELOOP;
                }
                log_warning("%s is %s, not a directory: refused", shown, file_type_name(st.st_mode));
                return -ENOTDIR;
        }
        errno = error;
        return log_warning_errno(-error, "cannot open %s: %m", shown);
}

int held_dir_open(const char *path, bool create, int *ret) {
        _cleanup_free_ char *shown = name_escape(path);
        _cleanup_strbuf_ struct strbuf at = {0};

        if (path[0] != '/') {
                log_warning("%s is not an absolute path: refused", shown);
                return -EINVAL;
        }
        _cleanup_close_ int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return log_warning_errno(-errno, "cannot open /: %m");
        const char *p = path + strspn(path, "/");
        int r = check_held(fd, "/", !*p);
        while (r >= 0 && *p) {
                size_t len = strcspn(p, "/");
                _cleanup_free_ char *name = xstrndup(p, len);
                p += len + strspn(p + len, "/");
                if (streq(name, ".") || streq(name, "..")) {
                        log_warning("%s holds '%s': refused, name the directory itself", shown, name);
                        return -EINVAL;
                }
                strbuf_printf(&at, "/%s", name);
                _cleanup_free_ char *where = name_escape(at.s);
                int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0 && errno == ENOENT && create && (mkdirat(fd, name, 0755) == 0 || errno == EEXIST))
                        next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return errno == ENOENT && !create ? -ENOENT : not_a_directory(fd, name, where, errno);
                close(fd);
                fd = next;
                r = check_held(fd, where, !*p);
        }
        if (r < 0)
                return r;
        *ret = TAKE_FD(fd);
        return 0;
}

/* The mount a directory open as `fd` is on. */
static int mount_id(int fd, uint64_t *ret) {
        struct statx sx;
        if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) < 0)
                return -errno;
        if (!(sx.stx_mask & STATX_MNT_ID))
                return -EOPNOTSUPP;
        *ret = sx.stx_mnt_id;
        return 0;
}

enum mount_state { MOUNT_NONE, MOUNT_OURS, MOUNT_OTHER };

/* Whether directory `at` (`shown`), an entry of `parent`, is a mount point, and of what: numaplan's
 * tmpfs, or anything else (*ret_what says what: "ext4 from /dev/sda1"). */
static int mount_state(int parent, int at, enum mount_state *ret, char **ret_what) {
        uint64_t mine, above;
        int r = mount_id(at, &mine);
        if (r >= 0)
                r = mount_id(parent, &above);
        if (r < 0)
                return r;
        *ret_what = NULL;
        if (mine == above) {
                *ret = MOUNT_NONE;
                return 0;
        }
        _cleanup_free_ char *text = NULL;
        r = read_file_max("/proc/self/mountinfo", READ_PROC_MAX, &text);
        if (r < 0)
                return r;
        *ret = MOUNT_OTHER;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                struct mountinfo m;
                if (mountinfo_parse_line(line, &m) < 0)
                        continue;
                if ((uint64_t) m.id == mine) {
                        bool ours = streq(m.fstype, "tmpfs") && streq(m.source, COPY_PLACE_SOURCE);
                        *ret = ours ? MOUNT_OURS : MOUNT_OTHER;
                        *ret_what = xasprintf("%s from %s", m.fstype, m.source);
                }
                mountinfo_done(&m);
        }
        if (!*ret_what)
                *ret_what = xstrdup("a mount /proc/self/mountinfo does not list");
        return 0;
}

/* What tmpfs itself needs beside the files (directories, partial pages): a little. */
static uint64_t tmpfs_size(uint64_t size) {
        uint64_t mib = UINT64_C(1) << 20;
        return (size + size / 64 + 2 * mib + mib - 1) & ~(mib - 1);
}

static char *proc_fd(int fd) {
        return xasprintf("/proc/self/fd/%d", fd);
}

/* Our tmpfs on `at`: the unit's user's, and large enough. */
static int check_ours(int at, const char *shown, const struct copy_tmpfs *fs, bool dry) {
        uint64_t want = tmpfs_size(fs->size);
        uid_t uid = fs->uid;
        struct stat st;
        struct statfs sf;

        if (fstat(at, &st) < 0 || fstatfs(at, &sf) < 0)
                return log_warning_errno(-errno, "cannot look at %s: %m", shown);
        if (st.st_uid != uid) {
                log_warning("the tmpfs on %s belongs to uid %u, and this unit's server runs as uid %u: refused, since "
                            "that user could change what this server reads (replicas that share a node share its "
                            "copies only when they run as one user; a DynamicUser= gets another uid at each start)",
                            shown, (unsigned) st.st_uid, (unsigned) uid);
                return -EPERM;
        }
        if ((uint64_t) sf.f_blocks * (uint64_t) sf.f_bsize >= want)
                return 0;
        _cleanup_free_ char *opts = xasprintf("size=%" PRIu64, want), *target = proc_fd(at);
        if (dry) {
                log_notice("(dry run) would grow the tmpfs on %s (%s)", shown, opts);
                return 0;
        }
        if (mount(NULL, target, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, opts) < 0)
                return log_warning_errno(-errno, "cannot grow the tmpfs on %s (%s): %m", shown, opts);
        return 0;
}

/* Mounts numaplan's tmpfs on the directory open as `at` (by descriptor: whatever its name leads
 * to meanwhile). */
static int mount_tmpfs(int at, const char *shown, const struct copy_tmpfs *fs, bool dry) {
        _cleanup_free_ char *list = cpuset_format(fs->nodes), *target = proc_fd(at);
        _cleanup_free_ char *opts =
                xasprintf("mode=0755,uid=%u,gid=%u,size=%" PRIu64 ",mpol=%s:%s", (unsigned) fs->uid, (unsigned) fs->gid,
                          tmpfs_size(fs->size), cpuset_count(fs->nodes) > 1 ? "interleave" : "bind", list);
        if (dry) {
                log_notice("(dry run) would mount a tmpfs on %s (%s)", shown, opts);
                return 0;
        }
        if (mount(COPY_PLACE_SOURCE, target, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
                return log_warning_errno(-errno, "cannot mount a tmpfs on %s (%s): %m", shown, opts);
        return 0;
}

/* The directory of copies `name` under `models`, open as O_PATH; made when absent (unless dry:
 * then 0 with *ret -1). */
static int place_dir(int models, const char *name, const char *shown, bool dry, int *ret) {
        *ret = -1;
        int fd = openat(models, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
                if (dry)
                        return 0;
                if (mkdirat(models, name, 0755) < 0 && errno != EEXIST)
                        return log_warning_errno(-errno, "cannot make %s: %m", shown);
                fd = openat(models, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0)
                return not_a_directory(models, name, shown, errno);
        *ret = fd;
        return 0;
}

static int open_place(int models, const char *name, const char *shown, const struct copy_tmpfs *fs, bool dry,
                      struct copy_place *ret) {
        _cleanup_close_ int at = -1;
        _cleanup_free_ char *what = NULL;
        enum mount_state state = MOUNT_NONE;

        int r = place_dir(models, name, shown, dry, &at);
        if (r < 0 || at < 0)
                return r < 0 ? r : mount_tmpfs(-1, shown, fs, true);
        r = mount_state(models, at, &state, &what);
        if (r < 0)
                return log_warning_errno(r, "cannot tell whether %s is a mount point: %m; refused", shown);
        if (state == MOUNT_OTHER) {
                log_warning("%s is already a mount (%s), not numaplan's tmpfs: refused, since numaplan would hide it "
                            "under its own and later remove what is below",
                            shown, what);
                return -EBUSY;
        }
        r = state == MOUNT_OURS ? check_ours(at, shown, fs, dry) : mount_tmpfs(at, shown, fs, dry);
        if (r < 0 || (dry && state == MOUNT_NONE))
                return r;
        /* The tmpfs' root now, by the same name: the directory numaplan holds. */
        _cleanup_close_ int fd = openat(models, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return not_a_directory(models, name, shown, errno);
        free(what);
        what = NULL;
        r = mount_state(models, fd, &state, &what);
        if (r < 0 || state != MOUNT_OURS) {
                log_warning("%s changed while numaplan mounted its tmpfs there: refused", shown);
                return -EBUSY;
        }
        ret->fd = TAKE_FD(fd);
        ret->dev = st.st_dev;
        return 0;
}

/* "/run/numaplan/models/node1": "/run/numaplan/models" and "node1". */
static int split_place(const char *dir, char **ret_parent, char **ret_name) {
        const char *slash = strrchr(dir, '/');
        if (dir[0] != '/' || !slash || !slash[1] || streq(slash + 1, ".") || streq(slash + 1, ".."))
                return -EINVAL;
        *ret_parent = slash == dir ? xstrdup("/") : xstrndup(dir, (size_t) (slash - dir));
        *ret_name = xstrdup(slash + 1);
        return 0;
}

/* systemd runs even a '+' command of a unit with mount namespacing (DynamicUser=, ProtectSystem=,
 * PrivateTmp=, ...) in a mount namespace of its own, gone when the command exits: a tmpfs mounted
 * there would be gone before the server starts, and the server would find its copy's path empty.
 * The server's namespace is made from the manager's when it starts, so a prepare that the manager
 * (PID 1) started mounts the tmpfs in the manager's namespace. One run any other way (by hand, or
 * in a namespace someone made on purpose with unshare) stays where it is. Before anything is
 * opened: a descriptor keeps the namespace it was opened in. */
static int join_host_mounts(void) {
        struct stat self, host;

        if (getppid() != 1)
                return 0;
        if (stat("/proc/self/ns/mnt", &self) < 0 || stat("/proc/1/ns/mnt", &host) < 0)
                return log_warning_errno(-errno, "cannot tell this command's mount namespace from the host's: %m");
        if (self.st_dev == host.st_dev && self.st_ino == host.st_ino)
                return 0;
        _cleanup_close_ int fd = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || setns(fd, CLONE_NEWNS) < 0)
                return log_warning_errno(-errno, "this command runs in a mount namespace of its own (the unit's "
                                                 "sandboxing), and cannot join the host's to mount the copies' tmpfs "
                                                 "where the server will see it: %m");
        log_debug("joined the host's mount namespace for the copies' tmpfs");
        return 0;
}

int copy_place_open(const char *dir, const struct copy_tmpfs *fs, bool dry, struct copy_place *ret) {
        _cleanup_free_ char *parent = NULL, *name = NULL, *shown = name_escape(dir);
        _cleanup_close_ int models = -1;
        struct copy_place p = {.fd = -1, .lock = -1};

        if (split_place(dir, &parent, &name) < 0) {
                log_warning("%s: not a directory of copies (an absolute path, not ending in / . or ..): refused",
                            shown);
                return -EINVAL;
        }
        int r = dry ? 0 : join_host_mounts();
        if (r < 0)
                return r;
        r = held_dir_open(parent, !dry, &models);
        if (r == -ENOENT && dry)
                return mount_tmpfs(-1, shown, fs, true);
        if (r < 0)
                return r;
        /* Before anything is mounted: a replica starting beside this one finds the tmpfs mounted
         * and the copy made once. */
        _cleanup_free_ char *lock = xasprintf(".%s.lock", name), *lock_path = xasprintf("%s/%s", parent, lock);
        if (!dry) {
                p.lock = lock_file_at(models, lock, lock_path, COPY_LOCK_WAIT_S);
                if (p.lock < 0)
                        return log_warning_errno(p.lock, "cannot lock %s: %m", lock_path);
        }
        r = open_place(models, name, shown, fs, dry, &p);
        if (r < 0) {
                copy_place_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void copy_place_done(struct copy_place *p) {
        if (p->fd >= 0)
                close(p->fd);
        if (p->lock >= 0)
                close(p->lock);
        *p = (struct copy_place){.fd = -1, .lock = -1};
}

/* Unmounts every tmpfs of numaplan's stacked on `name` (one, but for older releases that could
 * stack two); leaves any other mount. Returns 0 when `name` is no mount point at the end. */
static int unmount_ours(int models, const char *name, const char *shown) {
        for (;;) {
                _cleanup_close_ int at = openat(models, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                _cleanup_free_ char *what = NULL;
                enum mount_state state;
                if (at < 0)
                        return not_a_directory(models, name, shown, errno);
                int r = mount_state(models, at, &state, &what);
                if (r < 0)
                        return log_warning_errno(r, "cannot tell whether %s is a mount point: %m; left as it is",
                                                 shown);
                if (state == MOUNT_NONE)
                        return 0;
                if (state == MOUNT_OTHER) {
                        log_warning("%s holds a mount that is not numaplan's (%s): left as it is", shown, what);
                        return -EBUSY;
                }
                _cleanup_free_ char *target = proc_fd(at);
                if (umount2(target, MNT_DETACH) < 0)
                        return log_warning_errno(-errno, "cannot unmount the model copies in %s: %m", shown);
        }
}

int copy_places_prune(const char *models_dir, char *const *keep) {
        _cleanup_close_ int models = -1;
        struct stat top;
        int n = 0;

        /* Quietly when there is nothing: most hosts have no copies. */
        if (access(models_dir, F_OK) < 0 || held_dir_open(models_dir, false, &models) < 0 || fstat(models, &top) < 0)
                return 0;
        _cleanup_close_ int list = openat(models, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_closedir_ DIR *d = list >= 0 ? fdopendir(TAKE_FD(list)) : NULL;
        for (struct dirent *de; d && (de = readdir(d));) {
                if (!startswith(de->d_name, "node") || (keep && strv_contains(keep, de->d_name)))
                        continue; /* not numaplan's, or still read */
                _cleanup_free_ char *path = xasprintf("%s/%s", models_dir, de->d_name), *shown = name_escape(path),
                                    *lock = xasprintf(".%s.lock", de->d_name);
                _cleanup_close_ int held = openat(models, lock, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (held < 0 || flock(held, LOCK_EX | LOCK_NB) < 0) {
                        log_warning("%s: a replica is copying its model there now: left for the next apply", shown);
                        continue;
                }
                if (unmount_ours(models, de->d_name, shown) < 0)
                        continue;
                if (!rm_rf_at(models, de->d_name, top.st_dev)) {
                        log_warning("%s: not all of it could be removed (what is left is said above)", shown);
                        continue;
                }
                (void) unlinkat(models, lock, 0);
                n++;
        }
        return n;
}

/* NUMAPLAN_MODEL="..." as systemd reads an environment file: inside double quotes, a backslash
 * keeps ", \\, ` and $ as they are. */
static char *model_env_text(const char *model) {
        struct strbuf b = {0};
        strbuf_append(&b, "NUMAPLAN_MODEL=\"");
        for (const char *s = model; *s; s++) {
                if (strchr("\"\\`$", *s))
                        strbuf_putc(&b, '\\');
                strbuf_putc(&b, *s);
        }
        strbuf_append(&b, "\"\n");
        return strbuf_steal(&b);
}

int model_env_open(const char *path, const char *model, int *ret) {
        _cleanup_free_ char *parent = NULL, *name = NULL, *text = model_env_text(model), *shown = name_escape(path);
        _cleanup_close_ int dir = -1;

        if (split_place(path, &parent, &name) < 0) {
                log_warning("%s: not a file's path: no environment written for the server", shown);
                return -EINVAL;
        }
        int r = held_dir_open(parent, true, &dir);
        if (r >= 0)
                r = write_file_atomic_at_full(dir, name, text, WRITE_VOLATILE);
        int fd = r < 0 ? r : openat(dir, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return log_warning_errno(fd == -1 ? -errno : fd, "cannot write %s, the server's NUMAPLAN_MODEL: %m",
                                         shown);
        *ret = fd;
        return 0;
}

int model_env_write(int fd, const char *path, const char *model) {
        _cleanup_free_ char *text = model_env_text(model), *shown = name_escape(path);
        size_t len = strlen(text);
        if (ftruncate(fd, 0) < 0 || pwrite(fd, text, len, 0) != (ssize_t) len)
                return log_warning_errno(-errno, "cannot write %s, the server's NUMAPLAN_MODEL: %m", shown);
        return 0;
}
