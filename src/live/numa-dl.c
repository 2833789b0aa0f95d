/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "live/numa-dl.h"

LIBNUMA_SYMBOLS(DLSYM_DEFINE)

int dlopen_libnuma(void) {
        static void *dl;
        return dlopen_many_sym(&dl, "libnuma.so.1", "libnuma1", LIBNUMA_SYMBOLS(DLSYM_ARG) NULL);
}
