/* SPDX-License-Identifier: MIT */
#pragma once

#include <pci/pci.h>

#include "basic/dlopen-util.h"

#define LIBPCI_SYMBOLS(X)     \
        X(pci_alloc)          \
        X(pci_init)           \
        X(pci_cleanup)        \
        X(pci_scan_bus)       \
        X(pci_fill_info)      \
        X(pci_set_param)      \
        X(pci_lookup_name)    \
        X(pci_load_name_list) \
        X(pci_find_cap)       \
        X(pci_read_word)      \
        X(pci_read_block)

LIBPCI_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libpci(void);
