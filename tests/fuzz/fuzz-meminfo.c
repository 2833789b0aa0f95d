/* SPDX-License-Identifier: MIT */
/* A node's meminfo and /proc/meminfo. */
#include "fuzz.h"
#include "core/sysfs-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        static const char *const keys[] = {"MemTotal", "MemFree", "Hugetlb", ""};
        uint64_t v;

        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                (void) meminfo_get(s, keys[i], &v);
        free(s);
        return 0;
}
