/* SPDX-License-Identifier: MIT */
/* CPU kinds as hwloc finds them (its topology-linux.c, hwloc_linux_cpukinds_*, and cpukinds.c's
 * ranking), step for step, so that numaplan and lstopo agree on a host: the same CPUs in each
 * kind, in the same order. */

#include "basic/util.h"
#include "core/cpu-kinds.h"

/* How hwloc names what it read: the attribute's value, and what telling kinds apart by it takes. */
static void merge_info(struct cpu_kind *dst, const struct cpu_kind *info) {
        unsigned add = info->by & ~dst->by;
        if (add & KIND_BY_MAX_FREQ)
                dst->max_khz = info->max_khz;
        if (add & KIND_BY_BASE_FREQ)
                dst->base_khz = info->base_khz;
        if (add & KIND_BY_CAPACITY)
                dst->capacity = info->capacity;
        if (add & KIND_BY_MIDR)
                dst->midr = info->midr;
        if (add & KIND_BY_CORE_TYPE)
                dst->core_type = info->core_type;
        dst->by |= add;
}

static struct cpu_kind *append(struct cpu_kinds *k, const struct cpuset *cpus, const struct cpu_kind *info) {
        k->v = xrealloc(k->v, (k->n + 1) * sizeof(*k->v));
        struct cpu_kind *n = &k->v[k->n++];
        *n = (struct cpu_kind){.cpus = *cpus, .forced = info->forced};
        return n;
}

/* hwloc_internal_cpukinds_register(): a set of CPUs that share a value splits every kind it
 * partly covers into the part inside it (a new kind, at the end) and the rest; a kind it covers
 * whole gains the value; CPUs in no kind yet make a new kind. */
static void kinds_register(struct cpu_kinds *k, struct cpuset set, const struct cpu_kind *info) {
        size_t old = k->n;
        for (size_t i = 0; i < old && !cpuset_is_empty(&set); i++) {
                struct cpuset inter = set;
                cpuset_and(&inter, &k->v[i].cpus);
                if (cpuset_is_empty(&inter))
                        continue;
                if (cpuset_equal(&inter, &k->v[i].cpus)) {
                        merge_info(&k->v[i], info);
                        if (k->v[i].forced < 0)
                                k->v[i].forced = info->forced;
                } else {
                        struct cpu_kind was = k->v[i];
                        struct cpu_kind *n = append(k, &inter, info);
                        merge_info(n, &was);
                        merge_info(n, info);
                        cpuset_andnot(&k->v[i].cpus, &inter);
                }
                cpuset_andnot(&set, &inter);
        }
        if (!cpuset_is_empty(&set))
                merge_info(append(k, &set, info), info);
}

/* hwloc_linux_cpukinds_adjust_maxfreqs(): among the CPUs of one base frequency, max frequencies
 * less than 10% apart (Turbo Boost Max 3.0 favours some cores) become the lowest of them, and
 * their capacities the lowest too. `f` holds the online CPUs' facts, in CPU order. */
static void even_out_max(struct cpu_facts *f, size_t n) {
        _cleanup_free_ bool *done = xmalloc0(n + 1);
        for (size_t first = 0; first < n; first++) {
                if (done[first])
                        continue;
                uint64_t lo = f[first].max_khz, hi = lo, cap_lo = f[first].capacity;
                for (size_t i = first; i < n; i++)
                        if (!done[i] && f[i].base_khz == f[first].base_khz) {
                                done[i] = true;
                                lo = f[i].max_khz < lo ? f[i].max_khz : lo;
                                hi = f[i].max_khz > hi ? f[i].max_khz : hi;
                                cap_lo = f[i].capacity < cap_lo ? f[i].capacity : cap_lo;
                        }
                /* hwloc's float arithmetic, for the same verdict at the edge. */
                if (lo == hi || lo == 0 || (float) (hi - lo) / (float) lo * 100 >= 10.0f)
                        continue;
                for (size_t i = first; i < n; i++)
                        if (f[i].base_khz == f[first].base_khz) {
                                f[i].max_khz = lo;
                                f[i].capacity = cap_lo;
                        }
        }
}

/* One attribute kinds are told by: `value` reads it of a CPU's facts (0: unknown); the kind's
 * value is `scale` x the value / `scale` (hwloc groups frequencies by MHz); `forced`: the value
 * ranks the kind. */
struct kind_attribute {
        unsigned by;
        uint64_t (*value)(const struct cpu_facts *);
        uint64_t scale;
        bool forced;
};

/* The CPUs of each value of one attribute, lowest value first, each registered as a kind. */
static void register_by(struct cpu_kinds *k, const struct cpu_facts *f, const int *cpu, size_t n,
                        const struct kind_attribute *a) {
        uint64_t scale = a->scale;
        _cleanup_free_ uint64_t *seen = xmalloc0((n + 1) * sizeof(uint64_t));
        size_t n_seen = 0;
        for (size_t i = 0; i < n; i++) {
                uint64_t v = a->value(&f[i]) / scale;
                bool known = v == 0;
                for (size_t j = 0; j < n_seen && !known; j++)
                        known = seen[j] == v;
                if (!known) {
                        size_t j = n_seen++;
                        for (; j > 0 && seen[j - 1] > v; j--)
                                seen[j] = seen[j - 1];
                        seen[j] = v;
                }
        }
        for (size_t j = 0; j < n_seen; j++) {
                struct cpuset set = {0};
                for (size_t i = 0; i < n; i++)
                        if (a->value(&f[i]) / scale == seen[j])
                                cpuset_set(&set, (unsigned) cpu[i]);
                struct cpu_kind info = {.by = a->by, .forced = a->forced ? (int64_t) seen[j] : -1};
                info.max_khz = info.base_khz = seen[j] * scale;
                info.capacity = seen[j];
                kinds_register(k, set, &info);
        }
}

static uint64_t max_of(const struct cpu_facts *f) {
        return f->max_khz;
}
static uint64_t base_of(const struct cpu_facts *f) {
        return f->base_khz;
}
static uint64_t capacity_of(const struct cpu_facts *f) {
        return f->capacity;
}

/* hwloc's look_sysfscpukinds_by_midr_regs(): one kind per MIDR value, in the order first seen,
 * when there are two or more; each with the lowest capacity of its CPUs, which ranks it. */
static void build_by_midr(const struct cpu_facts *f, const int *cpu, size_t n, struct cpu_kinds *k) {
        for (size_t i = 0; i < n; i++) {
                if (!f[i].midr)
                        continue;
                size_t j = 0;
                while (j < k->n && k->v[j].midr != f[i].midr)
                        j++;
                if (j == k->n) {
                        struct cpuset none = {0};
                        struct cpu_kind info = {.by = KIND_BY_MIDR | KIND_BY_CAPACITY, .midr = f[i].midr};
                        merge_info(append(k, &none, &info), &info);
                        k->v[j].capacity = UINT64_MAX;
                }
                cpuset_set(&k->v[j].cpus, (unsigned) cpu[i]);
                k->v[j].capacity = f[i].capacity < k->v[j].capacity ? f[i].capacity : k->v[j].capacity;
        }
        for (size_t j = 0; j < k->n; j++) {
                k->v[j].forced = (int64_t) k->v[j].capacity;
                if (k->v[j].capacity == 0) /* no cpu_capacity: hwloc ranks them all 0, so not at all */
                        k->v[j].by &= ~KIND_BY_CAPACITY;
        }
        if (k->n == 1)
                cpu_kinds_done(k); /* alike: hwloc then names the package, not a kind */
}

/* hwloc's look_sysfscpukinds_by_freq() and, on x86, by_pmu_sets(). */
static void build_by_freq(const struct cpu_kinds_input *in, struct cpu_facts *f, const int *cpu, size_t n,
                          struct cpu_kinds *k) {
        bool max_without_base = false;
        for (size_t i = 0; i < n; i++)
                max_without_base = max_without_base || (f[i].max_khz && !f[i].base_khz);
        if (!max_without_base)
                even_out_max(f, n);
        register_by(k, f, cpu, n, &(struct kind_attribute){KIND_BY_MAX_FREQ, max_of, 1000, false});
        register_by(k, f, cpu, n, &(struct kind_attribute){KIND_BY_BASE_FREQ, base_of, 1000, false});
        register_by(k, f, cpu, n, &(struct kind_attribute){KIND_BY_CAPACITY, capacity_of, 1, true});
        static const enum core_type order[] = {CORE_TYPE_ATOM, CORE_TYPE_CORE, CORE_TYPE_LOWPOWER};
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                if (!in->pmu[order[i]])
                        continue;
                struct cpuset set = *in->pmu[order[i]];
                cpuset_and(&set, in->cpus); /* hwloc keeps the online CPUs of each kind */
                struct cpu_kind info = {.by = KIND_BY_CORE_TYPE, .core_type = order[i], .forced = -1};
                kinds_register(k, set, &info);
        }
}

static bool all_distinct(const uint64_t *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (v[i] == v[j])
                                return false;
        return true;
}

/* hwloc_internal_cpukinds_rank()'s default: by forced efficiency (the capacity) when every kind
 * has a distinct one, else by core type and frequency (base where every kind has one, else max)
 * when those tell every kind apart, else not at all. `rank` gets each kind's ranking value. */
static enum kinds_ranking rank_values(const struct cpu_kinds *k, uint64_t *rank) {
        bool forced = true, have_max = true, have_base = true, have_type = true, any_type = false;
        for (size_t i = 0; i < k->n; i++) {
                forced = forced && k->v[i].forced >= 0;
                rank[i] = (uint64_t) k->v[i].forced;
                have_max = have_max && k->v[i].max_khz / 1000 > 0 && (k->v[i].by & KIND_BY_MAX_FREQ);
                have_base = have_base && k->v[i].base_khz / 1000 > 0 && (k->v[i].by & KIND_BY_BASE_FREQ);
                have_type = have_type && k->v[i].core_type != CORE_TYPE_NONE;
                any_type = any_type || k->v[i].core_type != CORE_TYPE_NONE;
        }
        if (forced && all_distinct(rank, k->n))
                return KINDS_BY_CAPACITY;
        if (!have_type && !have_max && !have_base)
                return KINDS_UNRANKED;
        for (size_t i = 0; i < k->n; i++) {
                const struct cpu_kind *x = &k->v[i];
                uint64_t mhz = have_base ? (x->by & KIND_BY_BASE_FREQ ? x->base_khz / 1000 : 0)
                                         : (x->by & KIND_BY_MAX_FREQ ? x->max_khz / 1000 : 0);
                rank[i] = ((uint64_t) x->core_type << 20) + mhz;
        }
        if (!all_distinct(rank, k->n))
                return KINDS_UNRANKED;
        if (!have_base && !have_max)
                return KINDS_BY_CORE_TYPE;
        if (any_type)
                return have_base ? KINDS_BY_CORE_TYPE_BASE : KINDS_BY_CORE_TYPE_MAX;
        return have_base ? KINDS_BY_BASE_FREQ : KINDS_BY_MAX_FREQ;
}

/* Most capable first: the reverse of hwloc's efficiency order (0 the least). */
static void rank(struct cpu_kinds *k) {
        if (k->n < 2)
                return;
        _cleanup_free_ uint64_t *value = xmalloc0(k->n * sizeof(uint64_t));
        k->ranked_by = rank_values(k, value);
        if (k->ranked_by == KINDS_UNRANKED)
                return;
        for (size_t i = 1; i < k->n; i++)
                for (size_t j = i; j > 0 && value[j - 1] < value[j]; j--) {
                        uint64_t v = value[j];
                        struct cpu_kind x = k->v[j];
                        value[j] = value[j - 1];
                        k->v[j] = k->v[j - 1];
                        value[j - 1] = v;
                        k->v[j - 1] = x;
                }
}

void cpu_kinds_build(const struct cpu_kinds_input *in, struct cpu_kinds *ret) {
        size_t n = cpuset_count(in->cpus), i = 0;
        _cleanup_free_ struct cpu_facts *f = xmalloc0((n + 1) * sizeof(*f));
        _cleanup_free_ int *cpu = xmalloc0((n + 1) * sizeof(int));

        *ret = (struct cpu_kinds){.base_from_cppc = in->base_from_cppc};
        CPUSET_FOREACH(c, in->cpus) {
                cpu[i] = c;
                f[i++] = in->facts[c];
        }
        if (n == 0)
                return;
        if (in->midr)
                build_by_midr(f, cpu, n, ret);
        else
                build_by_freq(in, f, cpu, n, ret);
        rank(ret);
}

void cpu_kinds_done(struct cpu_kinds *k) {
        k->v = mfree(k->v);
        k->n = 0;
}

const char *kinds_ranking_to_string(enum kinds_ranking r) {
        static const char *const names[] = {
                [KINDS_UNRANKED] = NULL,
                [KINDS_BY_CAPACITY] = "cpu_capacity",
                [KINDS_BY_CORE_TYPE] = "core type",
                [KINDS_BY_BASE_FREQ] = "base frequency",
                [KINDS_BY_MAX_FREQ] = "max frequency",
                [KINDS_BY_CORE_TYPE_BASE] = "core type, then base frequency",
                [KINDS_BY_CORE_TYPE_MAX] = "core type, then max frequency",
        };
        return names[r];
}

const char *core_type_to_string(enum core_type t) {
        static const char *const names[] = {
                [CORE_TYPE_NONE] = NULL,
                [CORE_TYPE_LOWPOWER] = "IntelLowPower",
                [CORE_TYPE_ATOM] = "IntelAtom",
                [CORE_TYPE_CORE] = "IntelCore",
        };
        return names[t];
}
