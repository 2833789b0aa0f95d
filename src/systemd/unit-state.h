/* SPDX-License-Identifier: MIT */
#pragma once

/* What systemd says of a unit, over D-Bus: the properties verify compares with the plan. */

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "core/observed.h"

/* Reads the unit's properties; -errno when systemd cannot be asked (logged). */
int unit_state_read(sd_bus *bus, const char *unit, struct unit_state *ret);

/* What `numaplan status` shows of a unit, in one round trip (GetAll of its Unit interface). */
struct unit_status {
        char *load_state, *active_state, *sub_state;
        char **dropin_paths;          /* NULL-terminated */
        uint64_t active_enter_usec;   /* when it last became active (CLOCK_REALTIME), 0 never */
};
int unit_status_read(sd_bus *bus, const char *unit, struct unit_status *ret);
void unit_status_done(struct unit_status *s);
