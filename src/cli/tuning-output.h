/* SPDX-License-Identifier: MIT */
#pragma once

/* How `show` prints the host's tuning (core/tuning.h): the "host tuning" section, each device's
 * PCIe link columns, and their JSON. */

#include <json-c/json.h>

#include "core/tuning.h"

struct table;

/* {"speed", "width", "max_speed", "max_width", "max_read_request", "max_payload", "config_space"} */
json_object *pcie_json(const struct pcie_link *l);
/* {"cpufreq", "cpuidle", "zone_reclaim_mode", "swap_bytes", "kernel", "iommu"}; null members for
 * what is unknown, all of them when `h` is NULL. */
json_object *host_tuning_json(const struct host_tuning *h);

/* Two cells: the link ("x16 16.0GT/s (max x16 32.0GT/s)") and "MRRS/MPS" ("4096/256"). */
void pcie_cells(struct table *tab, const struct pcie_link *l);
/* Why the sizes of the devices shown are unknown: pcie_note() each row into `reasons`, then
 * pcie_print_notes() under the table, one line a reason. */
void pcie_note(unsigned *reasons, const struct pcie_link *l);
void pcie_print_notes(unsigned reasons);
void host_tuning_print(const struct host_tuning *h);
