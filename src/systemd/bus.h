/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan's D-Bus client for systemd (sd-bus, loaded on first use). */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"
#define SD_SERVICE "org.freedesktop.systemd1.Service"

/* What sd_booted() asks: systemd as PID 1 creates /run/systemd/system early. */
bool booted_with_systemd(void);
/* systemctl's words for it. */
#define NOT_BOOTED_WITH_SYSTEMD "System has not been booted with systemd as init system (PID 1). Can't operate."

/* As root, systemd's private socket (it works before dbus-daemon runs, at boot and in minimal
 * systems), as systemctl does; otherwise the system bus. Logs; -errno. */
int bus_connect(sd_bus **ret);
/* bus_connect() for a question with another way to its answer: why not, at debug level only. */
int bus_connect_quiet(sd_bus **ret);
/* daemon-reload; returns once systemd has finished reloading. */
int bus_reload(sd_bus *bus);
/* A unit's object path (loading the unit if systemd had not). */
int bus_unit_path(const char *unit, char **ret);
/* A string property of a unit ("ActiveState", ...). */
int bus_unit_string(sd_bus *bus, const char *unit, const char *interface, const char *property, char **ret);
/* Restarts each unit and waits for its job; a unit whose restart failed is logged. Returns the
 * number of failures, or -errno. */
int bus_restart_units(sd_bus *bus, char *const *units);
/* The same, stopping them. */
int bus_stop_units(sd_bus *bus, char *const *units);
/* ResetFailedUnit: a failed unit's state, and its start rate limit's count, start afresh, so that
 * starts asked on purpose (numaplan bench's) never trip StartLimitBurst=. -errno (at debug
 * level: a unit systemd has not loaded has nothing to reset). */
int bus_reset_failed(sd_bus *bus, const char *unit);
/* systemd's version number ("252.39-1" gives 252), or -errno. */
int bus_systemd_version(sd_bus *bus, int *ret);
/* Refuses (logged, -EOPNOTSUPP) a systemd older than 243, which lacks NUMAPolicy=/NUMAMask=. */
int bus_check_version(sd_bus *bus);
/* The UID systemd allocated to a running unit's DynamicUser= of that name; -ESRCH-like -errno when
 * there is none (logged at debug level only). */
int bus_lookup_dynamic_user(sd_bus *bus, const char *name, uint32_t *ret);
