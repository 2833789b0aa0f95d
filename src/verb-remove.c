/* SPDX-License-Identifier: MIT */
/* numaplan remove: delete numaplan's drop-ins and give the units back to systemd's defaults. */

#include "changeset.h"
#include "commit.h"
#include "config.h"
#include "log.h"
#include "unit-name.h"
#include "util.h"
#include "verb-options.h"
#include "verbs.h"

void help_remove(void) {
        printf("Usage: numaplan remove [-c FILE] [UNIT...] [--runtime] [--no-reload] [--json]\n\n"
               "Delete the drop-ins numaplan wrote (recognised by their first line): those of the named\n"
               "units, or all of them. Reloads systemd once if anything was removed. Removing nothing\n"
               "is success. The configuration is not needed: -c is accepted and checked only.\n\n"
               "      --runtime       the drop-ins under " UNIT_DIR_RUNTIME "\n"
               "      --no-reload     do not reload systemd\n"
               "      --json          {\"changed\": ..., \"units\": [{\"unit\", \"action\"}]} on stdout\n");
}

int verb_remove(int argc, char **argv, const struct globals *g) {
        struct commit_options o = {0};
        const char *config = NULL;
        bool runtime = false;
        const struct verb_option options[] = {
                {"config", 'c', .value = &config},
                {"runtime", 0, .flag = &runtime},
                {"no-reload", 0, .flag = &o.no_reload},
                {"json", 0, .flag = &o.json},
                {},
        };
        int first = verb_parse_options("remove", argc, argv, options, -1);
        if (first < 0)
                return EXIT_USAGE;
        for (int i = first; i < argc; i++) {
                const char *why;
                if (!unit_name_is_valid_service(argv[i], &why))
                        return verb_usage_error("remove", "'%s' is not a service unit name: it %s", argv[i], why);
        }
        if (config) {
                _cleanup_config_ struct config *cfg = NULL;
                if (config_load(config, &cfg) < 0)
                        return EXIT_USAGE;
        }

        const char *unit_dir = g->unit_dir ? g->unit_dir : runtime ? UNIT_DIR_RUNTIME : UNIT_DIR_PERSISTENT;
        struct changeset cs;
        if (changeset_for_removal(unit_dir, argv + first, &cs) < 0)
                return EXIT_ENV;
        int r = commit_changes(&cs, &o);
        changeset_done(&cs);
        return r;
}
