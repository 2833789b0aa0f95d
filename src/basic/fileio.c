/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"

int write_step(const char *what, const char *path) {
        static unsigned step;
        const char *kill_at = getenv("NUMAPLAN_TEST_KILL_AT_STEP"), *fail_at = getenv("NUMAPLAN_TEST_FAIL_AT_STEP");

        step++;
        if (kill_at && (unsigned) atoi(kill_at) == step) {
                fprintf(stderr, "numaplan: test hook: killed at write step %u (%s: %s)\n", step, path, what);
                _exit(137);
        }
        if (fail_at && (unsigned) atoi(fail_at) == step) {
                fprintf(stderr, "numaplan: test hook: failing write step %u (%s: %s)\n", step, path, what);
                return -EIO;
        }
        return 0;
}

static int fsync_dir_of(const char *path) {
        _cleanup_free_ char *copy = xstrdup(path);
        _cleanup_close_ int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

int write_temporary(const char *path, const char *content, char **ret_tmp) {
        _cleanup_free_ char *copy = xstrdup(path), *copy2 = xstrdup(path);
        _cleanup_free_ char *tmp = xasprintf("%s/.#%s.XXXXXX", dirname(copy), basename(copy2));
        size_t len = strlen(content);
        int r = write_step("write temporary", path);
        if (r < 0)
                return r;

        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        for (size_t done = 0; done < len;) {
                ssize_t n = write(fd, content + done, len - done);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        unlink(tmp);
                        return r;
                }
                done += (size_t) n;
        }
        if (fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
                r = -errno;
                unlink(tmp);
                return r;
        }
        *ret_tmp = TAKE_PTR(tmp);
        return 0;
}

void remove_stale_temporaries(const char *path) {
        _cleanup_free_ char *copy = xstrdup(path), *copy2 = xstrdup(path);
        const char *dir = dirname(copy);
        _cleanup_free_ char *prefix = xasprintf(".#%s.", basename(copy2));
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d)))
                if (startswith(de->d_name, prefix)) {
                        _cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name);
                        (void) unlink(p);
                }
        closedir(d);
}

int rename_durably(const char *from, const char *to) {
        int r = write_step("rename", to);
        if (r < 0)
                return r;
        if (rename(from, to) < 0)
                return -errno;
        return fsync_dir_of(to);
}

int unlink_durably(const char *path) {
        int r = write_step("unlink", path);
        if (r < 0)
                return r;
        if (unlink(path) < 0)
                return -errno;
        return fsync_dir_of(path);
}

int write_file_atomic(const char *path, const char *content) {
        _cleanup_free_ char *tmp = NULL;
        int r = write_temporary(path, content, &tmp);
        if (r < 0)
                return r;
        r = rename_durably(tmp, path);
        if (r < 0)
                unlink(tmp);
        return r;
}

int read_file(const char *path, char **ret) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        struct strbuf b = {0};
        char buf[4096];
        size_t n;

        if (!f)
                return -errno;
        while ((n = fread(buf, 1, sizeof(buf) - 1, f)) > 0) {
                buf[n] = 0;
                strbuf_append(&b, buf);
        }
        if (ferror(f)) {
                strbuf_done(&b);
                return -EIO;
        }
        *ret = strbuf_steal(&b);
        return 0;
}

int read_fd_all(int fd, size_t max, unsigned flags, char **ret, size_t *ret_len) {
        size_t cap = 4096, len = 0;
        _cleanup_free_ char *buf = xmalloc0(cap + 1);

        for (;;) {
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > max)
                        return -EFBIG;
                if (len == cap) {
                        cap *= 2;
                        buf = xrealloc(buf, cap + 1);
                } else if (flags & READ_ONE_SHOT)
                        break;
        }
        buf[len] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int mkdir_parents(const char *path, int mode) {
        _cleanup_free_ char *p = xstrdup(path);
        for (char *s = strchr(p + 1, '/'); ; s = strchr(s + 1, '/')) {
                if (s)
                        *s = 0;
                if (mkdir(p, (mode_t) mode) < 0 && errno != EEXIST)
                        return -errno;
                if (!s)
                        return 0;
                *s = '/';
        }
}

int lock_file(const char *path) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
                log_notice("waiting for another numaplan holding %s", path);
                if (flock(fd, LOCK_EX) < 0) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
        }
        return fd;
}
