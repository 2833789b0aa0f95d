/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/escape.h"
#include "core/held-pages.h"
#include "host/root.h"
#include "core/sysfs-parse.h"
#include "host/tasks.h"
#include "basic/util.h"

static int task_status(struct root *root, pid_t pid, pid_t tid, struct task *t) {
        _cleanup_free_ char *path = xasprintf("proc/%d/task/%d/status", (int) pid, (int) tid), *text = NULL;
        const char *v;
        size_t len;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return r;
        *t = (struct task){.pid = pid, .tid = tid};
        if (status_field(text, "Name", &v, &len) >= 0) {
                /* As the thread named itself, escaped for JSON and the journal. */
                _cleanup_free_ char *raw = xstrndup(v, len), *name = text_escape(raw);
                snprintf(t->comm, sizeof(t->comm), "%s", name);
        }
        static const char *const keys[] = {"Cpus_allowed_list", "Mems_allowed_list"};
        struct cpuset *sets[] = {&t->cpus, &t->mems};
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                if (status_field(text, keys[i], &v, &len) < 0)
                        return -EBADMSG;
                _cleanup_free_ char *s = xstrndup(v, len);
                if (cpuset_parse_list(s, sets[i]) < 0)
                        return -EBADMSG;
        }
        return 0;
}

static void add_unread(char ***unread, char *what) {
        size_t n = strv_length(*unread);
        *unread = xrealloc(*unread, (n + 2) * sizeof(char *));
        (*unread)[n] = what;
        (*unread)[n + 1] = NULL;
}

int process_tasks(struct root *root, pid_t pid, struct task **ret, size_t *ret_n, char ***unread) {
        _cleanup_free_ char *dir = xasprintf("proc/%d/task", (int) pid);
        struct task *v = NULL;
        size_t n = 0;
        struct dirent *de;
        _cleanup_closedir_ DIR *d = NULL;

        *ret = NULL;
        *ret_n = 0;
        int r = root_opendir(root, dir, &d);
        if (r < 0) {
                if (r != -ENOENT && r != -ESRCH) /* gone */
                        add_unread(unread, xasprintf("/%s: %s", dir, strerror(-r)));
                return 0;
        }
        while ((de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                struct task t;
                r = task_status(root, pid, (pid_t) atoi(de->d_name), &t);
                if (r == -ENOENT || r == -ESRCH)
                        continue; /* the thread exited between readdir and read */
                if (r < 0) {
                        _cleanup_free_ char *shown = name_escape(de->d_name); /* a capture's, escaped */
                        add_unread(unread, xasprintf("/%s/%s/status: %s", dir, shown,
                                                     r == -EBADMSG ? "no allowed CPUs or nodes numaplan can read"
                                                                   : strerror(-r)));
                        continue;
                }
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n++] = t;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* A process that is gone, or a file it closed: nothing lost. */
static bool gone(int r) {
        return r == -ENOENT || r == -ESRCH;
}

/* Why a file could not be read, in words: `r` from the read, `broke` when a line did not parse. */
static char *why_unread(int r, bool broke) {
        if (broke)
                return xstrdup("a line numaplan cannot read");
        if (r == -EFBIG)
                return xasprintf("a line longer than %u bytes", ROOT_LINE_MAX);
        if (r == -EBADMSG)
                return xstrdup("a NUL byte, which no text holds");
        return xstrdup(strerror(-r));
}

/* The path escaped: a capture's fd/ may hold any name that starts with a digit. */
static void unread(struct page_tally *t, enum page_source source, const char *path, char *why) {
        _cleanup_free_ char *shown = name_escape(path);
        page_tally_add_unread(t, source, xasprintf("/%s", shown), why);
}

/* The buffers registered with the io_urings the process holds open, sorted, each once. Only for a
 * process with pinned pages: its descriptors are listed, each link read. */
static void uring_pinned(struct root *root, pid_t pid, struct page_tally *t, struct address_range **ret,
                         size_t *ret_n) {
        _cleanup_free_ char *dir = xasprintf("proc/%d/fd", (int) pid);
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        size_t n = 0;

        *ret = NULL;
        *ret_n = 0;
        int r = root_opendir(root, dir, &d);
        if (r < 0) {
                if (!gone(r))
                        unread(t, PAGE_SOURCE_FDINFO, dir, why_unread(r, false));
                return;
        }
        while ((de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                _cleanup_free_ char *fd = xasprintf("%s/%s", dir, de->d_name), *link = NULL, *info = NULL,
                                    *info_path = xasprintf("proc/%d/fdinfo/%s", (int) pid, de->d_name);
                struct stat st;
                if (root_lstat(root, fd, &st, &link) < 0 || !streq_ptr(link, "anon_inode:[io_uring]"))
                        continue;
                r = root_read_file(root, info_path, &info, NULL);
                if (r >= 0 && uring_buffers(info, ret, &n) < 0)
                        unread(t, PAGE_SOURCE_FDINFO, info_path, why_unread(r, true));
                else if (r < 0 && !gone(r)) /* gone: closed meanwhile */
                        unread(t, PAGE_SOURCE_FDINFO, info_path, why_unread(r, false));
        }
        if (n)
                qsort(*ret, n, sizeof(**ret), address_range_compare);
        size_t k = 0; /* a ring open twice (dup, fork) lists its buffers twice */
        for (size_t i = 0; i < n; i++)
                if (k == 0 || (*ret)[k - 1].start != (*ret)[i].start || (*ret)[k - 1].end != (*ret)[i].end)
                        (*ret)[k++] = (*ret)[i];
        *ret_n = k;
}

struct smaps_read {
        struct smaps_parser p;
        bool broke;
};

static int smaps_line(const char *line, const char *eol, void *userdata) {
        struct smaps_read *s = userdata;
        int r = smaps_parser_line(&s->p, line, eol);
        s->broke = r < 0;
        return r;
}

/* What the process holds locked and pinned, when its status says it holds any: its mappings from
 * smaps, read a piece at a time (70 MB for 100,000 mappings), and its io_urings' buffers. False
 * when it holds nothing, or when its status cannot say (recorded in `t` unless it is gone). */
static bool process_held(struct root *root, pid_t pid, struct page_tally *t, struct process_held *h,
                         struct smaps_mapping **ret_mappings, struct address_range **ret_pinned) {
        _cleanup_free_ char *status_path = xasprintf("proc/%d/status", (int) pid), *status = NULL,
                            *smaps_path = xasprintf("proc/%d/smaps", (int) pid);
        struct smaps_read s = {0};

        *h = (struct process_held){0};
        *ret_mappings = NULL;
        *ret_pinned = NULL;
        int r = root_read_file(root, status_path, &status, NULL);
        if (r < 0) {
                if (!gone(r))
                        unread(t, PAGE_SOURCE_STATUS, status_path, why_unread(r, false));
                return false;
        }
        r = status_held_kb(status, &h->locked_kb, &h->pinned_kb);
        if (r == -EINVAL)
                unread(t, PAGE_SOURCE_STATUS, status_path, xstrdup("VmLck or VmPin is not \"N kB\""));
        if (r < 0 || (h->locked_kb == 0 && h->pinned_kb == 0)) /* -ENOENT: no address space */
                return false;
        /* Even a capture without it leaves unknown which mappings hold those pages. */
        r = root_read_lines(root, smaps_path, smaps_line, &s);
        if (r < 0) {
                free(s.p.v);
                unread(t, PAGE_SOURCE_SMAPS, smaps_path, why_unread(r, s.broke));
        } else {
                smaps_parser_finish(&s.p, ret_mappings, &h->n_mappings);
                h->mappings = *ret_mappings;
        }
        if (h->pinned_kb) {
                uring_pinned(root, pid, t, ret_pinned, &h->n_pinned);
                h->pinned = *ret_pinned;
        }
        return true;
}

struct maps_read {
        struct maps_entry *v;
        size_t n;
        bool broke;
};

static int maps_line(const char *line, const char *eol, void *userdata) {
        struct maps_read *m = userdata;
        int r = maps_files_line(line, eol, &m->v, &m->n);
        m->broke = r < 0;
        return r;
}

struct numa_read {
        struct page_tally *t;
        const struct maps_read *maps;
        const struct cpuset *planned;
        const struct process_held *held;
        struct page_tally_reader *rd; /* from the first line on */
        bool broke;
};

static int numa_line(const char *line, const char *eol, void *userdata) {
        struct numa_read *x = userdata;
        if (!x->rd)
                x->rd = page_tally_begin(x->t, x->maps->v, x->maps->n, x->planned, x->held);
        int r = page_tally_line(x->rd, line, eol);
        x->broke = r < 0;
        return r;
}

int process_pages(struct root *root, pid_t pid, const struct cpuset *planned, struct page_tally *t) {
        _cleanup_free_ char *path = xasprintf("proc/%d/numa_maps", (int) pid),
                            *maps_path = xasprintf("proc/%d/maps", (int) pid);
        _cleanup_free_ struct smaps_mapping *mappings = NULL;
        _cleanup_free_ struct address_range *pinned = NULL;
        struct maps_read maps = {0};
        struct process_held held;
        size_t n_unread = t->n_unread;

        /* Every file is read in pieces, and numa_maps last: what it counts is placed by the rest. */
        bool holds = process_held(root, pid, t, &held, &mappings, &pinned);
        /* Which file each mapping is; without it (a capture that lacks it) files go by path. */
        int r = root_read_lines(root, maps_path, maps_line, &maps);
        if (r < 0 && !gone(r))
                unread(t, PAGE_SOURCE_MAPS, maps_path, why_unread(r, maps.broke));
        struct numa_read x = {.t = t, .maps = &maps, .planned = planned, .held = holds ? &held : NULL};
        r = root_read_lines(root, path, numa_line, &x);
        if (r < 0 && gone(r) && !x.rd) {
                /* Exited before its numa_maps was read: it had nothing to lose. */
                for (size_t i = n_unread; i < t->n_unread; i++) {
                        free(t->unread[i].path);
                        free(t->unread[i].error);
                }
                t->n_unread = n_unread;
                free(maps.v);
                return -ENOENT;
        }
        if (!x.rd) /* an empty numa_maps (a kernel thread), or one not read */
                x.rd = page_tally_begin(t, maps.v, maps.n, planned, x.held);
        x.rd = page_tally_end(x.rd);
        free(maps.v);
        if (r < 0) {
                unread(t, PAGE_SOURCE_NUMA_MAPS, path,
                       x.broke ? xstrdup("a line numaplan cannot read; counted up to it") : why_unread(r, false));
                return x.broke ? -EINVAL : r;
        }
        return 0;
}
