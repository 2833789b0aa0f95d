/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <time.h>

#include "root.h"
#include "sysfs-parse.h"
#include "tasks.h"
#include "util.h"

/* When the host booted, in seconds since the epoch; 0 if unknown. Live, from the clocks: btime
 * in /proc/stat is rounded to the second, too coarse to tell whether a process started just
 * before or just after its drop-in was written. A capture carries /proc/stat. */
static double boot_time(struct root *root) {
        _cleanup_free_ char *text = NULL;
        struct timespec real, boot;

        if (root_is_host(root) && clock_gettime(CLOCK_REALTIME, &real) == 0 && clock_gettime(CLOCK_BOOTTIME, &boot) == 0)
                return (double) (real.tv_sec - boot.tv_sec) + (double) (real.tv_nsec - boot.tv_nsec) / 1e9;
        if (root_read_file(root, "proc/stat", &text, NULL) < 0)
                return 0;
        const char *b = startswith(text, "btime ") ? text : strstr(text, "\nbtime ");
        return b ? strtod(strchr(b + 1, ' '), NULL) : 0;
}

/* When the process started, from field 22 of /proc/PID/stat (clock ticks after boot). The
 * command name in field 2 may hold blanks and parentheses: fields count from the last ')'. */
static double start_time(struct root *root, pid_t pid, double btime, char comm[32]) {
        _cleanup_free_ char *path = xasprintf("proc/%d/stat", (int) pid), *stat = NULL;
        long ticks = sysconf(_SC_CLK_TCK);
        unsigned long long start;

        if (root_read_file(root, path, &stat, NULL) < 0)
                return 0;
        char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
        if (!open_paren || !close_paren || close_paren < open_paren)
                return 0;
        snprintf(comm, 32, "%.*s", (int) (close_paren - open_paren - 1), open_paren + 1);
        const char *p = close_paren + 1;
        for (int field = 3; field < 22 && p; field++) /* skip state .. itrealvalue */
                p = strchr(p + 1, ' ');
        if (!p || sscanf(p, " %llu", &start) != 1 || btime == 0)
                return 0;
        return btime + (double) start / (double) (ticks > 0 ? ticks : 100);
}

int cgroup_processes(struct root *root, const char *mount, const char *cgroup, struct process **ret, size_t *ret_n) {
        _cleanup_free_ char *path = xasprintf("%s%s/cgroup.procs", mount, cgroup), *text = NULL;
        struct process *v = NULL;
        size_t n = 0;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return r;
        double btime = boot_time(root);
        for (char *p = text; *p;) {
                char *end;
                long pid = strtol(p, &end, 10);
                if (end == p || pid <= 0) {
                        free(v);
                        return -EINVAL;
                }
                v = xrealloc(v, (n + 1) * sizeof(*v));
                v[n] = (struct process){.pid = (pid_t) pid};
                v[n].start = start_time(root, (pid_t) pid, btime, v[n].comm);
                n++;
                p = end + strspn(end, "\n");
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static int task_status(struct root *root, pid_t pid, pid_t tid, struct task *t) {
        _cleanup_free_ char *path = xasprintf("proc/%d/task/%d/status", (int) pid, (int) tid), *text = NULL;
        const char *v;
        size_t len;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return r;
        *t = (struct task){.pid = pid, .tid = tid};
        if (status_field(text, "Name", &v, &len) >= 0)
                snprintf(t->comm, sizeof(t->comm), "%.*s", (int) len, v);
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
        DIR *d;

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
        closedir(d);
        *ret = v;
        *ret_n = n;
        return 0;
}

int read_numastat(struct root *root, const int *nodes, size_t n_nodes, struct numastat **ret) {
        struct numastat *v = xmalloc0((n_nodes + 1) * sizeof(*v));

        for (size_t i = 0; i < n_nodes; i++) {
                _cleanup_free_ char *path = xasprintf("sys/devices/system/node/node%d/numastat", nodes[i]), *text = NULL;
                v[i].node = nodes[i];
                if (root_read_file(root, path, &text, NULL) < 0)
                        continue;
                static const char *const keys[] = {"numa_hit", "numa_miss", "numa_foreign", "other_node"};
                uint64_t *dst[] = {&v[i].numa_hit, &v[i].numa_miss, &v[i].numa_foreign, &v[i].other_node};
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        const char *p = strstr(text, keys[k]);
                        size_t kl = strlen(keys[k]);
                        while (p && ((p != text && p[-1] != '\n') || p[kl] != ' '))
                                p = strstr(p + 1, keys[k]);
                        if (p)
                                *dst[k] = strtoull(p + kl, NULL, 10);
                }
        }
        *ret = v;
        return 0;
}
