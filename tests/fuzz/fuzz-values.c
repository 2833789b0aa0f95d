/* SPDX-License-Identifier: MIT */
/* The values an admin writes: sizes, percentages, durations, booleans. */
#include "basic/parse-util.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        uint64_t v;
        unsigned bp;
        bool b;

        (void) parse_size(s, &v);
        (void) parse_duration_ms(s, &v);
        (void) parse_boolean(s, &b);
        if (parse_percent(s, &bp) >= 0) {
                char buf[32];
                unsigned back;
                fuzz_assert(bp <= 10000);
                format_percent(buf, sizeof(buf), bp);
                fuzz_assert(parse_percent(buf, &back) >= 0 && back == bp);
        }
        free(s);
        return 0;
}
