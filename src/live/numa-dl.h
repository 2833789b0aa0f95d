/* SPDX-License-Identifier: MIT */
#pragma once

#include <numa.h>

#include "basic/dlopen-util.h"

/* libnuma, for moving pages on the live host (its constructor reads the real /sys, so it never
 * serves a replayed root). */
#define LIBNUMA_SYMBOLS(X) \
        X(numa_move_pages) \
        X(numa_migrate_pages) \
        X(numa_allocate_nodemask) \
        X(numa_bitmask_setbit) \
        X(numa_bitmask_free)

LIBNUMA_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libnuma(void);
