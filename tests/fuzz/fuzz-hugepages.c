/* SPDX-License-Identifier: MIT */
/* The record of numaplan's huge pages: parsed or refused, never misread, and what it formats
 * parses back to the same pools. */
#include "core/hugepages.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct pools p, q;
        unsigned line;

        if (pools_parse(s, &p, &line) >= 0) {
                char *text = pools_format(&p);
                fuzz_assert(pools_parse(text, &q, &line) >= 0);
                for (size_t i = 0; i < p.n; i++)
                        fuzz_assert(pools_get(&q, p.v[i].node, p.v[i].page_kb) == p.v[i].pages);
                pools_done(&q);
                free(text);
                pools_done(&p);
        }
        free(s);
        return 0;
}
