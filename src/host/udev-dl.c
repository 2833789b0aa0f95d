/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "host/udev-dl.h"

LIBUDEV_SYMBOLS(DLSYM_DEFINE)

int dlopen_libudev(void) {
        static void *dl;
        return dlopen_many_sym(&dl, "libudev.so.1", "libudev1", LIBUDEV_SYMBOLS(DLSYM_ARG) NULL);
}
