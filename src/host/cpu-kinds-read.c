/* SPDX-License-Identifier: MIT */
/* What hwloc reads to tell CPU kinds apart (hwloc_linux_cpukinds_*: each CPU's cpufreq,
 * cpu_capacity and Arm MIDR, Intel's hybrid PMUs) and its L3 caches (cache/indexN of level 3),
 * read as little as gives the same answer: one CPU a core (SMT siblings are one kind), one CPU an
 * L3 (its shared_cpu_list names the others), and nothing more of an attribute the first CPU lacks. */

#include <ctype.h>

#include "basic/util.h"
#include "host/cpu-kinds-read.h"
#include "host/root.h"

#define SYS_CPU "sys/devices/system/cpu"

static int read_u64(struct root *root, int cpu, const char *attr, uint64_t *ret) {
        char path[128];
        _cleanup_free_ char *s = NULL;
        snprintf(path, sizeof(path), SYS_CPU "/cpu%d/%s", cpu, attr);
        int r = root_read_string(root, path, &s);
        return r < 0 ? r : parse_uint64(s, 0, ret);
}

/* A CPU mask file, else its list twin (hwloc reads the mask, which captures of old kernels hold
 * right where the list is wrong); false when neither reads. */
static bool read_cpus(struct root *root, const char *mask, const char *list, struct cpuset *ret) {
        _cleanup_free_ char *m = NULL, *s = NULL;
        if (mask && root_read_string(root, mask, &m) >= 0 && cpuset_parse_mask(m, ret) >= 0)
                return true;
        return root_read_string(root, list, &s) >= 0 && cpuset_parse_list(s, ret) >= 0;
}

/* Which attributes the first online CPU has: hwloc reads each of every CPU, but a kernel gives
 * them to all CPUs or to none (cpufreq's driver, the arch's capacity). */
struct wanted {
        bool midr, max, base, nominal, capacity;
};

static struct wanted probe(struct root *root, int first) {
        struct wanted w = {0};
        uint64_t v;
        /* hwloc asks cpu0, online or not: its register was read at boot. */
        w.midr = read_u64(root, 0, "regs/identification/midr_el1", &v) >= 0;
        w.capacity = read_u64(root, first, "cpu_capacity", &v) >= 0;
        if (w.midr)
                return w;
        w.max = read_u64(root, first, "cpufreq/cpuinfo_max_freq", &v) >= 0;
        w.base = read_u64(root, first, "cpufreq/base_frequency", &v) >= 0;
        /* ACPI CPPC's nominal frequency only where intel_pstate gives no base frequency. */
        w.nominal = !w.base && read_u64(root, first, "acpi_cppc/nominal_freq", &v) >= 0 && v > 0;
        return w;
}

static void read_facts(struct root *root, int cpu, const struct wanted *w, struct cpu_facts *f) {
        uint64_t v;
        if (w->midr && read_u64(root, cpu, "regs/identification/midr_el1", &v) >= 0)
                f->midr = v;
        if (w->capacity && read_u64(root, cpu, "cpu_capacity", &v) >= 0)
                f->capacity = v;
        if (w->max && read_u64(root, cpu, "cpufreq/cpuinfo_max_freq", &v) >= 0)
                f->max_khz = v;
        if (w->base && read_u64(root, cpu, "cpufreq/base_frequency", &v) >= 0)
                f->base_khz = v;
        if (w->nominal && read_u64(root, cpu, "acpi_cppc/nominal_freq", &v) >= 0)
                f->base_khz = v * 1000; /* MHz */
}

/* An AMD CPU before Zen 5 (family 0x1a), where hwloc looks for no kinds: its cores are alike, and
 * their max frequencies differ by the cores' quality alone. Bulldozer's families 0x15 and 0x16
 * are the exception hwloc makes. From the first processor of /proc/cpuinfo. */
static bool amd_before_zen5(struct root *root) {
        _cleanup_free_ char *s = NULL;
        if (root_read_file(root, "proc/cpuinfo", &s, NULL) < 0)
                return false;
        const char *vendor = strstr(s, "vendor_id"), *family = strstr(s, "cpu family");
        if (!vendor || !family)
                return false;
        vendor += strcspn(vendor, ":\n");
        family += strcspn(family, ":\n");
        if (*vendor != ':' || *family != ':')
                return false;
        vendor += 1 + strspn(vendor + 1, " \t");
        int f = atoi(family + 1);
        return startswith(vendor, "AuthenticAMD") && f < 0x1a && f != 21 && f != 22;
}

void cpu_kinds_read(struct root *root, struct topology *t) {
        int n = t->max_cpu + 1, first = cpuset_next(&t->online_cpus, 0);
        t->kind_of = xmalloc((size_t) (n > 0 ? n : 1) * sizeof(int));
        for (int c = 0; c < n; c++)
                t->kind_of[c] = -1;
        if (first < 0)
                return;

        struct wanted w = probe(root, first);
        _cleanup_free_ struct cpu_facts *facts = xmalloc0((size_t) n * sizeof(*facts));
        if (w.midr || w.max || w.base || w.nominal || w.capacity)
                CPUSET_FOREACH(c, &t->online_cpus) {
                        int core = t->core_of && t->core_of[c] >= 0 ? t->core_of[c] : c;
                        if (core != c && cpuset_isset(&t->online_cpus, core))
                                facts[c] = facts[core]; /* read at its first thread */
                        else
                                read_facts(root, c, &w, &facts[c]);
                }
        static const char *const pmu_files[_CORE_TYPE_MAX] = {
                [CORE_TYPE_LOWPOWER] = "sys/devices/cpu_lowpower/cpus",
                [CORE_TYPE_ATOM] = "sys/devices/cpu_atom/cpus",
                [CORE_TYPE_CORE] = "sys/devices/cpu_core/cpus",
        };
        struct cpuset pmu[_CORE_TYPE_MAX];
        struct cpu_kinds_input in = {
                .cpus = &t->online_cpus, .facts = facts, .midr = w.midr, .base_from_cppc = w.nominal};
        for (size_t k = 0; !w.midr && k < _CORE_TYPE_MAX; k++)
                if (pmu_files[k] && read_cpus(root, NULL, pmu_files[k], &pmu[k]))
                        in.pmu[k] = &pmu[k];

        cpu_kinds_build(&in, &t->kinds);
        if (t->kinds.n > 1 && !w.midr && amd_before_zen5(root))
                cpu_kinds_done(&t->kinds);
        for (size_t k = 0; k < t->kinds.n; k++)
                CPUSET_FOREACH(c, &t->kinds.v[k].cpus)
                        if (c < n)
                                t->kind_of[c] = (int) k;
}

/* The index N of CPU `cpu`'s cache/indexN of level 3 (not an instruction cache), trying `guess`
 * first (the index the last CPU had); -1 for none. */
static int l3_index(struct root *root, int cpu, int guess) {
        for (int i = -1; i < 10; i++) {
                int idx = i < 0 ? guess : i;
                char path[96];
                _cleanup_free_ char *level = NULL, *type = NULL;
                if (i == guess)
                        continue;
                snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cache/index%d/level", cpu, idx);
                if (root_read_string(root, path, &level) < 0 || !streq(level, "3"))
                        continue;
                snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cache/index%d/type", cpu, idx);
                if (root_read_string(root, path, &type) >= 0 && streq(type, "Instruction"))
                        continue;
                return idx;
        }
        return -1;
}

/* "32768K": the size the kernel writes, in KiB. */
static uint64_t l3_size(struct root *root, int cpu, int idx) {
        char path[96];
        _cleanup_free_ char *s = NULL;
        snprintf(path, sizeof(path), SYS_CPU "/cpu%d/cache/index%d/size", cpu, idx);
        if (root_read_string(root, path, &s) < 0 || !isdigit((unsigned char) *s))
                return 0;
        return strtoull(s, NULL, 10) * 1024;
}

/* The CPUs sharing CPU `cpu`'s L3 cache, which index `idx` is: online, and `cpu`'s own SMT
 * siblings where the kernel names none (ia64, as hwloc has it). */
static void l3_cpus(struct root *root, const struct topology *t, int cpu, int idx, struct cpuset *ret) {
        char list[96], mask[96];
        snprintf(list, sizeof(list), SYS_CPU "/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
        snprintf(mask, sizeof(mask), SYS_CPU "/cpu%d/cache/index%d/shared_cpu_map", cpu, idx);
        if (!read_cpus(root, mask, list, ret))
                cpuset_clear(ret);
        cpuset_and(ret, &t->online_cpus);
        if (cpuset_is_empty(ret))
                CPUSET_FOREACH(s, &t->online_cpus)
                        if (s == cpu || (t->core_of && t->core_of[s] == t->core_of[cpu]))
                                cpuset_set(ret, (unsigned) s);
}

void l3_read(struct root *root, struct topology *t) {
        int n = t->max_cpu + 1, guess = 3;
        struct cpuset done = {0}, none = {0}; /* CPUs in an L3 found; first threads of cores without */
        char dir[64];

        t->l3_of = xmalloc((size_t) (n > 0 ? n : 1) * sizeof(int));
        for (int c = 0; c < n; c++)
                t->l3_of[c] = -1;
        CPUSET_FOREACH(c, &t->online_cpus) {
                if (cpuset_isset(&done, c) || (t->core_of && cpuset_isset(&none, t->core_of[c])))
                        continue;
                if (cpuset_is_empty(&done) && cpuset_is_empty(&none)) {
                        /* A kernel without cacheinfo (some VMs, older Arm) has it for no CPU. */
                        _cleanup_closedir_ DIR *d = NULL;
                        snprintf(dir, sizeof(dir), SYS_CPU "/cpu%d/cache", c);
                        if (root_opendir(root, dir, &d) < 0)
                                return;
                }
                int idx = l3_index(root, c, guess);
                struct cpuset set = {0};
                if (idx < 0) { /* none for this core: its siblings are not asked again */
                        cpuset_set(&none, (unsigned) (t->core_of && t->core_of[c] >= 0 ? t->core_of[c] : c));
                        continue;
                }
                guess = idx;
                l3_cpus(root, t, c, idx, &set);
                /* As hwloc: a cache is made by its first CPU, and one that overlaps another
                 * (a capture's conflicting files) is left out. */
                if (cpuset_next(&set, 0) != c || cpuset_intersects(&set, &done))
                        continue;
                cpuset_or(&done, &set);
                t->l3 = xrealloc(t->l3, (t->n_l3 + 1) * sizeof(*t->l3));
                t->l3[t->n_l3] = (struct l3_domain){.cpus = set, .size_bytes = l3_size(root, c, idx)};
                CPUSET_FOREACH(s, &set)
                        if (s < n)
                                t->l3_of[s] = (int) t->n_l3;
                t->n_l3++;
        }
}
