/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "pci-dl.h"

static void *libpci_dl;

DLSYM_DEFINE(pci_alloc);
DLSYM_DEFINE(pci_init);
DLSYM_DEFINE(pci_cleanup);
DLSYM_DEFINE(pci_scan_bus);
DLSYM_DEFINE(pci_fill_info);
DLSYM_DEFINE(pci_set_param);
DLSYM_DEFINE(pci_lookup_name);
DLSYM_DEFINE(pci_load_name_list);

int dlopen_libpci(void) {
        return dlopen_many_sym(&libpci_dl, "libpci.so.3", "libpci3",
                               DLSYM_ARG(pci_alloc),
                               DLSYM_ARG(pci_init),
                               DLSYM_ARG(pci_cleanup),
                               DLSYM_ARG(pci_scan_bus),
                               DLSYM_ARG(pci_fill_info),
                               DLSYM_ARG(pci_set_param),
                               DLSYM_ARG(pci_lookup_name),
                               DLSYM_ARG(pci_load_name_list),
                               NULL);
}
