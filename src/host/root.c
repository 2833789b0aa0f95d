/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "host/root.h"
#include "basic/util.h"

struct root {
        int fd;
        char *path;
        bool host;        /* this machine's own / */
        bool kernel_sys;  /* and its sys/ is sysfs, */
        bool kernel_proc; /* its proc/ procfs: files only the kernel makes */
        bool recording;
        struct root_entry *rec;
        size_t n_rec;
        struct kept_dir *kept; /* directories whose files are opened through a descriptor */
        size_t n_kept;
};

struct kept_dir {
        char *path; /* relative, as rel() gives it */
        size_t len;
        int fd;
};

/* openat() wants a relative path: "/sys/x" and "sys/x" mean the same file under the root. */
static const char *rel(const char *path) {
        while (*path == '/') /* a loop, not strspn(): it runs several times for every file read */
                path++;
        return *path ? path : ".";
}

/* Opens `path` under the root. A replayed capture is someone's files, not a kernel's: its symbolic
 * links resolve inside it (RESOLVE_IN_ROOT, as if it were /), never to this machine's files. On a
 * kernel without openat2() (before 5.6), plain openat(). */
static int open_under(const struct root *r, const char *path, int flags) {
        if (!r->host) {
                struct open_how how = {.flags = (uint64_t) flags, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
                long fd = syscall(SYS_openat2, r->fd, rel(path), &how, sizeof(how));
                if (fd >= 0 || errno != ENOSYS)
                        return (int) fd;
        }
        return openat(r->fd, rel(path), flags);
}

/* The nearest kept directory above `path`, or NULL; *ret_name is the rest of the path below it. */
static const struct kept_dir *kept_parent(const struct root *r, const char *path, const char **ret_name) {
        const char *p = rel(path);
        size_t len = strlen(p);
        const struct kept_dir *best = NULL;

        for (size_t i = 0; i < r->n_kept; i++) {
                const struct kept_dir *k = &r->kept[i];
                if (k->len < len && p[k->len] == '/' && memcmp(k->path, p, k->len) == 0 &&
                    (!best || k->len > best->len))
                        best = k;
        }
        if (best)
                *ret_name = p + best->len + 1;
        return best;
}

/* Opens `path`, through its nearest kept directory's descriptor when it has one: only the
 * components below it are resolved, not the whole path. In a capture they must stay beneath the
 * directory (RESOLVE_BENEATH); a path that leaves it (a link such as sysfs's iommu_group, an
 * absolute one, "..") is opened by its whole path instead, which resolves it inside the root as
 * before, so the file is the same either way. */
static int open_file(const struct root *r, const char *path, int flags) {
        const char *name;
        const struct kept_dir *k = kept_parent(r, path, &name);

        if (!k || !*name)
                return open_under(r, path, flags);
        if (r->host)
                return openat(k->fd, name, flags);
        struct open_how how = {.flags = (uint64_t) flags, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
        long fd = syscall(SYS_openat2, k->fd, name, &how, sizeof(how));
        if (fd >= 0 || (errno != EXDEV && errno != ENOSYS))
                return (int) fd;
        return open_under(r, path, flags);
}

int root_keep_dir(struct root *r, const char *path) {
        const char *p = rel(path);

        for (size_t i = 0; i < r->n_kept; i++)
                if (streq(r->kept[i].path, p))
                        return 0;
        int fd = open_under(r, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r->kept = xrealloc(r->kept, (r->n_kept + 1) * sizeof(*r->kept));
        r->kept[r->n_kept++] = (struct kept_dir){.path = xstrdup(p), .len = strlen(p), .fd = fd};
        return 0;
}

int root_open(const char *path, unsigned flags, struct root **ret) {
        struct stat st, slash;
        int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }

        struct root *r = xmalloc0(sizeof(*r));
        r->fd = fd;
        r->path = xstrdup(path);
        r->host = stat("/", &slash) == 0 && st.st_dev == slash.st_dev && st.st_ino == slash.st_ino;
        r->recording = flags & ROOT_RECORD;
        if (r->host) {
                struct statfs fs;
                r->kernel_sys = statfs("/sys", &fs) == 0 && fs.f_type == SYSFS_MAGIC;
                r->kernel_proc = statfs("/proc", &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
        }
        *ret = r;
        return 0;
}

struct root *root_free(struct root *r) {
        if (!r)
                return NULL;
        close(r->fd);
        for (size_t i = 0; i < r->n_rec; i++) {
                free(r->rec[i].path);
                free(r->rec[i].data);
                free(r->rec[i].link);
        }
        free(r->rec);
        for (size_t i = 0; i < r->n_kept; i++) {
                close(r->kept[i].fd);
                free(r->kept[i].path);
        }
        free(r->kept);
        free(r->path);
        free(r);
        return NULL;
}

const char *root_path(const struct root *r) {
        return r->path;
}

bool root_is_live(const struct root *r) {
        return r->host && !r->recording;
}

bool root_is_recording(const struct root *r) {
        return r->recording;
}

bool root_is_capture(const struct root *r) {
        return !r->host;
}

static int lstat_at(int dfd, const char *name, struct stat *ret, char **ret_link) {
        if (!ret) {
                /* Only the link wanted: readlinkat() alone says both (EINVAL: there, not a link). */
                char buf[4096];
                ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);
                if (n < 0 && errno != EINVAL)
                        return -errno;
                *ret_link = n >= 0 ? xstrndup(buf, (size_t) n) : NULL;
                return 0;
        }
        if (fstatat(dfd, name, ret, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (ret_link) {
                char buf[4096];
                ssize_t n = S_ISLNK(ret->st_mode) ? readlinkat(dfd, name, buf, sizeof(buf) - 1) : -1;
                *ret_link = n >= 0 ? xstrndup(buf, (size_t) n) : NULL;
        }
        return 0;
}

int root_lstat(struct root *r, const char *path, struct stat *ret, char **ret_link) {
        const char *kept_name;
        const struct kept_dir *k = kept_parent(r, path, &kept_name);

        /* The last component is not followed: the descriptor of a kept directory holding it
         * directly answers as well (a deeper path's links would resolve outside the root). */
        if (k && *kept_name && !strchr(kept_name, '/'))
                return lstat_at(k->fd, kept_name, ret, ret_link);
        _cleanup_free_ char *copy = xstrdup(rel(path));
        char *slash = strrchr(copy, '/');
        const char *name = slash ? slash + 1 : copy;
        if (slash)
                *slash = 0;
        /* The parent through its nearest kept directory, as a file is: a node's access0 probed below
         * the kept node directory walks two components, not six. */
        _cleanup_close_ int dfd = open_file(r, slash ? copy : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        return lstat_at(dfd, name, ret, ret_link);
}

char *root_join(const struct root *r, const char *path) {
        const char *sep = r->path[strlen(r->path) - 1] == '/' ? "" : "/";
        return xasprintf("%s%s%s", r->path, sep, rel(path));
}

/* A new entry of the record for `path`, or NULL when not recording or already recorded. */
static struct root_entry *record_new(struct root *r, const char *path) {
        if (!r->recording)
                return NULL;
        const char *p = rel(path);
        for (size_t i = 0; i < r->n_rec; i++)
                if (streq(r->rec[i].path, p))
                        return NULL;
        r->rec = xrealloc(r->rec, (r->n_rec + 1) * sizeof(*r->rec));
        struct root_entry *e = &r->rec[r->n_rec++];
        *e = (struct root_entry){.path = xstrdup(p)};
        return e;
}

static void record(struct root *r, const char *path, const char *data, size_t len) {
        struct root_entry *e = record_new(r, path);

        if (!e)
                return;
        e->len = len;
        if (data) {
                e->data = xmalloc0(len + 1);
                memcpy(e->data, data, len);
        }
}

int root_read_file(struct root *r, const char *path, char **ret, size_t *ret_len) {
        /* O_NONBLOCK and a regular file only: a FIFO would block, /dev/zero never end. */
        _cleanup_close_ int fd = open_file(r, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        char *buf = NULL;
        size_t len = 0;

        if (fd < 0)
                return errno == ENXIO ? -EBADFD : -errno; /* a socket: open() refuses it */
        /* A sysfs attribute (or its captured copy, a regular file) hands over everything in one
         * read, so a short read is the end: that saves a syscall per file, which is most of what
         * `show` costs. /proc files such as numa_maps come a page at a time: read until 0. */
        bool sysfs = startswith(rel(path), "sys/") != NULL, procfs = !sysfs && startswith(rel(path), "proc/");
        size_t max = sysfs ? ROOT_SYSFS_FILE_MAX : READ_PROC_MAX;
        unsigned flags = sysfs ? READ_ONE_SHOT : 0;
        /* This machine's sysfs and procfs hold no FIFO or device (a directory fails the read with
         * -EISDIR, as the check says it): the fstat() of the check is a quarter of the calls a
         * file costs, so it is left to captures, which are someone's files. */
        int e = (sysfs && r->kernel_sys) || (procfs && r->kernel_proc) ? read_fd_all(fd, max, flags, &buf, &len)
                : sysfs                                                ? read_attribute_fd(fd, max, &buf, &len)
                                                                       : read_regular_fd(fd, max, flags, &buf, &len);
        if (e < 0)
                return e;
        record(r, path, buf, len);
        log_debug("read /%s (%zu bytes)", rel(path), len); /* -vv: what numaplan read */
        *ret = buf;
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* A piece of the file at a time: enough lines per read() that a big smaps costs few calls. */
#define LINES_CHUNK (64U << 10)

int root_read_lines(struct root *r, const char *path, int (*fn)(const char *line, const char *eol, void *userdata),
                    void *userdata) {
        _cleanup_close_ int fd = open_file(r, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        size_t cap = LINES_CHUNK, len = 0, total = 0;

        if (fd < 0)
                return errno == ENXIO ? -EBADFD : -errno;
        bool kernel = startswith(rel(path), "proc/") ? r->kernel_proc : startswith(rel(path), "sys/") && r->kernel_sys;
        int e = kernel ? 0 : fd_verify_regular(fd);
        if (e < 0)
                return e;
        _cleanup_free_ char *buf = xmalloc(cap + 1);
        for (;;) {
                if (len == cap) { /* one line fills the buffer */
                        if (cap >= ROOT_LINE_MAX)
                                return -EFBIG;
                        cap *= 2;
                        buf = xrealloc(buf, cap + 1);
                }
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                /* Text holds no NUL; a line cut at one would be taken for the whole line. */
                if (memchr(buf + len, 0, (size_t) n))
                        return -EBADMSG;
                len += (size_t) n;
                total += (size_t) n;
                char *p = buf, *end = buf + len, *nl;
                while ((nl = memchr(p, '\n', (size_t) (end - p)))) {
                        *nl = 0;
                        e = fn(p, nl, userdata);
                        if (e < 0)
                                return e;
                        p = nl + 1;
                }
                len = (size_t) (end - p);
                memmove(buf, p, len);
        }
        buf[len] = 0;
        if (len && (e = fn(buf, buf + len, userdata)) < 0)
                return e;
        log_debug("read /%s (%zu bytes, by line)", rel(path), total);
        return 0;
}

int root_read_string(struct root *r, const char *path, char **ret) {
        char *s;
        int e = root_read_file(r, path, &s, NULL);
        if (e < 0)
                return e;
        *ret = strip_trailing(s);
        return 0;
}

int root_read_unrecorded(struct root *r, const char *path, char **ret) {
        bool recording = r->recording;
        r->recording = false;
        int e = root_read_string(r, path, ret);
        r->recording = recording;
        return e;
}

int root_opendir(struct root *r, const char *path, DIR **ret) {
        DIR *d = fd_opendir(open_file(r, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!d)
                return -errno;
        record(r, path, NULL, 0);
        *ret = d;
        return 0;
}

void root_record_dir(struct root *r, const char *path) {
        _cleanup_closedir_ DIR *d = NULL;
        (void) root_opendir(r, path, &d);
}

void root_record_link(struct root *r, const char *path, const char *target) {
        struct root_entry *e = record_new(r, path);

        if (e)
                e->link = xstrdup(target);
}

void root_record_file(struct root *r, const char *path) {
        if (!r->recording)
                return;
        _cleanup_free_ char *buf = NULL;
        (void) root_read_file(r, path, &buf, NULL);
}

const struct root_entry *root_recorded(const struct root *r, size_t *ret_n) {
        *ret_n = r->n_rec;
        return r->rec;
}
