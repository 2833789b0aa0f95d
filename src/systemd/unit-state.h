/* SPDX-License-Identifier: MIT */
#pragma once

/* What systemd says of a unit, over D-Bus: the properties verify compares with the plan. */

#include "core/observed.h"
#include "systemd/bus.h"

/* Reads the unit's properties; -errno when systemd cannot be asked (logged). */
int unit_state_read(sd_bus *bus, const char *unit, struct unit_state *ret);
