/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/util.h"
#include "host/hugepages.h"

void pool_changes_done(struct pool_changes *c) {
        free(c->v);
        *c = (struct pool_changes){0};
}

bool pool_changes_any(const struct pool_changes *c) {
        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].after != c->v[i].before)
                        return true;
        return false;
}

bool pool_changes_short(const struct pool_changes *c) {
        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].ours < c->v[i].wanted)
                        return true;
        return false;
}

static char *pool_path(const char *node_dir, int node, uint64_t page_kb) {
        return xasprintf("%s/node%d/hugepages/hugepages-%" PRIu64 "kB/nr_hugepages", node_dir, node, page_kb);
}

static int read_count(const char *path, uint64_t *ret) {
        _cleanup_free_ char *s = NULL;
        int r = read_file(path, &s);
        if (r < 0)
                return r;
        return parse_uint64(strip_trailing(s), 10, ret);
}

static int write_count(const char *path, uint64_t v) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0)
                return -errno;
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%" PRIu64 "\n", v);
        /* The kernel allocates the pages during the write: it returns when it has what it could get. */
        if (write(fd, buf, (size_t) n) != n)
                return errno ? -errno : -EIO;
        return 0;
}

static int read_record(const char *record, struct pools *ret) {
        _cleanup_free_ char *text = NULL;
        unsigned line;
        int r = read_file(record, &text);
        if (r == -ENOENT) {
                *ret = (struct pools){0};
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "cannot read %s: %m", record);
        if (pools_parse(text, ret, &line) < 0)
                return log_error_at((struct where){record, line},
                                    "not a record of numaplan's huge pages: remove the file and release the pages by "
                                    "hand if numaplan reserved them");
        return 0;
}

static int write_record(const char *record, const struct pools *ours) {
        _cleanup_free_ char *dir_copy = xstrdup(record), *name_copy = xstrdup(record), *text = pools_format(ours);
        const char *dir = dirname(dir_copy), *name = basename(name_copy);
        _cleanup_close_ int dfd = -1;

        int r = mkdir_parents(dir, 0755);
        if (r >= 0)
                r = dfd = open_dir_at(AT_FDCWD, dir, false, NULL);
        if (r >= 0)
                r = *text ? write_file_atomic_at(dfd, name, text) : unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
        if (r < 0)
                return log_error_errno(r, "cannot record numaplan's huge pages in %s: %m", record);
        return 0;
}

int hugepages_reserve(const char *node_dir, const char *record, const struct pools *want, bool dry,
                      struct pool_changes *ret) {
        struct pools old, all = {0}, ours = {0};
        struct pool_changes c = {0};

        int r = read_record(record, &old);
        if (r < 0)
                return r;
        /* Every pool the plan wants, and every one numaplan holds pages of. */
        for (size_t i = 0; i < want->n; i++)
                pools_add(&all, want->v[i].node, want->v[i].page_kb, 0);
        for (size_t i = 0; i < old.n; i++)
                pools_add(&all, old.v[i].node, old.v[i].page_kb, 0);

        c.v = xmalloc0((all.n + 1) * sizeof(*c.v));
        for (size_t i = 0; i < all.n; i++) {
                struct pool_change *p = &c.v[c.n++];
                uint64_t recorded = pools_get(&old, all.v[i].node, all.v[i].page_kb);
                _cleanup_free_ char *path = pool_path(node_dir, all.v[i].node, all.v[i].page_kb);

                *p = (struct pool_change){.node = all.v[i].node, .page_kb = all.v[i].page_kb,
                                          .wanted = pools_get(want, all.v[i].node, all.v[i].page_kb)};
                p->error = read_count(path, &p->before);
                if (p->error < 0) {
                        log_error_errno(p->error, "cannot read %s: %m", path);
                        pools_add(&ours, p->node, p->page_kb, recorded); /* still ours, as far as we know */
                        continue;
                }
                uint64_t target = pools_target(p->before, recorded, p->wanted);
                p->after = p->before;
                if (dry) {
                        p->after = target;
                        p->ours = p->wanted;
                        continue;
                }
                if (target != p->before) {
                        p->error = write_count(path, target);
                        if (p->error < 0)
                                log_error_errno(p->error, "cannot set %s to %" PRIu64 ": %m", path, target);
                        (void) read_count(path, &p->after);
                }
                p->ours = pools_granted(p->before, recorded, p->wanted, p->after);
                pools_add(&ours, p->node, p->page_kb, p->ours);
        }
        if (!dry)
                r = write_record(record, &ours);
        pools_done(&old);
        pools_done(&all);
        pools_done(&ours);
        if (r < 0) {
                pool_changes_done(&c);
                return r;
        }
        *ret = c;
        return 0;
}
