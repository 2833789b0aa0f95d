/* SPDX-License-Identifier: MIT */
/* The readers of the kernel's counters that verify and migrate trust: a node's numastat, and a
 * process's /proc/PID/maps, each given the whole input. */
#include "fuzz.h"
#include "host/migrate.h"
#include "host/numastat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct numastat ns = {0};
        struct maps_range *v = NULL;

        numastat_parse(s, &ns);
        size_t n = maps_parse(s, &v);
        for (size_t i = 0; i < n; i++)
                fuzz_assert(v[i].start < v[i].end);
        free(v);
        free(s);
        return 0;
}
