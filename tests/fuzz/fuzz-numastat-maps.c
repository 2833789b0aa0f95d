/* SPDX-License-Identifier: MIT */
/* The readers of the kernel's counters that verify and migrate trust: a node's numastat, and a
 * process's /proc/PID/maps, each given the whole input; and what rank-locality reads of a maps
 * line (the device file it maps) and of the NVIDIA driver's information file. */
#include "core/pci.h"
#include "core/proc-maps.h"
#include "core/rank-locality.h"
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
                const char *path = maps_line_path(line, line + len);
                if (path) {
                        fuzz_assert(path >= line && path < line + len && *path == '/');
                        char *one = strndup(path, (size_t) (line + len - path));
                        struct device_path dp;
                        struct pci_address a;
                        if (one && device_path_parse(one, &dp) == DEVICE_MAP_BAR) /* a function's address */
                                fuzz_assert(pci_address_parse(dp.pci, false, &a) == 0);
                        free(one);
                }
                line += len + (line[len] == '\n');
        }
        unsigned minor;
        (void) nvidia_device_minor(s, &minor);
        free(s);
        return 0;
}
