/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <inttypes.h>
#include <dirent.h>
#include <libgen.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "live/hugepages.h"

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

/* The record, and whether there was one. */
static int read_record(const char *record, struct pools *ret, bool *ret_exists) {
        _cleanup_free_ char *text = NULL;
        unsigned line;
        int r = read_file(record, &text);
        *ret_exists = r != -ENOENT;
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
        _cleanup_free_ char *text = pools_format(ours);
        int r = write_file_path(record, text, 0);
        if (r < 0)
                return log_error_errno(r, "cannot record numaplan's huge pages in %s: %m", record);
        return 0;
}

/* Every live apply and remove writes the record, so its directory without it means it was
 * removed since: numaplan's pages there, if any, are no longer known as numaplan's. */
static bool say_record_gone(const char *record) {
        _cleanup_free_ char *copy = xstrdup(record);
        struct stat st;
        if (stat(dirname(copy), &st) < 0)
                return false;
        log_warning("%s is gone, though numaplan has run since boot: which huge pages numaplan reserved is no longer "
                    "known, and all of every pool count as others'; if numaplan reserved some, give them back by hand "
                    "(numaplan show lists the pools)",
                    record);
        return true;
}

/* "node 1 has no pool of 1.0 GiB pages": the pool's directory is absent, where its node's is. */
static bool pool_absent(const char *node_dir, int node) {
        _cleanup_free_ char *n = xasprintf("%s/node%d", node_dir, node);
        struct stat st;
        return stat(n, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A pool that is not what the record says: how much of it is taken as numaplan's, and why. */
static void say_disagrees(const char *record, const struct pool_change *p, const char *size, const struct pool *rec,
                          const struct pool_share *share) {
        if (rec->others_known)
                log_warning("%s: node %d's pool of %s pages holds %" PRIu64 ", where numaplan recorded %" PRIu64
                            " of its own beside %" PRIu64 " of others': %" PRIu64 " are taken as numaplan's, never "
                            "more than the pool holds beyond others'",
                            record, p->node, size, p->before, rec->pages, rec->others, share->ours);
        else
                log_warning("%s: node %d's pool of %s pages holds %" PRIu64 "; the record of %" PRIu64 " of "
                            "numaplan's (an older numaplan's) does not say whose the rest are: none are taken as "
                            "numaplan's; give numaplan's back by hand if it reserved them",
                            record, p->node, size, p->before, rec->pages);
}

int hugepages_reserve(const char *node_dir, const char *record, const struct pools *want, bool dry,
                      struct pool_changes *ret) {
        struct pools old, all = {0}, ours = {0};
        struct pool_changes c = {0};
        bool had_record;

        int r = read_record(record, &old, &had_record);
        if (r < 0)
                return r;
        if (!had_record)
                c.record_gone = say_record_gone(record);
        /* Every pool the plan wants, and every one numaplan holds pages of. */
        for (size_t i = 0; i < want->n; i++)
                pools_add(&all, want->v[i].node, want->v[i].page_kb, 0);
        for (size_t i = 0; i < old.n; i++)
                pools_add(&all, old.v[i].node, old.v[i].page_kb, 0);

        c.v = xmalloc0((all.n + 1) * sizeof(*c.v));
        for (size_t i = 0; i < all.n; i++) {
                struct pool_change *p = &c.v[c.n++];
                const struct pool *rec = pools_find(&old, all.v[i].node, all.v[i].page_kb);
                _cleanup_free_ char *path = pool_path(node_dir, all.v[i].node, all.v[i].page_kb);
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), all.v[i].page_kb * 1024);

                *p = (struct pool_change){.node = all.v[i].node,
                                          .page_kb = all.v[i].page_kb,
                                          .wanted = pools_get(want, all.v[i].node, all.v[i].page_kb)};
                p->error = read_count(path, &p->before);
                if (p->error < 0) {
                        p->no_pool = p->error == -ENOENT && pool_absent(node_dir, p->node);
                        if (!p->no_pool)
                                log_error_errno(p->error, "cannot read %s: %m", path);
                        if (rec && rec->others_known) /* still ours, as far as we know */
                                pools_add_record(&ours, p->node, p->page_kb, rec->pages, rec->others);
                        else if (rec)
                                pools_add(&ours, p->node, p->page_kb, rec->pages);
                        continue;
                }
                struct pool_share share = pools_share(p->before, rec);
                p->disagrees = share.disagrees;
                if (share.disagrees)
                        say_disagrees(record, p, size, rec, &share);
                uint64_t target = pools_target(share.others, p->wanted);
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
                p->ours = pools_granted(share.others, p->after);
                pools_add_record(&ours, p->node, p->page_kb, p->ours, p->after - p->ours);
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

char *hugepages_sizes(const char *node_dir, int node) {
        _cleanup_free_ char *dir = xasprintf("%s/node%d/hugepages", node_dir, node);
        _cleanup_free_ uint64_t *kb = NULL;
        struct strbuf b = {0};
        size_t n = 0;
        _cleanup_closedir_ DIR *d = opendir(dir);

        for (struct dirent *de; d && (de = readdir(d));) {
                uint64_t v;
                const char *num = startswith(de->d_name, "hugepages-");
                _cleanup_free_ char *digits = num ? xstrndup(num, strspn(num, "0123456789")) : NULL;
                if (!num || !*digits || !streq(num + strlen(digits), "kB") || parse_uint64(digits, 10, &v) < 0)
                        continue;
                size_t i = n++;
                kb = xrealloc(kb, n * sizeof(*kb));
                for (; i > 0 && kb[i - 1] > v; i--) /* smallest first */
                        kb[i] = kb[i - 1];
                kb[i] = v;
        }
        for (size_t i = 0; i < n; i++) {
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), kb[i] * 1024);
                strbuf_printf(&b, "%s%s", i ? ", " : "", size);
        }
        return n ? strbuf_steal(&b) : xstrdup("none");
}
