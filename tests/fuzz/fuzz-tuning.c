/* SPDX-License-Identifier: MIT */
/* The audit's files: a link speed and width, /proc/swaps, the kernel command line, an IOMMU
 * group's type, and (the first two bytes) the Device Control register. */
#include "fuzz.h"
#include "core/tuning-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        unsigned mts;
        int width, mrrs, mps;
        uint64_t bytes;
        enum iommu_mode m;
        const char *param;
        size_t len;

        if (pcie_speed_parse(s, &mts) >= 0)
                fuzz_assert(mts >= 100 && mts <= 1000900);
        if (pcie_width_parse(s, &width) >= 0)
                fuzz_assert(width >= 0 && width <= 63);
        (void) swaps_parse(s, &bytes);
        if (cmdline_iommu(s, &m, &param, &len) >= 0)
                fuzz_assert(m != IOMMU_UNKNOWN && param >= s && param + len <= s + strlen(s));
        (void) iommu_type_parse(s, &m);
        if (size >= 2 && pcie_devctl_decode((uint16_t) (data[0] | data[1] << 8), &mrrs, &mps) >= 0)
                fuzz_assert(mrrs >= 128 && mrrs <= 4096 && mps >= 128 && mps <= 4096);
        free(s);
        return 0;
}
