/* SPDX-License-Identifier: MIT */
#include <linux/magic.h>
#include <sys/vfs.h>

#include "cgroup.h"
#include "root.h"
#include "util.h"

/* Is `word` one of the space-separated words of `list`? */
static bool has_word(const char *list, const char *word) {
        size_t n = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += n)
                if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
                        return true;
        return false;
}

static bool is_cgroup2(const char *path) {
        struct statfs fs;
        return statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
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
        if (root_is_host(root) && !root_is_recording(root)) {
                if (is_cgroup2("/sys/fs/cgroup")) {
                        cpuset_available(root, ret);
                        v2 = xstrdup("/sys/fs/cgroup");
                } else {
                        *ret = CGROUP_LEGACY;
                        if (is_cgroup2("/sys/fs/cgroup/unified"))
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
