/* SPDX-License-Identifier: MIT */
/* Unit names, which become paths: a name that passes can never leave the unit directory. */
#include "core/unit-name.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        const char *why = NULL;

        if (unit_name_is_valid_service(s, &why)) {
                size_t n = strlen(s); /* names are C strings: a NUL ends one */
                fuzz_assert(n < 256 && !strchr(s, '/') && !strstr(s, ".."));
                fuzz_assert(n > 8 && strcmp(s + n - 8, ".service") == 0);
        } else
                fuzz_assert(why != NULL);
        free(s);
        return 0;
}
