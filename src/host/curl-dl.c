/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "host/curl-dl.h"

LIBCURL_SYMBOLS(DLSYM_DEFINE)

int dlopen_libcurl(void) {
        static void *dl;
        return dlopen_many_sym(&dl, "libcurl.so.4", "libcurl4", LIBCURL_SYMBOLS(DLSYM_ARG) NULL);
}
