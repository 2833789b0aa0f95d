/* SPDX-License-Identifier: MIT */
/* The parsers of the audit's files: link speeds and widths as kernels old and new write them,
 * the Device Control register, /proc/swaps, the kernel command line's IOMMU parameters and an
 * IOMMU group's type. */
#include "basic/util.h"
#include "core/tuning-parse.h"
#include "tap.h"

static void speeds(void) {
        static const struct {
                const char *text;
                unsigned mts;
        } good[] = {
                {"2.5 GT/s PCIe", 2500},   {"5.0 GT/s PCIe", 5000},   {"8.0 GT/s PCIe", 8000},
                {"16.0 GT/s PCIe", 16000}, {"32.0 GT/s PCIe", 32000}, {"64.0 GT/s PCIe", 64000},
                {"2.5 GT/s", 2500},        {"8 GT/s", 8000},
        };
        static const char *const bad[] = {"Unknown",          "Unknown speed", "",           "16.0",
                                          "16.0 GT/s PCIe x", "16.00 GT/s",    "x16.0 GT/s", "0 GT/s",
                                          "16. GT/s",         "99999 GT/s",    "16.0GT/s"};
        unsigned v;

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                v = 0;
                ok(pcie_speed_parse(good[i].text, &v) == 0 && v == good[i].mts, "speed '%s' is %u MT/s", good[i].text,
                   good[i].mts);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                is_int(pcie_speed_parse(bad[i], &v), -EINVAL, "speed '%s' is refused", bad[i]);

        int w;
        ok(pcie_width_parse("16", &w) == 0 && w == 16, "width 16");
        ok(pcie_width_parse("0", &w) == 0 && w == 0, "width 0 (a link that is down)");
        is_int(pcie_width_parse("64", &w), -EINVAL, "width 64 does not fit the register's six bits");
        is_int(pcie_width_parse("x16", &w), -EINVAL, "'x16' is not how sysfs writes it");
        is_int(pcie_width_parse("-1", &w), -EINVAL, "a negative width is refused");
        is_int(pcie_width_parse("", &w), -EINVAL, "an empty width is refused");
}

static void devctl(void) {
        int mrrs = 0, mps = 0;

        ok(pcie_devctl_decode(0x5820, &mrrs, &mps) == 0 && mrrs == 4096 && mps == 256, "0x5820: 4096/256");
        ok(pcie_devctl_decode(0x2810, &mrrs, &mps) == 0 && mrrs == 512 && mps == 128, "0x2810: 512/128");
        ok(pcie_devctl_decode(0x0000, &mrrs, &mps) == 0 && mrrs == 128 && mps == 128, "0: 128/128");
        ok(pcie_devctl_decode(0x50a0, &mrrs, &mps) == 0 && mrrs == 4096 && mps == 4096, "the largest sizes");
        mrrs = mps = -1;
        is_int(pcie_devctl_decode(0xffff, &mrrs, &mps), -EINVAL, "all ones (a device gone) is refused");
        ok(mrrs == -1 && mps == -1, "and leaves the results alone");
        is_int(pcie_devctl_decode(0x6000, &mrrs, &mps), -EINVAL, "a reserved MaxReadReq is refused");
        is_int(pcie_devctl_decode(0x00c0, &mrrs, &mps), -EINVAL, "a reserved MaxPayload is refused");
}

static void swaps(void) {
        static const char header[] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        uint64_t v = 1;

        ok(swaps_parse(header, &v) == 0 && v == 0, "a header alone: no swap");
        _cleanup_free_ char *two = xasprintf("%s/dev/nvme0n1p3                          partition\t8388608\t\t0\t\t-2\n"
                                             "/var/swap\\040file file\t1024\t0\t-3\n",
                                             header);
        ok(swaps_parse(two, &v) == 0 && v == (UINT64_C(8388608) + 1024) * 1024,
           "two lines, an escaped blank in a name: the sizes summed, in bytes");
        _cleanup_free_ char *nonl = xasprintf("%s/swap partition 4 0 -2", header);
        ok(swaps_parse(nonl, &v) == 0 && v == 4096, "no final newline");
        is_int(swaps_parse("", &v), -EINVAL, "an empty file has no header");
        is_int(swaps_parse("/swap partition 4 0 -2\n", &v), -EINVAL, "no header");
        _cleanup_free_ char *few = xasprintf("%spartition 4 0 -2\n", header);
        is_int(swaps_parse(few, &v), -EINVAL, "a line without a name");
        _cleanup_free_ char *word = xasprintf("%s/swap partition four 0 -2\n", header);
        is_int(swaps_parse(word, &v), -EINVAL, "a size that is no number");
        _cleanup_free_ char *blank = xasprintf("%s\n/swap partition 4 0 -2\n", header);
        is_int(swaps_parse(blank, &v), -EINVAL, "an empty line");
        _cleanup_free_ char *big =
                xasprintf("%s/a partition 18014398509481983 0 -2\n/b partition 18014398509481983 0 -3\n", header);
        is_int(swaps_parse(big, &v), -ERANGE, "sizes past 2^64 bytes");
}

static void cmdline(void) {
        static const struct {
                const char *cmdline;
                enum iommu_mode mode;
                const char *param;
        } cases[] = {
                {"BOOT_IMAGE=/vmlinuz ro quiet iommu=pt", IOMMU_PASSTHROUGH, "iommu=pt"},
                {"iommu=force,pt intel_iommu=on", IOMMU_PASSTHROUGH, "iommu=force,pt"},
                {"iommu=pt iommu=nopt", IOMMU_TRANSLATED, "iommu=nopt"},
                {"iommu.passthrough=1", IOMMU_PASSTHROUGH, "iommu.passthrough=1"},
                {"iommu.passthrough=0 quiet", IOMMU_TRANSLATED, "iommu.passthrough=0"},
                {"intel_iommu=on,sm_on intel_iommu=off", IOMMU_OFF, "intel_iommu=off"},
                {"amd_iommu=off", IOMMU_OFF, "amd_iommu=off"},
                {"iommu=off", IOMMU_OFF, "iommu=off"},
        };
        enum iommu_mode m;
        const char *p;
        size_t len;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int r = cmdline_iommu(cases[i].cmdline, &m, &p, &len);
                ok(r == 0 && m == cases[i].mode && len == strlen(cases[i].param) &&
                           strncmp(p, cases[i].param, len) == 0,
                   "'%s': %s, from %s", cases[i].cmdline, iommu_mode_to_string(cases[i].mode), cases[i].param);
        }
        is_int(cmdline_iommu("ro quiet intel_iommu=on", &m, &p, &len), -ENOENT, "intel_iommu=on leaves the mode open");
        is_int(cmdline_iommu("xiommu=pt iommu=ptx", &m, &p, &len), -ENOENT, "words match whole");
        is_int(cmdline_iommu("ro -- iommu=pt", &m, &p, &len), -ENOENT, "after -- the words are init's");
        is_int(cmdline_iommu("", &m, &p, &len), -ENOENT, "an empty command line says nothing");

        ok(iommu_type_parse("identity", &m) == 0 && m == IOMMU_PASSTHROUGH, "identity: passthrough");
        ok(iommu_type_parse("DMA-FQ", &m) == 0 && m == IOMMU_TRANSLATED, "DMA-FQ: translated");
        ok(iommu_type_parse("DMA", &m) == 0 && m == IOMMU_TRANSLATED, "DMA: translated");
        is_int(iommu_type_parse("unmanaged", &m), -EINVAL, "a group given to VFIO says nothing of the default");
        is_int(iommu_type_parse("blocked", &m), -EINVAL, "blocked says nothing either");
}

int main(void) {
        speeds();
        devctl();
        swaps();
        cmdline();
        return done_testing();
}
