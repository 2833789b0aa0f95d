/* SPDX-License-Identifier: MIT */
#pragma once

/* What systemd says of a unit, over D-Bus: the properties verify compares with the plan. */

#include <stdbool.h>
#include <stdint.h>

#include "bus.h"
#include "cpuset.h"

struct unit_state {
        char *load_state, *active_state, *sub_state, *control_group;
        uint32_t main_pid;
        int numa_policy; /* systemd's MPOL_* value; -1 when not set */
        struct cpuset numa_mask, cpu_affinity, effective_cpus, effective_mems;
        bool cpu_affinity_from_numa;
        char **dropin_paths; /* NULL-terminated, in the order systemd applies them */
};

/* Reads the unit's properties; -errno when systemd cannot be asked (logged). */
int unit_state_read(sd_bus *bus, const char *unit, struct unit_state *ret);
void unit_state_done(struct unit_state *s);

/* "bind", "interleave", "preferred", "default", "local", or "unset". */
const char *numa_policy_name(int mpol);
