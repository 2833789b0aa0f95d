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
        char **dropin_paths;        /* NULL-terminated */
        uint64_t active_enter_usec; /* when it last became active (CLOCK_REALTIME), 0 never */
};
int unit_status_read(sd_bus *bus, const char *unit, struct unit_status *ret);
void unit_status_done(struct unit_status *s);

/* Whether systemd knows `unit`: over `bus` (a live host) its LoadState, not-found or another (1
 * known, 0 not, -errno when it cannot be asked); without, a unit file of that name, or for a
 * template's instance (x@1.service) of its template's (x@.service), in `dir`, or when NULL in
 * systemd's unit path for system units (/etc, /run, /usr/local/lib, /usr/lib, /lib), one stat a
 * directory until found. */
int unit_known(sd_bus *bus, const char *dir, const char *unit);

struct plan;
struct warnings;
/* unit-unknown: one warning a section of the configuration whose units systemd does not know, at
 * its unit = line, as unit_known() decides (where the bus cannot answer, by the files). */
void plan_unit_warnings(const struct plan *p, sd_bus *bus, const char *dir, struct warnings *w);
