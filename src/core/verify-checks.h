/* SPDX-License-Identifier: MIT */
#pragma once

/* The checks of `numaplan verify`, as pure functions of what was observed: systemd's view, the
 * tasks, the warm-up, the pages. The verify verb gathers the observations; tests feed their own.
 *
 * One table, in the order they run and print: X(ID, name). The names are stable (numaplan(8),
 * verify; the metrics' check label; the example alerting rules): a test keeps the table, the man
 * page and the rules in step. */
#define VERIFY_CHECKS(X)                                   \
        X(UNIT_ACTIVE, "unit-active")                       \
        X(NUMA_POLICY, "numa-policy")                       \
        X(NUMA_MASK, "numa-mask")                           \
        X(CPU_AFFINITY, "cpu-affinity")                     \
        X(EFFECTIVE_CPUS, "effective-cpus")                 \
        X(EFFECTIVE_MEMORY_NODES, "effective-memory-nodes") \
        X(DROPIN_IN_EFFECT, "dropin-in-effect")             \
        X(CONTAINER, "container")                           \
        X(TASK_AFFINITY, "task-affinity")                   \
        X(WARMUP, "warmup")                                 \
        X(MEMORY_LOCALITY, "memory-locality")               \
        X(HUGEPAGES, "hugepages")

#include <stdbool.h>

#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"

#define CHECK_ENUM(id, name) CHECK_##id,
enum { VERIFY_CHECKS(CHECK_ENUM) N_CHECKS };
#undef CHECK_ENUM

struct check {
        bool ok;
        char *want, *got, *detail; /* detail may be NULL */
};

const char *check_name(unsigned i);
void check_done(struct check *c);

/* What the drop-in files say, read by the caller. */
struct dropin_facts {
        const char *path;       /* where numaplan's drop-in should be */
        bool loaded;            /* systemd lists it in DropInPaths */
        const char *instead;    /* not loaded: the file of the same name systemd loaded instead, or NULL */
        bool matches_plan;      /* its content is what the plan renders now */
        char *overridden_by;    /* "PATH sets KEY=, KEY=" for later drop-ins; NULL if none */
        const char *journal;    /* the journal of an interrupted apply, NULL when none waits */
        double mtime;           /* when it was written (seconds since the epoch), 0 unknown */
};

/* Tasks seen in the unit's cgroups, or in its container's. */
struct task_facts {
        struct process *processes;
        size_t n_processes;
        char **cgroups; /* where each process is: processes[i].cgroup indexes this */
        size_t n_cgroups;
        struct task *tasks;
        size_t n_tasks;
        bool readable; /* the cgroup could be listed */
};

struct placement;

void check_unit_active(const struct unit_state *s, const char *unit, struct check *c);
void check_numa_policy(const struct unit_state *s, const struct placement *pl, struct check *c);
void check_numa_mask(const struct unit_state *s, const struct placement *pl, struct check *c);
void check_cpu_affinity(const struct unit_state *s, const struct placement *pl, struct check *c);
void check_effective_cpus(const struct unit_state *s, const struct placement *pl, struct check *c);
/* `memory_nodes`: every node with memory (what a preferred replica may use). */
void check_effective_memory_nodes(const struct unit_state *s, const struct placement *pl,
                                  const struct cpuset *memory_nodes, struct check *c);
void check_dropin(const struct dropin_facts *d, struct check *c);
/* Is this command name a container engine's client or its helper (docker, podman, conmon, ...),
 * whose server runs where the engine puts it? */
bool container_client(const char *comm);
/* The server the checks below look at: the unit's own processes, or its container's. Fails for a
 * unit that holds only a container client and names no container, and for a container started
 * without the plan's cpuset. */
void check_container(const struct placement *pl, const struct container_facts *cf, struct check *c);
void check_task_affinity(const struct unit_state *s, const struct placement *pl, const struct task_facts *tf,
                         const struct dropin_facts *d, struct check *c);
/* `w` NULL: skipped, with `why`. */
void check_warmup(const struct warmup_result *w, const char *url, const char *why, struct check *c);
/* The rule memory-locality and migrate share: `on` of `total` pages reach min-local. */
bool locality_reaches(uint64_t on, uint64_t total, unsigned min_local_bp);

/* Judged on the replica's own pages (page_tally_split()); shared program code is only reported.
 * `plan` names the other replicas that map the same data files. With model-copies, `models_dir`
 * (where the copies are) tells its nodes' copy from the original and other nodes' copies, which
 * it must not map. */
struct plan;
void check_memory_locality(const struct page_tally *pages, const struct placement *pl, const struct plan *plan,
                           const char *models_dir, const struct task_facts *tf, struct check *c);

/* The pools the plan reserves for the replica are there (`t` read now), and its huge pages sit
 * on its nodes. Passes for a replica without hugepages =. */
void check_hugepages(const struct topology *t, const struct page_tally *pages, const struct placement *pl,
                     struct check *c);

/* Which of numaplan's settings a drop-in's text sets: "NUMAPolicy=, CPUAffinity=", or NULL. */
char *dropin_settings(const char *text);
