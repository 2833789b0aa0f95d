/* SPDX-License-Identifier: MIT */
/* The kernel's CPU list and mask syntaxes: what parses formats back to the same set. */
#include "basic/cpuset.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct cpuset a, b;

        if (cpuset_parse_list(s, &a) >= 0) {
                char *f = cpuset_format(&a);
                fuzz_assert(cpuset_parse_list(f, &b) >= 0 && cpuset_equal(&a, &b));
                free(f);
        }
        if (cpuset_parse_mask(s, &a) >= 0) {
                char *f = cpuset_format(&a);
                fuzz_assert(cpuset_parse_list(f, &b) >= 0 && cpuset_equal(&a, &b));
                free(f);
        }
        free(s);
        return 0;
}
