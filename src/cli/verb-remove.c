/* SPDX-License-Identifier: MIT */
/* numaplan remove: delete numaplan's drop-ins and give the units back to systemd's defaults. */

#include "basic/log.h"
#include "basic/util.h"
#include "cli/changes.h"
#include "cli/generator-mode.h"
#include "cli/verbs.h"
#include "core/config.h"
#include "core/unit-name.h"
#include "host/config-files.h"
#include "host/hugepages.h"
#include "host/irq-steer.h"
#include "stage/inputs.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"

struct remove_args {
        const char *config;
        bool runtime, no_reload, json;
};

static const struct verb_option options[] = {
        VERB_VALUE("config", 'c', struct remove_args, config, "FILE",
                   "check FILE (the configuration is not needed to remove)"),
        VERB_FLAG("runtime", 0, struct remove_args, runtime,
                  "the drop-ins under " UNIT_DIR_RUNTIME),
        VERB_FLAG("no-reload", 0, struct remove_args, no_reload,
                  "do not reload systemd"),
        VERB_FLAG("json", 0, struct remove_args, json,
                  "{\"changed\": ..., \"units\": [{\"unit\", \"action\"}]} on stdout"),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct remove_args *a = args;
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_changeset_ struct changeset cs = {0};
        _cleanup_pool_changes_ struct pool_changes pools = {0};
        _cleanup_irq_changes_ struct irq_changes irqs_done = {0};
        _cleanup_close_ int lock = -1;
        bool live = streq(g->sysfs_root, "/");
        /* Like the pools: removing all gives back every interrupt numaplan steered. */
        struct irq_step irqs = {.in = &in, .live = live, .done = &irqs_done}, *all = argc == 0 ? &irqs : NULL;
        int r;

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
        r = inputs_check_replay(&in, g, !a->no_reload, "remove");
        if (r != EXIT_OK)
                return r;
        inputs_journal(&in, live);
        /* The same lock as apply: a remove must not interleave with an apply's commit. */
        /* Said before anything, the lock included, is written. */
        if (!a->no_reload && !booted_with_systemd()) {
                log_error(NOT_BOOTED_WITH_SYSTEMD);
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        r = inputs_lock(&in, access(in.unit_dir, F_OK) == 0, &lock); /* no unit directory: nothing to remove */
        if (r != EXIT_OK)
                return r;
        if (!in.generator && (changeset_recover(in.unit_dir) < 0 || changeset_for_removal(in.unit_dir, units, &cs) < 0))
                return EXIT_ENV;
        /* Removing every drop-in gives back every huge page numaplan reserved; removing some
         * leaves the pools to the next apply, which sizes them for what stays. */
        int rp = argc == 0 ? changes_pools(&in, live, NULL, false, &pools) : EXIT_OK;
        if (in.generator)
                r = generator_remove(&in, units, &pools, all, !a->no_reload, a->json);
        else
                r = deploy_and_report(&cs, &pools, all, NULL, false, false, !a->no_reload, false, a->json);
        /* Like the pools: removing all takes every copy away, removing some leaves them to the
         * next apply. */
        if (r == EXIT_OK && argc == 0)
                changes_copies(&in, live, NULL);
        return r == EXIT_OK ? rp : r;
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
