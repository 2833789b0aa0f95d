/* SPDX-License-Identifier: MIT */
#pragma once

/* The checks of `numaplan verify`, as pure functions of what was observed: systemd's view, the
 * tasks, the warm-up, the pages. The verify verb gathers the observations into one struct
 * verify_facts and runs the checks of each phase as its facts are there; tests feed their own.
 *
 * One table, in the order they run and print: X(ID, name, phase, function). The names are stable
 * (numaplan(8), verify; the metrics' check label; the example alerting rules; the --json schema's
 * enum, made from this table at build time): a test keeps the table, the man page and the rules
 * in step. A new check is a row here, its function in verify-checks.c, and its paragraph in
 * numaplan(8). */
#define VERIFY_CHECKS(X) \
        X(UNIT_ACTIVE, "unit-active", CHECK_PHASE_UNIT, check_unit_active) \
        X(NUMA_POLICY, "numa-policy", CHECK_PHASE_UNIT, check_numa_policy) \
        X(NUMA_MASK, "numa-mask", CHECK_PHASE_UNIT, check_numa_mask) \
        X(CPU_AFFINITY, "cpu-affinity", CHECK_PHASE_UNIT, check_cpu_affinity) \
        X(EFFECTIVE_CPUS, "effective-cpus", CHECK_PHASE_UNIT, check_effective_cpus) \
        X(EFFECTIVE_MEMORY_NODES, "effective-memory-nodes", CHECK_PHASE_UNIT, check_effective_memory_nodes) \
        X(DROPIN_IN_EFFECT, "dropin-in-effect", CHECK_PHASE_UNIT, check_dropin) \
        X(CONTAINER, "container", CHECK_PHASE_UNIT, check_container) \
        X(TASK_AFFINITY, "task-affinity", CHECK_PHASE_UNIT, check_task_affinity) \
        X(IRQ_LOCALITY, "irq-locality", CHECK_PHASE_UNIT, check_irq_locality) \
        X(WARMUP, "warmup", CHECK_PHASE_WARMUP, check_warmup) \
        X(MEMORY_LOCALITY, "memory-locality", CHECK_PHASE_PAGES, check_memory_locality) \
        X(RANK_LOCALITY, "rank-locality", CHECK_PHASE_PAGES, check_rank_locality) \
        X(HUGEPAGES, "hugepages", CHECK_PHASE_PAGES, check_hugepages)

#include <stdbool.h>

#include <stdint.h>

struct container_facts;
struct cpuset;
struct irq_targets;
struct page_tally;
struct placement;
struct plan;
struct topology;
struct unit_state;
struct warmup_result;
struct rank_facts;

#define CHECK_ENUM(id, ...) CHECK_##id,
enum { VERIFY_CHECKS(CHECK_ENUM) N_CHECKS };
#undef CHECK_ENUM

/* When a check can run: once systemd and the tasks were asked, once the warm-up ran, once every
 * unit's pages were counted and split. */
enum check_phase { CHECK_PHASE_UNIT, CHECK_PHASE_WARMUP, CHECK_PHASE_PAGES };

struct check {
        bool ok;
        char *want, *got, *detail; /* detail may be NULL */
};

const char *check_name(unsigned i);
void check_done(struct check *c);

/* What the drop-in files say, read by the caller. */
struct dropin_facts {
        const char *path;    /* where numaplan's drop-in should be */
        bool loaded;         /* systemd lists it in DropInPaths */
        const char *instead; /* not loaded: the file of the same name systemd loaded instead, or NULL */
        bool matches_plan;   /* its content is what the plan renders now */
        char *overridden_by; /* "PATH sets KEY=, KEY=" for later drop-ins; NULL if none */
        const char *journal; /* the journal of an interrupted apply, NULL when none waits */
        double mtime;        /* when it was written (seconds since the epoch), 0 unknown */
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
        char **unread; /* threads that could not be read, "PATH: why" (NULL-terminated, may be NULL) */
};

/* Everything the checks look at; each uses what its phase has (NULL before). */
struct verify_facts {
        const char *unit;
        const struct placement *pl;
        const struct plan *plan;           /* the other replicas, which may map the same files */
        const struct topology *topology;   /* read now: the huge page pools, the devices' interrupts */
        const struct irq_targets *irqs;    /* where apply steers the devices' interrupts (core/irqs.h) */
        const struct unit_state *state;    /* systemd's view */
        const struct cpuset *memory_nodes; /* every node with memory (what a preferred replica may use) */
        const struct dropin_facts *dropin;
        const struct container_facts *container;
        const struct task_facts *tasks;
        const struct warmup_result *warmup; /* NULL: skipped, because of warmup_skipped */
        const char *warmup_url, *warmup_skipped;
        const struct page_tally *pages; /* split into the replica's own and the shared (page_tally_split()) */
        const char *models_dir;         /* model-copies: where the copies are */
        const struct rank_facts *ranks; /* which process drives which accelerator (core/rank-locality.h) */
};

#define CHECK_PROTOTYPE(id, name, phase, function) void function(const struct verify_facts *f, struct check *c);
VERIFY_CHECKS(CHECK_PROTOTYPE)
#undef CHECK_PROTOTYPE

/* Runs every check of `phase`, in the table's order, into checks[] (N_CHECKS of them). */
void checks_run(enum check_phase phase, const struct verify_facts *f, struct check *checks);

/* Is this command name a container engine's client or its helper (docker, podman, conmon, ...),
 * whose server runs where the engine puts it? */
bool container_client(const char *comm);
/* The rule memory-locality and migrate share: `on` of `total` pages reach min-local. */
bool locality_reaches(uint64_t on, uint64_t total, unsigned min_local_bp);

/* What each check judges:
 * - container: the server the checks below look at, the unit's own processes or its container's;
 *   fails for a unit that holds only a container client and names no container, and for a
 *   container started without the plan's cpuset.
 * - memory-locality: judged on the replica's own pages; shared program code is only reported.
 *   `plan` names the other replicas that map the same data files. With model-copies,
 *   `models_dir` tells its nodes' copy from the original and other nodes' copies, which it must
 *   not map.
 *   Pinned pages known off the plan (core/held-pages.h: those of buffers io_uring lists) are named
 *   with a restart as the remedy, and migrate is not advised: the kernel does not move a pinned
 *   page.
 * - hugepages: the pools the plan reserves for the replica are there, and its huge pages sit on
 *   its nodes; passes for a replica without hugepages =.
 * - irq-locality: with irq-affinity = yes, every interrupt of its accelerators and of the network
 *   adapters it uses is set to CPUs within those apply steers it to; without, it passes, with the
 *   interrupts, where they are set and where they were served, in its detail.
 * - rank-locality (core/rank-locality.c): each process that drives one of its accelerators (maps
 *   its device) keeps its anonymous, locked and pinned pages on that accelerator's node, as
 *   memory-locality's min-local, and its threads on that node's CPUs; a model its ranks read from
 *   several nodes is spread evenly over them. Passes when no process maps an accelerator. */

/* Its locked and pinned memory in words, a line each ("  locked: ...\n", "  pinned: ...\n"), for
 * verify's text; NULL when it holds none. What each counts: core/held-pages.h. */
char *held_report(const struct page_tally *t);

/* Which of numaplan's settings a drop-in's text sets: "NUMAPolicy=, CPUAffinity=", or NULL. */
char *dropin_settings(const char *text);
