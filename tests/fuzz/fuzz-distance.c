/* SPDX-License-Identifier: MIT */
/* A node's distance row: bytes of the ACPI SLIT, so every value parsed fits 0..255. */
#include "fuzz.h"
#include "core/sysfs-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        int *v = NULL;
        size_t n;

        if (distance_parse(s, &v, &n) >= 0) {
                fuzz_assert(n > 0);
                for (size_t i = 0; i < n; i++)
                        fuzz_assert(v[i] >= 0 && v[i] <= 255);
                free(v);
        }
        free(s);
        return 0;
}
