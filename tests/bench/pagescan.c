/* SPDX-License-Identifier: MIT */
/* The page scan of `numaplan verify` on its own, for tests/bench/pages.sh: reads
 * /proc/PID/numa_maps of each PID through the same reader and parser and prints MiB per node,
 * as `numastat -p PID` does. Usage: pagescan PID... */

#include <stdlib.h>

#include "numa-maps.h"
#include "root.h"
#include "util.h"

int main(int argc, char **argv) {
        _cleanup_root_ struct root *root = NULL;
        struct page_tally t;
        struct cpuset none = {0};

        if (argc < 2 || root_open("/", &root) < 0)
                return 2;
        page_tally_init(&t, (uint64_t) sysconf(_SC_PAGESIZE) / 1024);
        for (int i = 1; i < argc; i++) {
                _cleanup_free_ char *path = xasprintf("proc/%s/numa_maps", argv[i]), *text = NULL;
                if (root_read_file(root, path, &text, NULL) < 0 || page_tally_add(&t, text, &none) < 0)
                        return 1;
        }
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                if (t.total[n])
                        printf("node %d: %.2f MiB (anon %.2f, file %.2f, huge %.2f)\n", n,
                               (double) t.total[n] * (double) t.base_kb / 1024, (double) t.anon[n] * (double) t.base_kb / 1024,
                               (double) t.file[n] * (double) t.base_kb / 1024, (double) t.huge[n] * (double) t.base_kb / 1024);
        page_tally_done(&t);
        return 0;
}
