/* SPDX-License-Identifier: MIT */
/* The generator's way from a configuration to units at boot: any text gives valid service units
 * or none, and the drop-in that keeps them from starting, with whatever the configuration's error
 * says in its comment, is always the same five lines. */
#include "basic/log.h"
#include "basic/util.h"
#include "generator/generator.h"
#include "core/config.h"
#include "core/unit-name.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct config *c = config_new();
        struct error_at err = {0};

        log_set_max_level(0);
        char **units = generator_units_of_text((const char *) data, size, "fuzz.conf");
        for (size_t i = 0; units[i]; i++) {
                /* a template as an instance of it: "tp@.service" as "tp@0.service" */
                const char *at = strstr(units[i], "@.");
                char *probe = at ? xasprintf("%.*s@0%s", (int) (at - units[i]), units[i], at + 1) : xstrdup(units[i]);
                fuzz_assert(unit_name_is_valid_service(probe, NULL));
                free(probe);
        }
        strv_free(units);

        const char *why = "no plan";
        if (config_parse_text(c, (const char *) data, size, "fuzz.conf", &err) < 0 || config_finish(c, &err) < 0)
                why = err.message;
        char *text = generator_block_text(why, "/run/systemd/generator/.numaplan/applied");
        size_t lines = 0;
        for (const char *p = text; *p; p++) {
                lines += *p == '\n';
                fuzz_assert(*p == '\n' || (unsigned char) *p >= 0x20);
        }
        fuzz_assert(lines == 5);
        free(text);
        error_at_done(&err);
        config_free(c);
        return 0;
}
