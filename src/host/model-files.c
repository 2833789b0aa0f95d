/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>

#include "basic/util.h"
#include "host/model-files.h"

struct walk {
        model_file_fn fn;
        void *userdata;
        struct {
                dev_t dev;
                ino_t ino;
        } *seen;
        size_t n_seen;
};

static bool seen_before(struct walk *w, const struct stat *st) {
        for (size_t i = 0; i < w->n_seen; i++)
                if (w->seen[i].dev == st->st_dev && w->seen[i].ino == st->st_ino)
                        return true;
        w->seen = xrealloc(w->seen, (w->n_seen + 1) * sizeof(*w->seen));
        w->seen[w->n_seen].dev = st->st_dev;
        w->seen[w->n_seen++].ino = st->st_ino;
        return false;
}

static int walk_one(struct walk *w, const char *path, unsigned depth) {
        struct stat st;

        if (stat(path, &st) < 0)
                return w->fn(path, NULL, w->userdata);
        if (S_ISREG(st.st_mode))
                return seen_before(w, &st) ? 0 : w->fn(path, &st, w->userdata);
        if (!S_ISDIR(st.st_mode) || depth >= MODEL_DEPTH_MAX || seen_before(w, &st))
                return 0;

        DIR *d = opendir(path);
        if (!d)
                return w->fn(path, NULL, w->userdata);
        /* Sorted, so that what is said about the files comes in the same order every time. */
        char **names = NULL;
        size_t n = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue; /* ".", "..", and the hidden: partial downloads, locks */
                names = xrealloc(names, (n + 1) * sizeof(char *));
                names[n++] = xstrdup(de->d_name);
        }
        closedir(d);
        strv_sort(names, n);

        int r = 0;
        for (size_t i = 0; i < n; i++) {
                if (r >= 0) {
                        _cleanup_free_ char *p = xasprintf("%s/%s", path, names[i]);
                        r = walk_one(w, p, depth + 1);
                }
                free(names[i]);
        }
        free(names);
        return r;
}

int model_files_walk(char *const *paths, model_file_fn fn, void *userdata) {
        struct walk w = {.fn = fn, .userdata = userdata};
        int r = 0;

        for (size_t i = 0; r >= 0 && paths && paths[i]; i++)
                r = walk_one(&w, paths[i], 0);
        free(w.seen);
        return r;
}

struct sizing {
        uint64_t bytes;
        char *bad;
};

static int add_size(const char *path, const struct stat *st, void *userdata) {
        struct sizing *s = userdata;
        if (!st) {
                int r = -errno;
                s->bad = xstrdup(path);
                return r;
        }
        s->bytes += (uint64_t) st->st_size;
        return 0;
}

int model_files_size(char *const *paths, uint64_t *ret, char **ret_path) {
        struct sizing s = {0};
        int r = model_files_walk(paths, add_size, &s);
        if (r < 0) {
                *ret_path = s.bad;
                return r;
        }
        *ret = s.bytes;
        return 0;
}
