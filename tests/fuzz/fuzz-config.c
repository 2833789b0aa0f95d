/* SPDX-License-Identifier: MIT */
/* numaplan.conf's parser: any bytes parse or fail with a file:line error, never crash or leak;
 * what it accepts holds no byte that could end a drop-in's line or that is not UTF-8. */
#include "basic/escape.h"
#include "core/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct config *c = config_new();
        struct error_at err = {0};

        if (config_parse_text(c, (const char *) data, size, "fuzz.conf", &err) >= 0 && config_finish(c, &err) >= 0) {
                fuzz_assert(c->n_replicas > 0);
                for (size_t i = 0; i < c->n_replicas; i++) {
                        const struct replica_conf *r = &c->replicas[i];
                        fuzz_assert(r->unit != NULL && !find_unsafe(r->unit, NULL));
                        for (char **m = r->models; m && *m; m++)
                                fuzz_assert(!find_unsafe(*m, NULL));
                        const char *text[] = {r->warmup_url, r->warmup_body, r->container};
                        for (size_t k = 0; k < 3; k++)
                                fuzz_assert(!text[k] || !find_unsafe(text[k], "\t"));
                }
        } else
                fuzz_assert(err.message && err.at.file);
        error_at_done(&err);
        config_free(c);
        return 0;
}
