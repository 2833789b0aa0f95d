/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "host/pci-dl.h"

LIBPCI_SYMBOLS(DLSYM_DEFINE)

int dlopen_libpci(void) {
        static void *dl;
        return dlopen_many_sym(&dl, "libpci.so.3", "libpci3", LIBPCI_SYMBOLS(DLSYM_ARG) NULL);
}
