/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "host/archive-dl.h"

LIBARCHIVE_SYMBOLS(DLSYM_DEFINE)

int dlopen_libarchive(void) {
        static void *dl;
        return dlopen_many_sym(&dl, "libarchive.so.13", "libarchive13", LIBARCHIVE_SYMBOLS(DLSYM_ARG) NULL);
}
