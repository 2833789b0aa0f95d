/* SPDX-License-Identifier: MIT */
/* numaplan remove: delete numaplan's drop-ins and give the units back to systemd's defaults. */

#include "basic/util.h"
#include "cli/deploy-report.h"
#include "cli/verbs.h"
#include "core/config.h"
#include "core/unit-name.h"
#include "host/config-files.h"
#include "stage/deploy.h"

struct remove_args {
        const char *config;
        bool runtime, no_reload, json;
};

static const struct verb_option options[] = {
        VERB_VALUE("config", 'c', struct remove_args, config, "FILE",
                   "check FILE (the configuration is not needed to remove)"),
        VERB_FLAG("runtime", 0, struct remove_args, runtime, "the drop-ins under " UNIT_DIR_RUNTIME),
        VERB_FLAG("no-reload", 0, struct remove_args, no_reload, "do not reload systemd"),
        VERB_FLAG("json", 0, struct remove_args, json,
                  "{\"changed\": ..., \"units\": [{\"unit\", \"action\"}]} on stdout"),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct remove_args *a = args;
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_deploy_outcome_ struct deploy_outcome out = {0};

        /* As systemctl takes them: no suffix means the service. */
        _cleanup_strv_free_ char **units = xmalloc0((size_t) (argc + 1) * sizeof(char *));
        for (int i = 0; i < argc; i++) {
                const char *why;
                units[i] = unit_name_mangle(argv[i]);
                if (!unit_name_is_valid_service(units[i], &why))
                        return verb_usage_error("remove", "'%s' is not a service unit name: it %s", argv[i], why);
        }
        if (a->config) {
                _cleanup_config_ struct config *cfg = NULL;
                if (config_load(a->config, &cfg) < 0)
                        return EXIT_USAGE;
        }
        inputs_dirs(g, a->runtime, &in);
        int r = inputs_check_replay(&in, g, !a->no_reload, "remove");
        if (r != EXIT_OK)
                return r;
        inputs_journal(&in, in.live);
        struct deploy_options o = {.kind = DEPLOY_REMOVE, .reload = !a->no_reload, .units = units};
        r = deploy_run(&in, &o, &out);
        deploy_report(&out, &(struct report_options){.json = a->json});
        return r;
}

const struct verb verb_remove = {
        .name = "remove",
        .rank = 80,
        .summary = "delete numaplan's drop-ins, reload systemd",
        .options = options,
        .args_size = sizeof(struct remove_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan remove [-c FILE] [UNIT...] [--runtime] [--no-reload] [--json]",
        .description = "Delete the drop-ins numaplan wrote (recognised by their first line): those of the named\n"
                       "units, or all of them. Reloads systemd once if anything was removed. Removing nothing\n"
                       "is success. Unit names without a suffix are services, as systemctl takes them. With\n"
                       "numaplan-generator installed, the generator leaves the units out until the next boot.",
};
