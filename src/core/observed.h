/* SPDX-License-Identifier: MIT */
#pragma once

/* What verify observes of a running replica: systemd's view of its unit and the processes and
 * threads in its cgroup. The readers fill these (systemd/unit-state.c over D-Bus, host/tasks.c
 * from /proc); core/verify-checks.c judges them against the plan. */

#include <stdbool.h>
#include <sys/types.h>

#include "basic/cpuset.h"

struct unit_state {
        char *load_state, *active_state, *sub_state, *control_group;
        int numa_policy; /* systemd's MPOL_* value; -1 when not set */
        struct cpuset numa_mask, cpu_affinity, effective_cpus, effective_mems;
        bool cpu_affinity_from_numa;
        char **dropin_paths; /* NULL-terminated, in the order systemd applies them */
};

void unit_state_done(struct unit_state *s);
/* systemd's MPOL_* number in words: "bind", "interleave", "preferred", "default", "local", or
 * "unset". */
const char *numa_policy_name(int mpol);

struct task {
        pid_t pid, tid;
        char comm[32];
        struct cpuset cpus, mems; /* Cpus_allowed_list, Mems_allowed_list */
};

/* Whether AllowedCPUs=/AllowedMemoryNodes= can be enforced here (host/cgroup.h detects it). */
enum cgroup_mode {
        CGROUP_UNKNOWN,           /* no mount table under the root */
        CGROUP_LEGACY,            /* v1 only, or hybrid: cpuset is a v1 controller */
        CGROUP_UNIFIED_NO_CPUSET, /* v2, but the cpuset controller is not available */
        CGROUP_UNIFIED,           /* v2 with cpuset: AllowedCPUs=/AllowedMemoryNodes= are enforced */
};

struct process {
        pid_t pid;
        unsigned cgroup; /* the index of its cgroup in the list it came with */
        char comm[32];
        double start; /* seconds since the epoch; 0 when unknown */
};

/* The warm-up request's outcome (host/warmup.c). */
struct warmup_result {
        bool ok;
        long status; /* the last HTTP status, 0 if none */
        unsigned tries;
        double seconds;
        char *detail; /* what happened, in words */
};

/* A container that the unit's client (docker run, podman run) started outside the unit's
 * cgroup, as its engine describes it (host/container.c), and what numaplan saw of the unit. */
struct container_facts {
        const char *name;  /* container =; NULL when not set */
        bool clients_only; /* every process of the unit's cgroups is a container client */
        char client[32];   /* the first client's command name, and its PID */
        pid_t client_pid;
        int error; /* of the lookup: 0 found, -errno; `why` says it in words */
        char *why;
        char *engine; /* "docker" or "podman": whose socket answered */
        char *id;
        bool running;
        pid_t pid;                       /* its first process, on this host */
        char *cpuset_cpus, *cpuset_mems; /* --cpuset-cpus, --cpuset-mems as it was started; "" unset */
        char *cgroup;                    /* its cgroup; NULL when unknown */
        bool have_cpuset;                /* that cgroup's effective cpuset could be read: */
        struct cpuset cpus, mems;
};

void container_facts_done(struct container_facts *cf);
