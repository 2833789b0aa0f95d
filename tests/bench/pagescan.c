/* SPDX-License-Identifier: MIT */
/* The page scan of `numaplan verify` on its own, for tests/bench/pages.sh: reads
 * /proc/PID/numa_maps of each PID through the same reader and parser and prints MiB per node,
 * as `numastat -p PID` does. Usage: pagescan PID... */

#include <stdlib.h>

#include "basic/util.h"
#include "core/numa-maps.h"
#include "host/host-facts.h"
#include "host/root.h"
#include "host/tasks.h"

int main(int argc, char **argv) {
        _cleanup_root_ struct root *root = NULL;
        struct page_tally t;
        struct cpuset none = {0};

        if (argc < 2 || root_open("/", 0, &root) < 0)
                return 2;
        page_tally_init(&t, host_page_size(root) / 1024);
        for (int i = 1; i < argc; i++)
                if (process_pages(root, atoi(argv[i]), &none, &t) < 0)
                        return 1;
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                if (t.total[n])
                        printf("node %d: %.2f MiB (anon %.2f, file %.2f, huge %.2f)\n", n,
                               (double) t.total[n] * (double) t.base_kb / 1024, (double) t.anon[n] * (double) t.base_kb / 1024,
                               (double) t.file[n] * (double) t.base_kb / 1024, (double) t.huge[n] * (double) t.base_kb / 1024);
        page_tally_done(&t);
        return 0;
}
