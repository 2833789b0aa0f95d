/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "systemd/systemd-dl.h"

LIBSYSTEMD_SYMBOLS(DLSYM_DEFINE)

int dlopen_libsystemd(void) {
        static void *dl;
        return dlopen_many_sym(&dl, "libsystemd.so.0", "libsystemd0", LIBSYSTEMD_SYMBOLS(DLSYM_ARG) NULL);
}
