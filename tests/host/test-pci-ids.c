/* SPDX-License-Identifier: MIT */
/* Names from pci.ids text, found by bisection: the lines libpci reads as entries and those it
 * skips, a vendor's devices ending at the next vendor or the class list, and a database of
 * thousands of vendors against what each lookup must find. */
#include <stdlib.h>

#include "basic/util.h"
#include "host/pci-ids.h"
#include "tap.h"

static void lookup(const char *text, unsigned vendor, unsigned device, const char *want_vendor, const char *want_device,
                   const char *what) {
        struct pci_ids ids = {.text = text, .len = strlen(text)};
        _cleanup_free_ char *v = NULL, *d = NULL;

        pci_ids_lookup(&ids, vendor, device, &v, &d);
        if (!ok(streq_ptr(v, want_vendor) && streq_ptr(d, want_device), "%s", what)) {
                tap_diag("vendor", v);
                tap_diag("device", d);
        }
}

static void lines(void) {
        static const char text[] = "#\tList of PCI ID's\n"
                                   "\n"
                                   "0001  SafeNet (wrong ID)\n"
                                   "0010  Allied Telesis, Inc \n"
                                   "\t8139  AT-2500TX V3 Ethernet\n"
                                   "# a comment between devices\n"
                                   "\t#\tan indented comment\n"
                                   "\t8140  Second\t\n"
                                   "\t\t0010 8139  a subsystem, not a device\n"
                                   "\t9000  \tTabbed  name\r\n"
                                   "0014  Loongson Technology LLC\n"
                                   "10de  NVIDIA Corporation\n"
                                   "\t2330  GH100 [H100 SXM5 80GB]\n"
                                   "ffff  Illegal Vendor ID\n"
                                   "C 00  Unclassified device\n"
                                   "\t00  Non-VGA unclassified device\n"
                                   "\t01  VGA compatible unclassified device\n";

        lookup(text, 0x0010, 0x8139, "Allied Telesis, Inc", "AT-2500TX V3 Ethernet",
               "vendor and device; the name loses one trailing blank");
        lookup(text, 0x0010, 0x8140, "Allied Telesis, Inc", "Second", "comments between devices are skipped");
        lookup(text, 0x0010, 0x9000, "Allied Telesis, Inc", "Tabbed  name",
               "blanks after the ID are skipped, a carriage return ends the line");
        lookup(text, 0x0010, 0x0010, "Allied Telesis, Inc", NULL, "a subsystem line is no device");
        lookup(text, 0x0014, 0x8139, "Loongson Technology LLC", NULL, "another vendor's device is not this vendor's");
        lookup(text, 0x10de, 0x2330, "NVIDIA Corporation", "GH100 [H100 SXM5 80GB]", "a later vendor");
        lookup(text, 0x10DE, 0x2331, "NVIDIA Corporation", NULL, "a device not listed: the vendor alone");
        lookup(text, 0x1234, 0x0001, NULL, NULL, "a vendor not listed: nothing");
        lookup(text, 0xffff, 0x0000, "Illegal Vendor ID", NULL, "the class list is not the last vendor's devices");
        lookup(text, 0xffff, 0x0001, "Illegal Vendor ID", NULL, "nor are the class list's subclasses");
        lookup("ffff  Illegal Vendor ID\nX 00  A block of its own\n\t0001  Not a device\n", 0xffff, 0x0001,
               "Illegal Vendor ID", NULL, "any line not nested ends the vendor's devices");
        lookup("", 0x10de, 0x2330, NULL, NULL, "an empty file");
        lookup("10de", 0x10de, 0x2330, NULL, NULL, "a vendor without a name is no entry");
        lookup("10de  NVIDIA", 0x10de, 0x2330, "NVIDIA", NULL, "a last line without its newline");
        lookup(" 10de  NVIDIA\n", 0x10de, 0x2330, NULL, NULL, "an indented vendor (with blanks) is no vendor");
}

/* A database large enough to be bisected: every third vendor ID, each with devices (and
 * subsystems) at every seventh ID; each lookup against the plain reading of every line. */
static void large(void) {
        struct strbuf b = {0};
        unsigned vendors = 0, wrong = 0, checked = 0;

        for (unsigned v = 0x1000; v < 0x1000 + 3 * 3000; v += 3, vendors++) {
                strbuf_printf(&b, "%04x  Vendor %u\n", v, v);
                for (unsigned d = v % 5; d < (v % 11) * 7; d += 7) {
                        strbuf_printf(&b, "\t%04x  Device %u of %u\n", d, d, v);
                        if (d % 2)
                                strbuf_printf(&b, "\t\t%04x %04x  Subsystem\n", v, d + 1);
                }
                if (v % 100 == 1)
                        strbuf_printf(&b, "# comment\n\n");
        }
        strbuf_printf(&b, "C 00  Unclassified device\n\t00  Non-VGA unclassified device\n");
        ok(b.len > 100 * 4096, "the database is %zu bytes", b.len);

        for (unsigned v = 0x0ffe; v < 0x1000 + 3 * 3000 + 2; v++)
                for (unsigned d = 0; d < 80; d += (v % 13) + 1) {
                        struct pci_ids ids = {.text = b.s, .len = b.len};
                        _cleanup_free_ char *gv = NULL, *gd = NULL, *wv = NULL, *wd = NULL;
                        bool listed = v >= 0x1000 && v < 0x1000 + 3 * 3000 && (v - 0x1000) % 3 == 0;
                        pci_ids_lookup(&ids, v, d, &gv, &gd);
                        if (listed) {
                                wv = xasprintf("Vendor %u", v);
                                if (d % 7 == v % 5 % 7 && d >= v % 5 && d < (v % 11) * 7)
                                        wd = xasprintf("Device %u of %u", d, v);
                        }
                        checked++;
                        if (!streq_ptr(gv, wv) || !streq_ptr(gd, wd)) {
                                if (wrong++ < 5)
                                        printf("#   %04x:%04x: got '%s' '%s', want '%s' '%s'\n", v, d, strempty(gv),
                                               strempty(gd), strempty(wv), strempty(wd));
                        }
                }
        ok(wrong == 0, "%u lookups among %u vendors: %u wrong", checked, vendors, wrong);
        strbuf_done(&b);
}

int main(void) {
        lines();
        large();
        return done_testing();
}
