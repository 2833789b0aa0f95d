/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>

#include "basic/escape.h"
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

int process_pages(struct root *root, pid_t pid, const struct cpuset *planned, struct page_tally *t) {
        _cleanup_free_ char *path = xasprintf("proc/%d/numa_maps", (int) pid), *text = NULL,
                            *maps_path = xasprintf("proc/%d/maps", (int) pid), *maps = NULL;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return -ENOENT;
        /* Which file each mapping is; without it (a capture that lacks it) files go by path. */
        (void) root_read_file(root, maps_path, &maps, NULL);
        return page_tally_add(t, text, maps, planned);
}
