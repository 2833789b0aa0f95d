/* SPDX-License-Identifier: MIT */
/* systemd's CPU and node sets over D-Bus: bit n in byte n/8, and back to the same bytes. */
#include "basic/cpuset.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct cpuset s;
        uint8_t back[CPUSET_MAX / 8];

        if (cpuset_from_bytes(data, size, &s) < 0)
                return 0;
        size_t n = cpuset_to_bytes(&s, back, sizeof(back));
        /* The same bits; trailing zero bytes may be left out. */
        for (size_t i = 0; i < size; i++)
                fuzz_assert((i < n ? back[i] : 0) == data[i]);
        return 0;
}
