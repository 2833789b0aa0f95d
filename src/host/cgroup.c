/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdlib.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "host/cgroup.h"
#include "host/host-facts.h"
#include "host/root.h"

/* Is `word` one of the space-separated words of `list`? */
static bool has_word(const char *list, const char *word) {
        size_t n = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += n)
                if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
                        return true;
        return false;
}

static void cpuset_available(struct root *root, enum cgroup_mode *ret) {
        _cleanup_free_ char *controllers = NULL;
        /* An unreadable list (a capture without it) is given the benefit of the doubt. */
        if (root_read_file(root, "sys/fs/cgroup/cgroup.controllers", &controllers, NULL) < 0)
                *ret = CGROUP_UNIFIED;
        else
                *ret = has_word(controllers, "cpuset") ? CGROUP_UNIFIED : CGROUP_UNIFIED_NO_CPUSET;
}

void cgroup_detect(struct root *root, enum cgroup_mode *ret, char **ret_mount) {
        _cleanup_free_ char *mounts = NULL, *v2 = NULL;

        /* On the live host, ask the file system type, as systemd does: one statfs() instead of the
         * mount table, which is the slowest file `show` would read. A capture carries the table. */
        int unified_root = host_is_cgroup2(root, "/sys/fs/cgroup");
        if (unified_root != -EOPNOTSUPP) {
                if (unified_root > 0) {
                        cpuset_available(root, ret);
                        v2 = xstrdup("/sys/fs/cgroup");
                } else {
                        *ret = CGROUP_LEGACY;
                        if (host_is_cgroup2(root, "/sys/fs/cgroup/unified") > 0)
                                v2 = xstrdup("/sys/fs/cgroup/unified");
                }
                if (ret_mount)
                        *ret_mount = TAKE_PTR(v2);
                return;
        }

        if (root_read_file(root, "proc/self/mounts", &mounts, NULL) < 0 &&
            root_read_file(root, "proc/mounts", &mounts, NULL) < 0) {
                *ret = CGROUP_UNKNOWN;
                if (ret_mount)
                        *ret_mount = NULL;
                return;
        }

        /* "cgroup2 /sys/fs/cgroup cgroup2 rw,... 0 0": the second field is the mount point, the
         * third the type. The last mount of a path wins, as in the kernel. */
        bool unified = false;
        for (char *line = mounts, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char dev[256], path[4096], type[64];
                if (sscanf(line, "%255s %4095s %63s", dev, path, type) != 3)
                        continue;
                if (streq(path, "/sys/fs/cgroup")) {
                        unified = streq(type, "cgroup2");
                        if (unified) {
                                free(v2);
                                v2 = xstrdup(path);
                        }
                } else if (streq(type, "cgroup2") && !v2)
                        v2 = xstrdup(path);
        }

        if (unified)
                cpuset_available(root, ret);
        else
                *ret = CGROUP_LEGACY;
        if (ret_mount)
                *ret_mount = TAKE_PTR(v2);
}

/* When the process started, from field 22 of /proc/PID/stat (clock ticks after boot). The
 * command name in field 2 may hold blanks and parentheses: fields count from the last ')'. */
static double start_time(struct root *root, pid_t pid, double btime, long ticks, char comm[32]) {
        _cleanup_free_ char *path = xasprintf("proc/%d/stat", (int) pid), *stat = NULL;
        unsigned long long start;

        if (root_read_file(root, path, &stat, NULL) < 0)
                return 0;
        char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
        if (!open_paren || !close_paren || close_paren < open_paren)
                return 0;
        /* A process names itself: escaped, so that JSON and the journal take whatever it chose. */
        _cleanup_free_ char *raw = xstrndup(open_paren + 1, (size_t) (close_paren - open_paren - 1)),
                            *name = text_escape(raw);
        snprintf(comm, 32, "%s", name);
        const char *p = close_paren + 1;
        for (int field = 3; field < 22 && p; field++) /* skip state .. itrealvalue */
                p = strchr(p + 1, ' ');
        if (!p || sscanf(p, " %llu", &start) != 1 || btime == 0)
                return 0;
        return btime + (double) start / (double) ticks;
}

/* Appends the processes of <mount><cgroup>/cgroup.procs to *v, marked as of cgroup `index`. */
static int add_processes(struct root *root, const char *mount, const char *cgroup, unsigned index, struct process **v,
                         size_t *n) {
        _cleanup_free_ char *path = xasprintf("%s%s/cgroup.procs", mount, cgroup), *text = NULL;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return r;
        double btime = host_boot_time(root);
        long ticks = host_clock_ticks(root);
        for (char *p = text; *p;) {
                char *end;
                long pid = strtol(p, &end, 10);
                if (end == p || pid <= 0)
                        return -EINVAL;
                *v = xrealloc(*v, (*n + 1) * sizeof(**v));
                struct process *pr = &(*v)[(*n)++];
                *pr = (struct process){.pid = (pid_t) pid, .cgroup = index};
                pr->start = start_time(root, (pid_t) pid, btime, ticks, pr->comm);
                p = end + strspn(end, "\n");
        }
        return 0;
}

/* Every cgroup below `cgroup`, parents before children, siblings by name. Bounded: a unit
 * that delegates may make cgroups, but not make numaplan walk forever. */
#define CGROUP_DEPTH_MAX 16
#define CGROUPS_MAX 4096

static void walk(struct root *root, const char *mount, const char *cgroup, unsigned depth, struct cgroup_tree *t) {
        _cleanup_free_ char *dir = xasprintf("%s%s", mount, cgroup);
        _cleanup_closedir_ DIR *d = NULL;

        if (depth >= CGROUP_DEPTH_MAX || root_opendir(root, dir, &d) < 0)
                return;
        char **children = NULL;
        size_t n = 0;
        for (struct dirent *de; (de = readdir(d));)
                if ((de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) && de->d_name[0] != '.') {
                        children = xrealloc(children, (n + 1) * sizeof(char *));
                        children[n++] = xasprintf("%s/%s", cgroup, de->d_name);
                }
        d = safe_closedir(d); /* before going deeper: one directory open at a time */
        strv_sort(children, n);
        for (size_t i = 0; i < n; i++) {
                if (t->n_cgroups < CGROUPS_MAX && add_processes(root, mount, children[i], (unsigned) t->n_cgroups,
                                                                &t->processes, &t->n_processes) >= 0) {
                        t->cgroups = xrealloc(t->cgroups, (t->n_cgroups + 2) * sizeof(char *));
                        t->cgroups[t->n_cgroups++] = xstrdup(children[i]);
                        t->cgroups[t->n_cgroups] = NULL;
                        walk(root, mount, children[i], depth + 1, t);
                }
                free(children[i]);
        }
        free(children);
}

int cgroup_tree_read(struct root *root, const char *mount, const char *cgroup, struct cgroup_tree *t) {
        int r = add_processes(root, mount, cgroup, (unsigned) t->n_cgroups, &t->processes, &t->n_processes);
        if (r < 0)
                return r;
        t->cgroups = xrealloc(t->cgroups, (t->n_cgroups + 2) * sizeof(char *));
        t->cgroups[t->n_cgroups++] = xstrdup(cgroup);
        t->cgroups[t->n_cgroups] = NULL;
        walk(root, mount, cgroup, 0, t);
        return 0;
}

void cgroup_tree_done(struct cgroup_tree *t) {
        free(t->processes);
        strv_free(t->cgroups);
        *t = (struct cgroup_tree){0};
}

bool cgroup_is_below(const char *cgroup, const char *top) {
        size_t n = strlen(top);
        return strncmp(cgroup, top, n) == 0 && (cgroup[n] == 0 || cgroup[n] == '/');
}

int cgroup_of_process(struct root *root, pid_t pid, char **ret) {
        _cleanup_free_ char *path = xasprintf("proc/%d/cgroup", (int) pid), *text = NULL;

        int r = root_read_file(root, path, &text, NULL);
        if (r < 0)
                return r;
        /* cgroup v2's line is "0::/system.slice/docker-ID.scope". */
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (startswith(line, "0::/")) {
                        *ret = xstrdup(line + 3);
                        return 0;
                }
        }
        return -ENOENT;
}

int cgroup_cpuset(struct root *root, const char *mount, const char *cgroup, struct cpuset *cpus, struct cpuset *mems) {
        _cleanup_free_ char *cp = xasprintf("%s%s/cpuset.cpus.effective", mount, cgroup),
                            *mp = xasprintf("%s%s/cpuset.mems.effective", mount, cgroup), *c = NULL, *m = NULL;
        int r = root_read_string(root, cp, &c);
        if (r >= 0)
                r = root_read_string(root, mp, &m);
        if (r < 0)
                return r;
        if (cpuset_parse_list(c, cpus) < 0 || cpuset_parse_list(m, mems) < 0)
                return -EINVAL;
        return 0;
}
