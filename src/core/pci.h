/* SPDX-License-Identifier: MIT */
#pragma once

/* What a PCI address and a PCI class say, with no device at hand: one parser for the addresses
 * that sysfs names and admins write, and the class predicates that decide which devices
 * numaplan places replicas by. */

#include <stdbool.h>
#include <stdint.h>

struct pci_address {
        uint32_t domain;
        uint8_t bus, dev, func;
};

/* "0000:3b:00.0" (domain up to 8 hex digits, as sysfs names devices of 32-bit domains) or, with
 * allow_short, "3b:00.0" meaning domain 0. Hex digits of either case; nothing else. -EINVAL on
 * bad syntax, -ERANGE for a device above 0x1f or a function above 7. */
int pci_address_parse(const char *s, bool allow_short, struct pci_address *ret);
/* A device's modalias as the kernel writes it, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X": its
 * vendor and device IDs and its 24-bit class (base, sub, programming interface). -EINVAL on
 * anything else, an ID above 0xffff included. */
int pci_modalias_parse(const char *s, uint16_t *ret_vendor, uint16_t *ret_device, uint32_t *ret_class);
/* The canonical form, "%04x:%02x:%02x.%u": what sysfs and lspci -D print. */
#define PCI_ADDRESS_MAX 24
void pci_address_format(const struct pci_address *a, char buf[PCI_ADDRESS_MAX]);
int pci_address_compare(const struct pci_address *a, const struct pci_address *b);

/* Devices replicas are placed by: display (0x03xx), processing accelerators (0x12xx) and
 * co-processors (0x0b40). */
bool pci_class_is_accelerator(uint32_t class24);
/* Network adapters (0x02xx) and NVMe drives (0x0108xx), reported beside the accelerators. */
static inline bool pci_class_is_nic(uint32_t class24) {
        return ((class24 >> 16) & 0xff) == 0x02;
}
static inline bool pci_class_is_nvme(uint32_t class24) {
        return ((class24 >> 8) & 0xffff) == 0x0108;
}

/* False for display controllers of board-management and emulated display vendors (a BMC's VGA
 * is no place for a model); true for everything else of an accelerator class. */
bool pci_is_compute(uint16_t vendor, uint32_t class24);
