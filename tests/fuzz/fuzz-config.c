/* SPDX-License-Identifier: MIT */
/* numaplan.conf's parser: any bytes parse or fail with a file:line error, never crash or leak. */
#include "core/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct config *c = config_new();
        struct error_at err = {0};

        if (config_parse_text(c, (const char *) data, size, "fuzz.conf", &err) >= 0 && config_finish(c, &err) >= 0) {
                fuzz_assert(c->n_replicas > 0);
                for (size_t i = 0; i < c->n_replicas; i++)
                        fuzz_assert(c->replicas[i].unit != NULL);
        } else
                fuzz_assert(err.message && err.at.file);
        error_at_done(&err);
        config_free(c);
        return 0;
}
