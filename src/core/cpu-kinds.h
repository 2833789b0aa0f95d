/* SPDX-License-Identifier: MIT */
#pragma once

/* The kinds of CPU cores a host has (big and little, performance and efficiency cores), told apart
 * and ranked as hwloc 2.14 does it from the same sysfs files (its cpukinds), and the L3 caches
 * that CPUs share. Pure: the host readers (host/cpu-kinds-read.h) hand in what each CPU's files
 * say; show prints the result and the planner splits nodes by it (PLACEMENT, rule 5). */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"

/* What one CPU's files say of it; 0 where a file is not there. */
struct cpu_facts {
        uint64_t max_khz;  /* cpufreq/cpuinfo_max_freq */
        uint64_t base_khz; /* cpufreq/base_frequency, or acpi_cppc/nominal_freq (MHz) x 1000 */
        uint64_t capacity; /* cpu_capacity */
        uint64_t midr;     /* regs/identification/midr_el1 (Arm) */
};

/* Intel's hybrid PMUs (/sys/devices/cpu_<name>/cpus), ranked as hwloc ranks them: a low-power
 * core below an Atom (E-core) below a Core (P-core); 0: none said. */
enum core_type { CORE_TYPE_NONE, CORE_TYPE_LOWPOWER, CORE_TYPE_ATOM, CORE_TYPE_CORE, _CORE_TYPE_MAX };

/* What told a kind apart, each attribute once: bits. */
enum {
        KIND_BY_MAX_FREQ = 1u << 0,
        KIND_BY_BASE_FREQ = 1u << 1,
        KIND_BY_CAPACITY = 1u << 2,
        KIND_BY_MIDR = 1u << 3,
        KIND_BY_CORE_TYPE = 1u << 4,
};

struct cpu_kind {
        struct cpuset cpus; /* online CPUs only */
        unsigned by;        /* KIND_BY_* of the values below that are known */
        uint64_t max_khz;   /* evened out as hwloc does: see cpu_kinds_build() */
        uint64_t base_khz;
        uint64_t capacity; /* the lowest of its CPUs' */
        uint64_t midr;
        enum core_type core_type;
        int64_t forced; /* hwloc's forced efficiency (the capacity), -1 when none */
};

/* How hwloc ranked the kinds; KINDS_UNRANKED: it could not, and they stay in its order. */
enum kinds_ranking {
        KINDS_UNRANKED,
        KINDS_BY_CAPACITY,       /* cpu_capacity (on Arm, the lowest of each MIDR's CPUs) */
        KINDS_BY_CORE_TYPE,      /* Intel's PMUs alone */
        KINDS_BY_BASE_FREQ,      /* base frequency (with the core type where every kind has one) */
        KINDS_BY_MAX_FREQ,       /* max frequency, the same */
        KINDS_BY_CORE_TYPE_BASE, /* core type, then base frequency */
        KINDS_BY_CORE_TYPE_MAX,  /* core type, then max frequency */
};

struct cpu_kinds {
        struct cpu_kind *v; /* most capable first when ranked; else in hwloc's order */
        size_t n;
        enum kinds_ranking ranked_by;
        bool base_from_cppc; /* base frequencies from acpi_cppc/nominal_freq */
};

/* What cpu_kinds_build() works from. */
struct cpu_kinds_input {
        const struct cpuset *cpus;     /* the online CPUs */
        const struct cpu_facts *facts; /* by CPU id, up to the highest in `cpus` */
        bool midr;                     /* Arm's MIDR is there (cpu0's midr_el1): kinds by it alone */
        bool base_from_cppc;
        /* Intel's hybrid PMUs' CPUs, by enum core_type; NULL where there is no such PMU. */
        const struct cpuset *pmu[_CORE_TYPE_MAX];
};

/* Groups the CPUs into kinds and ranks them as hwloc does: on Arm by MIDR, ranked by the lowest
 * cpu_capacity of each (cpu_capacity alone splits a GB10's two kinds into five); elsewhere by
 * max frequency (those within 10% of each other among CPUs of one base frequency evened out to
 * the lowest: Turbo Boost Max 3.0), base frequency, cpu_capacity and Intel's PMUs, each splitting
 * the kinds before it; ranked by capacity when every kind has a distinct one, else by core type
 * and frequency, else not at all. One kind, or none, where the cores are alike. */
void cpu_kinds_build(const struct cpu_kinds_input *in, struct cpu_kinds *ret);
void cpu_kinds_done(struct cpu_kinds *k);

/* "cpu_capacity", "core type, then base frequency", ...; NULL for KINDS_UNRANKED. */
const char *kinds_ranking_to_string(enum kinds_ranking r);
const char *core_type_to_string(enum core_type t); /* "IntelCore", as hwloc names it */

/* An L3 cache and the online CPUs that share it. */
struct l3_domain {
        struct cpuset cpus;
        uint64_t size_bytes; /* 0: unknown */
};
