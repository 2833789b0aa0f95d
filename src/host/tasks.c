/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "basic/escape.h"
#include "core/held-pages.h"
#include "host/root.h"
#include "host/sysfs-parse.h"
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
                        return -EINVAL;
                _cleanup_free_ char *s = xstrndup(v, len);
                r = cpuset_parse_list(s, sets[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

int process_tasks(struct root *root, pid_t pid, struct task **ret, size_t *ret_n) {
        _cleanup_free_ char *dir = xasprintf("proc/%d/task", (int) pid);
        struct task *v = NULL;
        size_t n = 0;
        struct dirent *de;
        _cleanup_closedir_ DIR *d = NULL;

        *ret = NULL;
        *ret_n = 0;
        if (root_opendir(root, dir, &d) < 0)
                return 0; /* gone */
        while ((de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                struct task t;
                if (task_status(root, pid, (pid_t) atoi(de->d_name), &t) < 0)
                        continue; /* the thread exited between readdir and read */
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n++] = t;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* The buffers registered with the io_urings the process holds open, sorted, each once. Only for a
 * process with pinned pages: its descriptors are listed, each link read. */
static void uring_pinned(struct root *root, pid_t pid, struct address_range **ret, size_t *ret_n) {
        _cleanup_free_ char *dir = xasprintf("proc/%d/fd", (int) pid);
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        size_t n = 0;

        *ret = NULL;
        if (root_opendir(root, dir, &d) < 0)
                return;
        while ((de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                _cleanup_free_ char *fd = xasprintf("%s/%s", dir, de->d_name), *link = NULL, *info = NULL,
                                    *info_path = xasprintf("proc/%d/fdinfo/%s", (int) pid, de->d_name);
                struct stat st;
                if (root_lstat(root, fd, &st, &link) < 0 || !streq_ptr(link, "anon_inode:[io_uring]") ||
                    root_read_file(root, info_path, &info, NULL) < 0)
                        continue;
                (void) uring_buffers(info, ret, &n);
        }
        if (n)
                qsort(*ret, n, sizeof(**ret), address_range_compare);
        size_t k = 0; /* a ring open twice (dup, fork) lists its buffers twice */
        for (size_t i = 0; i < n; i++)
                if (k == 0 || (*ret)[k - 1].start != (*ret)[i].start || (*ret)[k - 1].end != (*ret)[i].end)
                        (*ret)[k++] = (*ret)[i];
        *ret_n = k;
}

/* What the process holds locked and pinned, when its status says it holds any: its mappings from
 * smaps, and its io_urings' buffers. False when it holds nothing (or status cannot say). */
static bool process_held(struct root *root, pid_t pid, struct process_held *h, struct smaps_mapping **ret_mappings,
                         struct address_range **ret_pinned) {
        _cleanup_free_ char *status_path = xasprintf("proc/%d/status", (int) pid), *status = NULL,
                            *smaps_path = xasprintf("proc/%d/smaps", (int) pid), *smaps = NULL;

        *h = (struct process_held){0};
        *ret_mappings = NULL;
        *ret_pinned = NULL;
        if (root_read_file(root, status_path, &status, NULL) < 0 ||
            status_held_kb(status, &h->locked_kb, &h->pinned_kb) < 0 || (h->locked_kb == 0 && h->pinned_kb == 0))
                return false;
        if (root_read_file(root, smaps_path, &smaps, NULL) >= 0 &&
            smaps_mappings(smaps, ret_mappings, &h->n_mappings) >= 0)
                h->mappings = *ret_mappings;
        if (h->pinned_kb) {
                uring_pinned(root, pid, ret_pinned, &h->n_pinned);
                h->pinned = *ret_pinned;
        }
        return true;
}

int process_pages(struct root *root, pid_t pid, const struct cpuset *planned, struct page_tally *t) {
        _cleanup_free_ char *path = xasprintf("proc/%d/numa_maps", (int) pid), *text = NULL,
                            *maps_path = xasprintf("proc/%d/maps", (int) pid), *maps = NULL;
        _cleanup_free_ struct smaps_mapping *mappings = NULL;
        _cleanup_free_ struct address_range *pinned = NULL;
        struct process_held held;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return -ENOENT;
        /* Which file each mapping is; without it (a capture that lacks it) files go by path. */
        (void) root_read_file(root, maps_path, &maps, NULL);
        bool holds = process_held(root, pid, &held, &mappings, &pinned);
        return page_tally_add_held(t, text, maps, planned, holds ? &held : NULL);
}
