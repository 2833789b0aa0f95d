/* SPDX-License-Identifier: MIT */
/* The drop-in reader of verify: which of numaplan's settings a unit's other drop-in sets. */
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"
#include "core/verify-checks.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        char *keys = dropin_settings(s);

        if (keys)
                fuzz_assert(strlen(keys) > 0 && keys[strlen(keys) - 1] == '=');
        free(keys);
        free(s);
        return 0;
}
