/* SPDX-License-Identifier: MIT */
#pragma once

/* The end apply and remove share: print or deploy a changeset, report it, and choose the exit
 * code. */

#include <stdbool.h>

struct changeset;

/* --diff prints a unified diff; --check reports what would change (exit 1 when something
 * would); otherwise the changes are deployed (systemd/deploy.h) and reported, as JSON with
 * `json`: {"changed": ..., "units": [{"unit", "action"}]}. Returns the exit code. */
int deploy_and_report(const struct changeset *cs, const char *marker, bool check, bool diff, bool reload, bool restart,
                      bool json);
