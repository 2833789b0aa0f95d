/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <ftw.h>
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
