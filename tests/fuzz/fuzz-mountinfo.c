/* SPDX-License-Identifier: MIT */
/* A line of /proc/self/mountinfo, which prepare reads to know numaplan's tmpfs from another mount:
 * any bytes parse or fail, and what parses has every field. */
#include "basic/mountinfo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct mountinfo m;

        if (mountinfo_parse_line(s, &m) >= 0) {
                fuzz_assert(m.id >= 0 && m.parent >= 0);
                fuzz_assert(m.root && m.mount_point && m.fstype && m.source);
                fuzz_assert(strlen(m.mount_point) <= size && strlen(m.source) <= size);
                mountinfo_done(&m);
        }
        free(s);
        return 0;
}
