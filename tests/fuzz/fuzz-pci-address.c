/* SPDX-License-Identifier: MIT */
/* PCI addresses as sysfs names them and admins write them: what parses formats back the same.
 * Modaliases: what parses has IDs of 16 bits and a class of 24. */
#include "core/pci.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct pci_address a, b;
        uint16_t vendor, device;
        uint32_t class;
        char buf[PCI_ADDRESS_MAX];

        for (int allow_short = 0; allow_short <= 1; allow_short++)
                if (pci_address_parse(s, allow_short, &a) >= 0) {
                        fuzz_assert(a.dev <= 0x1f && a.func <= 7);
                        pci_address_format(&a, buf);
                        fuzz_assert(pci_address_parse(buf, false, &b) >= 0 && pci_address_compare(&a, &b) == 0);
                }
        if (pci_modalias_parse(s, &vendor, &device, &class) >= 0)
                fuzz_assert(class <= 0xffffff && strlen(s) == 52);
        free(s);
        return 0;
}
