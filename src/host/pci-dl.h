/* SPDX-License-Identifier: MIT */
#pragma once

#include <pci/pci.h>

#include "basic/dlopen-util.h"

/* Config space only: numaplan reads IDs and names without it. */
#define LIBPCI_SYMBOLS(X) \
        X(pci_alloc) \
        X(pci_init) \
        X(pci_cleanup) \
        X(pci_get_dev) \
        X(pci_free_dev) \
        X(pci_fill_info) \
        X(pci_set_param) \
        X(pci_find_cap) \
        X(pci_read_word) \
        X(pci_read_block)

LIBPCI_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libpci(void);
