/* SPDX-License-Identifier: MIT */
#pragma once

/* prepare --nics: at a replica's start, the names of the network adapters the plan chose, written
 * where the drop-in's EnvironmentFile= reads them for the server (numaplan.conf(5), NETWORK
 * ADAPTERS). Never fails the start: what does not resolve is said, and the rest is written. */

#include <stdbool.h>

#include "stage/globals.h"

/* `items`: the drop-in's --nics value, PCI addresses and interface names, comma-separated;
 * `env_file`: where the variables go (absolute), NULL with `dry_run` to print them instead. On
 * this machine's own root it waits, at most NIC_NAME_WAIT_S seconds, while udev is still naming
 * devices and an adapter has no name yet, as at boot. Returns an exit code: EXIT_USAGE for bad
 * options, else EXIT_OK. */
int prepare_nics(const struct globals *g, const char *items, const char *env_file, bool dry_run);

#define NIC_NAME_WAIT_S 30
