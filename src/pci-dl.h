/* SPDX-License-Identifier: MIT */
#pragma once

#include <pci/pci.h>

#include "dlopen-util.h"

DLSYM_PROTOTYPE(pci_alloc);
DLSYM_PROTOTYPE(pci_init);
DLSYM_PROTOTYPE(pci_cleanup);
DLSYM_PROTOTYPE(pci_scan_bus);
DLSYM_PROTOTYPE(pci_fill_info);
DLSYM_PROTOTYPE(pci_set_param);
DLSYM_PROTOTYPE(pci_lookup_name);
DLSYM_PROTOTYPE(pci_load_name_list);

int dlopen_libpci(void);
