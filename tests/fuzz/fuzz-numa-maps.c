/* SPDX-License-Identifier: MIT */
/* /proc/PID/numa_maps: page counts by node never index out of bounds or wrap, for verify's tally
 * and for migrate's mappings. */
#include "core/numa-maps.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        struct page_tally t;
        struct cpuset planned = {0};

        cpuset_set(&planned, 1);
        page_tally_init(&t, 4);
        (void) page_tally_add(&t, s, NULL, &planned);
        uint64_t total = page_tally_sum(t.total);
        fuzz_assert(page_tally_on(t.total, &planned) <= total || total == UINT64_MAX);
        for (size_t i = 0; i < t.n_files; i++)
                fuzz_assert(t.files[i].off_plan <= t.files[i].total);
        page_tally_done(&t);

        /* What migrate scans: never more off the plan than resident, and it fails where the
         * tally fails. */
        struct mapping_pages *m = NULL;
        size_t n = 0;
        if (numa_maps_mappings(s, &planned, &m, &n) >= 0)
                for (size_t i = 0; i < n; i++)
                        fuzz_assert(m[i].off_plan <= m[i].resident && m[i].page_kb > 0);
        free(m);
        free(s);
        return 0;
}
