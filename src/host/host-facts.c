/* SPDX-License-Identifier: MIT */
#include <elf.h>
#include <linux/magic.h>
#include <numaif.h>
#include <sched.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>

#include "basic/util.h"
#include "host/host-facts.h"
#include "host/root.h"
#include "core/sysfs-parse.h"

uint64_t live_page_size(void) {
        static uint64_t size;
        if (!size) {
                long s = sysconf(_SC_PAGESIZE);
                size = s > 0 ? (uint64_t) s : 4096;
        }
        return size;
}

uint64_t host_page_size(struct root *root) {
        _cleanup_free_ char *auxv = NULL;
        size_t len;

        if (root_is_live(root))
                return live_page_size();
        if (root_read_file(root, "proc/self/auxv", &auxv, &len) >= 0 && len % sizeof(Elf64_auxv_t) == 0)
                for (size_t i = 0; i + sizeof(Elf64_auxv_t) <= len; i += sizeof(Elf64_auxv_t)) {
                        Elf64_auxv_t a;
                        memcpy(&a, auxv + i, sizeof(a));
                        if (a.a_type == AT_PAGESZ && a.a_un.a_val >= 4096 && (a.a_un.a_val & (a.a_un.a_val - 1)) == 0)
                                return a.a_un.a_val;
                }
        return 4096;
}

long host_clock_ticks(struct root *root) {
        long t = root_is_live(root) ? sysconf(_SC_CLK_TCK) : 100;
        return t > 0 ? t : 100;
}

double host_boot_time(struct root *root) {
        _cleanup_free_ char *text = NULL;
        struct timespec real, boot;

        if (root_is_live(root)) {
                if (clock_gettime(CLOCK_REALTIME, &real) < 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
                        return 0;
                return (double) (real.tv_sec - boot.tv_sec) + (double) (real.tv_nsec - boot.tv_nsec) / 1e9;
        }
        if (root_read_file(root, "proc/stat", &text, NULL) < 0)
                return 0;
        const char *b = startswith(text, "btime ") ? text : strstr(text, "\nbtime ");
        return b ? strtod(strchr(b + 1, ' '), NULL) : 0;
}

bool host_allowed_sets(struct root *root, struct cpuset *ret_cpus, struct cpuset *ret_mems) {
        if (root_is_live(root)) {
                /* Both take a bitmap of unsigned longs: bit n in byte n/8 on little and big endian
                 * alike only for 8-bit words, so read them as longs. */
                unsigned long cpus[CPUSET_MAX / (8 * sizeof(unsigned long))] = {0};
                unsigned long mems[CPUSET_MAX / (8 * sizeof(unsigned long))] = {0};

                if (sched_getaffinity(0, sizeof(cpus), (cpu_set_t *) cpus) < 0 ||
                    syscall(SYS_get_mempolicy, NULL, mems, (unsigned long) CPUSET_MAX, NULL, MPOL_F_MEMS_ALLOWED) < 0)
                        return false;
                cpuset_clear(ret_cpus);
                cpuset_clear(ret_mems);
                for (unsigned i = 0; i < CPUSET_MAX; i++) {
                        unsigned long bit = 1UL << (i % (8 * sizeof(unsigned long)));
                        if (cpus[i / (8 * sizeof(unsigned long))] & bit)
                                cpuset_set(ret_cpus, i);
                        if (mems[i / (8 * sizeof(unsigned long))] & bit)
                                cpuset_set(ret_mems, i);
                }
                return true;
        }

        _cleanup_free_ char *status = NULL, *c = NULL, *m = NULL;
        const char *v;
        size_t len;
        if (root_read_file(root, "proc/self/status", &status, NULL) < 0)
                return false;
        if (status_field(status, "Cpus_allowed_list", &v, &len) < 0 || !(c = strndup(v, len)) ||
            cpuset_parse_list(c, ret_cpus) < 0)
                return false;
        if (status_field(status, "Mems_allowed_list", &v, &len) < 0 || !(m = strndup(v, len)) ||
            cpuset_parse_list(m, ret_mems) < 0)
                return false;
        return true;
}

int host_is_cgroup2(struct root *root, const char *path) {
        struct statfs fs;

        if (!root_is_live(root))
                return -EOPNOTSUPP;
        if (statfs(path, &fs) < 0)
                return -errno;
        return fs.f_type == CGROUP2_SUPER_MAGIC;
}
