/* SPDX-License-Identifier: MIT */
/* The readers of the kernel's counters that verify and migrate trust: a node's numastat, and a
 * process's /proc/PID/maps, each given the whole input. */
#include "core/proc-maps.h"
#include "fuzz.h"
#include "host/numastat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct numastat ns = {0};

        numastat_parse(s, &ns);
        for (const char *line = s; *line;) {
                size_t len = strcspn(line, "\n");
                uint64_t start, end;
                if (maps_line_range(line, len, &start, &end))
                        fuzz_assert(start < end);
                line += len + (line[len] == '\n');
        }
        free(s);
        return 0;
}
