/* SPDX-License-Identifier: MIT */
/* numaplan apply: write the plan's drop-ins, atomically and idempotently, and reload systemd. */

#include "changeset.h"
#include "commit.h"
#include "fileio.h"
#include "log.h"
#include "planner.h"
#include "unit-name.h"
#include "util.h"
#include "verb-options.h"
#include "verbs.h"

void help_apply(void) {
        printf("Usage: numaplan apply [-c FILE] [--check] [--diff] [--runtime] [--no-reload] [--restart] [--json]\n\n"
               "Write one drop-in per replica unit (" UNIT_DIR_PERSISTENT "/UNIT.d/50-numaplan.conf),\n"
               "remove numaplan's drop-ins of replicas that left the configuration, and reload systemd\n"
               "once if anything changed. All or nothing: a failed write restores every file.\n\n"
               "  -c, --config FILE   read FILE instead of " CONFIG_FILE " and " CONFIG_DROPIN_DIR "/\n"
               "      --check         change nothing; exit 1 when changes are pending\n"
               "      --diff          print a unified diff of every change\n"
               "      --runtime       write under " UNIT_DIR_RUNTIME " (gone at reboot)\n"
               "      --no-reload     do not reload systemd\n"
               "      --restart       restart running replica units whose drop-in changed\n"
               "      --json          {\"changed\": ..., \"units\": [{\"unit\", \"action\"}]} on stdout\n"
               "\nPinning takes effect when a unit starts: a running unit keeps its placement until it\n"
               "restarts, and apply says so.\n");
}

/* The lock of SPEC.md; a user without /run (tests, --unit-dir) locks the unit directory instead. */
static int take_lock(const char *unit_dir) {
        int fd = lock_file("/run/numaplan.lock");
        if (fd >= 0 || (fd != -EACCES && fd != -EPERM && fd != -EROFS && fd != -ENOENT))
                return fd;
        _cleanup_free_ char *p = xasprintf("%s/.numaplan.lock", unit_dir);
        (void) mkdir_parents(unit_dir, 0755);
        return lock_file(p);
}

int verb_apply(int argc, char **argv, const struct globals *g) {
        struct commit_options o = {.marker = true};
        const char *config = NULL;
        bool runtime = false;
        const struct verb_option options[] = {
                {"config", 'c', .value = &config},
                {"check", 0, .flag = &o.check},
                {"diff", 0, .flag = &o.diff},
                {"runtime", 0, .flag = &runtime},
                {"no-reload", 0, .flag = &o.no_reload},
                {"restart", 0, .flag = &o.restart},
                {"json", 0, .flag = &o.json},
                {},
        };
        int first = verb_parse_options("apply", argc, argv, options, 0);
        if (first < 0)
                return EXIT_USAGE;
        if (o.restart && o.no_reload)
                return verb_usage_error("apply", "--restart needs the reload that --no-reload skips");

        struct plan_inputs in;
        int r = plan_load(g, config, runtime, &in);
        if (r != EXIT_OK)
                return r;

        /* Names from templates are checked again as expanded, before any path is built. */
        for (size_t i = 0; i < in.plan->n_replicas; i++) {
                const char *why;
                if (!unit_name_is_valid_service(in.plan->replicas[i].unit, &why)) {
                        config_error(in.plan->replicas[i].conf->at_unit, "unit '%s' %s", in.plan->replicas[i].unit, why);
                        plan_inputs_done(&in);
                        return EXIT_USAGE;
                }
        }

        /* What hurts pinning on this host (NUMA balancing, no cgroup v2 cpuset...) and what the
         * planner had to decide: said on stderr, stdout stays the report. */
        for (size_t i = 0; i < in.topology->n_warnings; i++)
                if (!streq(in.topology->warnings[i].code, "single-node"))
                        log_warning("%s: %s", in.topology->warnings[i].code, in.topology->warnings[i].message);
        for (size_t i = 0; i < in.plan->n_warnings; i++)
                log_warning("%s: %s", in.plan->warnings[i].code, in.plan->warnings[i].message);

        _cleanup_close_ int lock = take_lock(in.unit_dir);
        if (lock < 0) {
                log_error_errno(lock, "cannot take the apply lock: %m");
                plan_inputs_done(&in);
                return EXIT_ENV;
        }

        struct changeset cs;
        if (changeset_for_plan(&in, &cs) < 0) {
                plan_inputs_done(&in);
                return EXIT_ENV;
        }
        o.marker = !o.check;
        r = commit_changes(&cs, &o);
        changeset_done(&cs);
        plan_inputs_done(&in);
        return r;
}
