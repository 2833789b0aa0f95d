/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tmproot.h"
#include "basic/util.h"

char *make_tmpdir(void) {
        const char *base = getenv("TMPDIR");
        char *d = xasprintf("%s/numaplan-test.XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(d))
                abort();
        return d;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(p);
}

void rm_rf(const char *path) {
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdir_parents(char *p) {
        for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                mkdir(p, 0755);
                *s = '/';
        }
}

void write_file(const char *dir, const char *path, const char *content) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, path);
        mkdir_parents(p);
        FILE *f = fopen(p, "we");
        if (!f || fputs(content, f) < 0 || fclose(f) != 0)
                abort();
}

char *read_whole(const char *path) {
        FILE *f = fopen(path, "re");
        struct strbuf b = {0};
        char buf[4096];
        size_t n;

        if (!f)
                return NULL;
        while ((n = fread(buf, 1, sizeof(buf) - 1, f)) > 0) {
                buf[n] = 0;
                strbuf_append(&b, buf);
        }
        fclose(f);
        return strbuf_steal(&b);
}

/* nftw() takes no context: the walk in progress. */
static struct {
        char **lines;
        size_t n, skip;
        bool inodes;
} walk;

static void escape_into(struct strbuf *b, const char *s) {
        for (; *s; s++)
                if (*s == '\n')
                        strbuf_append(b, "\\n");
                else if (*s == '\\')
                        strbuf_append(b, "\\\\");
                else {
                        char c[2] = {*s, 0};
                        strbuf_append(b, c);
                }
}

static int state_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        struct strbuf b = {0};
        (void) flag;

        if (ftw->level == 0)
                return 0;
        strbuf_printf(&b, "%s %s %04o", p + walk.skip,
                      S_ISDIR(st->st_mode)    ? "dir"
                      : S_ISREG(st->st_mode)  ? "file"
                      : S_ISLNK(st->st_mode)  ? "link"
                      : S_ISFIFO(st->st_mode) ? "fifo"
                                              : "other",
                      (unsigned) (st->st_mode & 07777));
        if (walk.inodes)
                strbuf_printf(&b, " inode %" PRIuMAX, (uintmax_t) st->st_ino);
        if (S_ISREG(st->st_mode)) {
                _cleanup_free_ char *c = read_whole(p);
                strbuf_append(&b, " '");
                escape_into(&b, strempty(c));
                strbuf_append(&b, "'");
        } else if (S_ISLNK(st->st_mode)) {
                char target[4096];
                ssize_t n = readlink(p, target, sizeof(target) - 1);
                target[n < 0 ? 0 : n] = 0;
                strbuf_printf(&b, " -> %s", target);
        }
        walk.lines = xrealloc(walk.lines, (walk.n + 1) * sizeof(char *));
        walk.lines[walk.n++] = strbuf_steal(&b);
        return 0;
}

char *tree_state(const char *dir, bool inodes) {
        struct strbuf b = {0};
        struct stat st;

        if (lstat(dir, &st) < 0)
                return xstrdup("(none)\n");
        walk.lines = NULL;
        walk.n = 0;
        walk.skip = strlen(dir) + 1;
        walk.inodes = inodes;
        nftw(dir, state_one, 16, FTW_PHYS);
        strv_sort(walk.lines, walk.n);
        for (size_t i = 0; i < walk.n; i++)
                strbuf_printf(&b, "%s\n", walk.lines[i]);
        strv_free_n(walk.lines, walk.n);
        walk.lines = NULL;
        return b.s ? strbuf_steal(&b) : xstrdup("");
}
