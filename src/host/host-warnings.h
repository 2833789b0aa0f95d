/* SPDX-License-Identifier: MIT */
#pragma once

/* What hurts pinning on this host (core/host-checks.h), with what the host says of numaplan's own
 * process and cgroups. Collected once the configuration's accelerator-nodes are applied, so an
 * override silences its own warning. */

#include "core/warnings.h"

struct root;
struct topology;

void host_warnings_collect(struct root *root, const struct topology *t, struct warnings *w);
