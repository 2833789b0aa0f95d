/* SPDX-License-Identifier: MIT */
#pragma once

/* Reads what tells CPU kinds apart, and which CPUs share each L3 cache, beneath a root, into
 * topology.kinds and topology.l3 (core/cpu-kinds.h). Both need topology.core_of: they read one
 * CPU of each core, and one of each L3. */

#include "core/topology.h"

struct root;

void cpu_kinds_read(struct root *root, struct topology *t);
void l3_read(struct root *root, struct topology *t);
