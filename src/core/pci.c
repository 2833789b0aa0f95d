/* SPDX-License-Identifier: MIT */
#include <ctype.h>

#include "basic/util.h"
#include "core/pci.h"

static uint32_t hex_value(char c) {
        return (uint32_t) (isdigit((unsigned char) c) ? c - '0' : tolower((unsigned char) c) - 'a' + 10);
}

/* Up to max_digits hex digits; returns the end, or NULL when there were none or too many. */
static const char *hex_field(const char *s, unsigned max_digits, uint32_t *ret) {
        uint32_t v = 0;
        unsigned n = 0;

        for (; isxdigit((unsigned char) *s); s++, n++) {
                if (n == max_digits)
                        return NULL;
                v = v * 16 + hex_value(*s);
        }
        if (n == 0)
                return NULL;
        *ret = v;
        return s;
}

int pci_address_parse(const char *s, bool allow_short, struct pci_address *ret) {
        uint32_t f[4];
        size_t n = 0;
        const char *p = s;

        /* Fields separated by ':' ... then '.', the function last. */
        for (;;) {
                p = hex_field(p, n == 0 ? 8 : 2, &f[n]);
                if (!p)
                        return -EINVAL;
                n++;
                if (*p == ':' && n < 3) {
                        p++;
                        continue;
                }
                if (*p == '.' && n >= 2) {
                        p++;
                        if (!isdigit((unsigned char) *p) || p[1])
                                return -EINVAL;
                        f[n++] = (uint32_t) (*p - '0');
                        break;
                }
                return -EINVAL;
        }
        if (n == 3) {
                if (!allow_short)
                        return -EINVAL;
                f[3] = f[2];
                f[2] = f[1];
                f[1] = f[0];
                f[0] = 0;
        } else if (n == 4 && strlen(s) < 12)
                return -EINVAL; /* a domain of fewer than four digits: not how anyone writes one */
        if (f[1] > 0xff || f[2] > 0x1f || f[3] > 7)
                return -ERANGE;
        *ret = (struct pci_address){
                .domain = f[0], .bus = (uint8_t) f[1], .dev = (uint8_t) f[2], .func = (uint8_t) f[3]};
        return 0;
}

/* `tag`, then exactly `digits` hex digits (a modalias's fields run together: "v000010DEd0000..."). */
static const char *tagged_hex(const char *s, const char *tag, unsigned digits, uint32_t *ret) {
        uint32_t v = 0;

        if (!startswith(s, tag))
                return NULL;
        s += strlen(tag);
        for (unsigned i = 0; i < digits; i++, s++) {
                if (!isxdigit((unsigned char) *s))
                        return NULL;
                v = v * 16 + hex_value(*s);
        }
        *ret = v;
        return s;
}

int pci_modalias_parse(const char *s, uint16_t *ret_vendor, uint16_t *ret_device, uint32_t *ret_class) {
        static const struct {
                const char *tag;
                unsigned digits;
        } fields[] = {{"pci:v", 8}, {"d", 8}, {"sv", 8}, {"sd", 8}, {"bc", 2}, {"sc", 2}, {"i", 2}};
        uint32_t f[ELEMENTSOF(fields)];

        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                if (!(s = tagged_hex(s, fields[i].tag, fields[i].digits, &f[i])))
                        return -EINVAL;
        if (*s || f[0] > 0xffff || f[1] > 0xffff)
                return -EINVAL;
        *ret_vendor = (uint16_t) f[0];
        *ret_device = (uint16_t) f[1];
        *ret_class = f[4] << 16 | f[5] << 8 | f[6];
        return 0;
}

void pci_address_format(const struct pci_address *a, char buf[PCI_ADDRESS_MAX]) {
        snprintf(buf, PCI_ADDRESS_MAX, "%04x:%02x:%02x.%u", a->domain, a->bus, a->dev, a->func);
}

int pci_address_compare(const struct pci_address *a, const struct pci_address *b) {
        uint32_t ka[] = {a->domain, a->bus, a->dev, a->func}, kb[] = {b->domain, b->bus, b->dev, b->func};
        for (size_t i = 0; i < ELEMENTSOF(ka); i++)
                if (ka[i] != kb[i])
                        return ka[i] < kb[i] ? -1 : 1;
        return 0;
}

bool pci_class_is_accelerator(uint32_t class24) {
        unsigned base = (class24 >> 16) & 0xff, sub = (class24 >> 8) & 0xff;
        return base == 0x03 || base == 0x12 || (base == 0x0b && sub == 0x40);
}

bool pci_is_compute(uint16_t vendor, uint32_t class24) {
        static const uint16_t display_only_vendors[] = {
                0x1a03, /* ASPEED (BMC) */
                0x102b, /* Matrox */
                0x1013, /* Cirrus Logic */
                0x126f, /* Silicon Motion */
                0x1234, /* QEMU/Bochs */
                0x1af4, /* Red Hat (virtio-gpu) */
                0x15ad, /* VMware */
        };
        unsigned class16 = (class24 >> 8) & 0xffff;

        if (class16 != 0x0300 && class16 != 0x0380)
                return true;
        for (size_t i = 0; i < ELEMENTSOF(display_only_vendors); i++)
                if (vendor == display_only_vendors[i])
                        return false;
        return true;
}
