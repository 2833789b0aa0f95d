/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"

int open_dir_at(int dirfd, const char *name, bool create, bool *ret_created) {
        if (ret_created)
                *ret_created = false;
        for (;;) {
                int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd >= 0)
                        return fd;
                if (errno == ELOOP || errno == ENOTDIR) {
                        struct stat st;
                        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ? -ELOOP
                                                                                                          : -ENOTDIR;
                }
                if (errno != ENOENT || !create)
                        return -errno;
                if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
                        return -errno;
                if (ret_created)
                        *ret_created = true;
                create = false;
        }
}

DIR *fd_opendir(int fd) {
        if (fd < 0)
                return NULL;
        DIR *d = fdopendir(fd);
        if (!d) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return d;
}

DIR *opendir_at(int dirfd, const char *name) {
        return fd_opendir(openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

bool dir_is_empty_at(int dirfd, const char *name) {
        int fd = open_dir_at(dirfd, name, false, NULL);
        if (fd == -ENOENT)
                return true;
        _cleanup_closedir_ DIR *d = fd_opendir(fd);
        if (!d)
                return false;
        struct dirent *de;
        while ((de = readdir(d)) && (streq(de->d_name, ".") || streq(de->d_name, "..")))
                ;
        return !de;
}

int read_fd_all(int fd, size_t max, unsigned flags, char **ret, size_t *ret_len) {
        /* Most files numaplan reads are sysfs attributes of a few bytes: read into the stack and
         * allocate what they hold, not a zeroed page each. */
        char first[4096];
        size_t len = 0;
        ssize_t n;

        do
                n = read(fd, first, sizeof(first));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        len = (size_t) n;
        if (len > max)
                return -EFBIG;
        bool more = len == sizeof(first) || (len > 0 && !(flags & READ_ONE_SHOT));
        size_t cap = more ? 2 * sizeof(first) : len;
        _cleanup_free_ char *buf = xmalloc(cap + 1);
        memcpy(buf, first, len);
        while (more) {
                if (len == cap) {
                        cap *= 2;
                        buf = xrealloc(buf, cap + 1);
                }
                n = read(fd, buf + len, cap - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                len += (size_t) n;
                if (len > max)
                        return -EFBIG;
                more = n > 0 && (len == cap || !(flags & READ_ONE_SHOT));
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int fd_verify_regular(int fd) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EBADFD;
        return 0;
}

/* O_NONBLOCK: opening a FIFO must not wait for a writer before its type is known. */
int read_regular_fd(int fd, size_t max, unsigned flags, char **ret, size_t *ret_len) {
        int r = fd_verify_regular(fd);

        if (r < 0)
                return r;
        return read_fd_all(fd, max, flags, ret, ret_len);
}

int read_attribute_fd(int fd, size_t max, char **ret, size_t *ret_len) {
        char *buf = NULL;
        size_t len = 0;

        if (read_fd_all(fd, max, READ_ONE_SHOT, &buf, &len) >= 0 && len > 0 && len < 4096) {
                *ret = buf;
                if (ret_len)
                        *ret_len = len;
                return 0;
        }
        free(buf);
        if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
                return -errno;
        return read_regular_fd(fd, max, READ_ONE_SHOT, ret, ret_len);
}

static int read_regular(int dirfd, const char *name, int extra_flags, size_t max, char **ret) {
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | extra_flags);

        if (fd < 0)
                return errno == ENXIO ? -EBADFD : -errno; /* a socket: open() refuses it */
        return read_regular_fd(fd, max, 0, ret, NULL);
}

int read_regular_at(int dirfd, const char *name, size_t max, char **ret) {
        return read_regular(dirfd, name, O_NOFOLLOW, max, ret);
}

int read_file(const char *path, char **ret) {
        return read_regular(AT_FDCWD, path, 0, READ_FILE_MAX, ret);
}

int read_file_max(const char *path, size_t max, char **ret) {
        return read_regular(AT_FDCWD, path, 0, max, ret);
}

bool is_temporary_name(const char *entry) {
        return startswith(entry, ".#") != NULL;
}

int write_temporary_at(int dirfd, const char *name, const char *content, unsigned flags, char **ret_tmp) {
        static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        size_t len = strlen(content);
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -1;
        int r;

        for (unsigned attempt = 0; fd < 0; attempt++) {
                unsigned char rnd[6];
                char suffix[7];
                if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t) sizeof(rnd))
                        for (size_t i = 0; i < sizeof(rnd); i++)
                                rnd[i] = (unsigned char) (rand() ^ (int) time(NULL));
                for (size_t i = 0; i < sizeof(rnd); i++)
                        suffix[i] = letters[rnd[i] % (sizeof(letters) - 1)];
                suffix[6] = 0;
                free(tmp);
                tmp = xasprintf(".#%s.%s", name, suffix);
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (fd < 0 && (errno != EEXIST || attempt > 100))
                        return -errno;
        }
        for (size_t done = 0; done < len;) {
                ssize_t n = write(fd, content + done, len - done);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        (void) unlinkat(dirfd, tmp, 0);
                        return r;
                }
                done += (size_t) n;
        }
        if (fchmod(fd, 0644) < 0 || (!(flags & WRITE_VOLATILE) && fsync(fd) < 0)) {
                r = -errno;
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        *ret_tmp = TAKE_PTR(tmp);
        return 0;
}

void remove_stale_temporaries_at(int dirfd, const char *name) {
        _cleanup_free_ char *prefix = xasprintf(".#%s.", name);
        _cleanup_closedir_ DIR *d = fd_opendir(openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));

        for (struct dirent *de; d && (de = readdir(d));)
                if (startswith(de->d_name, prefix))
                        (void) unlinkat(dirfd, de->d_name, 0);
}

int rename_at(int dirfd, const char *from, const char *to, unsigned flags) {
        if (renameat(dirfd, from, dirfd, to) < 0 || (!(flags & WRITE_VOLATILE) && fsync(dirfd) < 0))
                return -errno;
        return 0;
}

int unlink_durably_at(int dirfd, const char *name) {
        if (unlinkat(dirfd, name, 0) < 0 || fsync(dirfd) < 0)
                return -errno;
        return 0;
}

int write_file_atomic_at_full(int dirfd, const char *name, const char *content, unsigned flags) {
        _cleanup_free_ char *tmp = NULL;
        int r = write_temporary_at(dirfd, name, content, flags, &tmp);
        if (r < 0)
                return r;
        r = rename_at(dirfd, tmp, name, flags);
        if (r < 0)
                (void) unlinkat(dirfd, tmp, 0);
        return r;
}

int write_file_path(const char *path, const char *content, unsigned flags) {
        _cleanup_free_ char *copy = xstrdup(path);
        char *slash = strrchr(copy, '/');
        _cleanup_free_ char *old = NULL;

        if (!slash || !slash[1])
                return -EINVAL;
        const char *name = slash + 1;
        *slash = '\0';
        const char *dir = slash == copy ? "/" : copy;
        int r = mkdir_parents(dir, 0755);
        _cleanup_close_ int dfd = r < 0 ? r : open_dir_at(AT_FDCWD, dir, false, NULL);
        if (dfd < 0)
                return dfd;
        /* A file made anew at every boot has no killed writer's temporaries to find. */
        if (!(flags & WRITE_VOLATILE))
                remove_stale_temporaries_at(dfd, name);
        if (!content) {
                r = unlink_durably_at(dfd, name);
                return r == -ENOENT ? 0 : r;
        }
        if ((flags & WRITE_IF_CHANGED) && read_regular_at(dfd, name, strlen(content) + 1, &old) >= 0 &&
            streq(old, content))
                return 0;
        return write_file_atomic_at_full(dfd, name, content, flags);
}

char *self_exe(void) {
        char buf[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

        if (n <= 0 || n == (ssize_t) sizeof(buf) - 1)
                return NULL;
        buf[n] = 0;
        static const char deleted[] = " (deleted)";
        if (buf[0] != '/' || ((size_t) n >= strlen(deleted) && streq(buf + n - strlen(deleted), deleted)))
                return NULL;
        return xstrdup(buf);
}

int mkdir_parents(const char *path, int mode) {
        /* Most often the parents are there: one call, not one a component. */
        if (mkdir(path, (mode_t) mode) == 0 || errno == EEXIST)
                return 0;
        if (errno != ENOENT)
                return -errno;
        _cleanup_free_ char *p = xstrdup(path);
        for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
                if (s)
                        *s = 0;
                if (mkdir(p, (mode_t) mode) < 0 && errno != EEXIST)
                        return -errno;
                if (!s)
                        return 0;
                *s = '/';
        }
}

/* Who holds the flock on `fd`'s file: /proc/locks lists "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INO
 * ...". Asking the kernel keeps the lock file untouched (no PID written into it). 0 if unknown. */
static long lock_holder(int fd) {
        _cleanup_free_ char *locks = NULL;
        struct stat st;

        if (fstat(fd, &st) < 0 || read_file("/proc/locks", &locks) < 0)
                return 0;
        for (char *line = strtok(locks, "\n"); line; line = strtok(NULL, "\n")) {
                char type[16], kind[16], mode[16];
                unsigned maj, min;
                unsigned long long ino;
                long pid;
                if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", type, kind, mode, &pid, &maj, &min, &ino) == 7 &&
                    streq(type, "FLOCK") && ino == (unsigned long long) st.st_ino && makedev(maj, min) == st.st_dev)
                        return pid;
        }
        return 0;
}

int lock_file(const char *path, unsigned timeout_s) {
        return lock_file_at(AT_FDCWD, path, path, timeout_s);
}

int lock_file_at(int dirfd, const char *name, const char *path, unsigned timeout_s) {
        /* Read-only is enough for flock(), and works on a read-only file system, where the
         * write that fails then says so itself. */
        _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
        struct stat st;
        bool said = false;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        for (unsigned waited_ms = 0;; waited_ms += 100) {
                if (flock(fd, LOCK_EX | LOCK_NB) == 0)
                        return TAKE_FD(fd);
                if (errno != EWOULDBLOCK)
                        return -errno;
                long pid = lock_holder(fd);
                if (waited_ms >= timeout_s * 1000) {
                        if (pid)
                                log_error("%s is held by PID %ld after %u s of waiting", path, pid, timeout_s);
                        else
                                log_error("%s is held by another process after %u s of waiting", path, timeout_s);
                        return -ETIMEDOUT;
                }
                if (!said) {
                        if (pid)
                                log_notice("waiting for another numaplan (PID %ld) holding %s", pid, path);
                        else
                                log_notice("waiting for another numaplan holding %s", path);
                        said = true;
                }
                (void) nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
        }
}

bool rm_rf_at(int dfd, const char *name, dev_t dev) {
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT;
        if (st.st_dev != dev) {
                _cleanup_free_ char *shown = name_escape(name);
                log_warning("%s is on another file system (a mount inside): left as it is", shown);
                return false;
        }
        if (!S_ISDIR(st.st_mode))
                return unlinkat(dfd, name, 0) == 0 || errno == ENOENT;
        bool all = true;
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        /* The directory opened, not the one looked at: the same file system still. */
        _cleanup_closedir_ DIR *d = fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev ? fdopendir(fd) : NULL;
        if (fd >= 0 && !d)
                close(fd);
        if (!d)
                return false;
        for (struct dirent *de; (de = readdir(d));)
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        all = rm_rf_at(dirfd(d), de->d_name, dev) && all;
        return all && (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT);
}
