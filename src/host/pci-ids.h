/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The PCI ID database (pci.ids), mapped, for the names of a few devices. */
struct pci_ids {
        const char *text;
        size_t len;
        bool mapped;
        bool vendor_known; /* the last vendor looked up, and where its devices are */
        unsigned vendor;
        size_t vendor_at, devices_end;
};

/* Maps the file at `path`; -errno (-EBADFD when not a regular file). */
int pci_ids_open(const char *path, struct pci_ids *ret);
void pci_ids_close(struct pci_ids *ids);
/* The vendor's name and its device's (each NULL when not listed; caller frees). */
void pci_ids_lookup(struct pci_ids *ids, unsigned vendor, unsigned device, char **ret_vendor, char **ret_device);
