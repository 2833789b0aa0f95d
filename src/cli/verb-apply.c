/* SPDX-License-Identifier: MIT */
/* numaplan apply: write the plan's drop-ins, atomically and idempotently, and reload systemd. */

#include "basic/log.h"
#include "basic/util.h"
#include "cli/deploy-report.h"
#include "cli/verbs.h"
#include "stage/deploy.h"
#include "systemd/boot-step.h"

struct apply_args {
        const char *config;
        bool check, diff, runtime, no_reload, restart, json, boot;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct apply_args),
        VERB_FLAG("check", 0, struct apply_args, check, "change nothing; exit 1 when changes are pending"),
        VERB_FLAG("diff", 0, struct apply_args, diff, "print a unified diff of every change"),
        VERB_FLAG("runtime", 0, struct apply_args, runtime, "write under " UNIT_DIR_RUNTIME " (gone at reboot)"),
        VERB_FLAG("no-reload", 0, struct apply_args, no_reload, "do not reload systemd"),
        VERB_FLAG("restart", 0, struct apply_args, restart, "restart running replica units whose drop-in changed"),
        VERB_FLAG("json", 0, struct apply_args, json,
                  "{\"changed\": ..., \"units\": [{\"unit\", \"action\"}]} on stdout"),
        VERB_FLAG("boot", 0, struct apply_args, boot,
                  "as the boot step: the replicas do not start until this apply succeeds"),
        {},
};

/* Which boot step will place the replicas at the next boot: said by --check; warned of by apply
 * to this host's units when there is none. */
static void say_boot_step(const struct inputs *in, bool check) {
        _cleanup_(boot_step_done) struct boot_step b = {0};
        boot_step_find(in->generator ? NULL : in->unit_dir, in->system_dirs, in->generator, &b);
        _cleanup_free_ char *text = boot_step_describe(&b);
        if (b.kind == BOOT_STEP_NONE && (check || in->system_dirs))
                log_warning("%s", text);
        else if (check)
                log_notice("%s", text);
}

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct apply_args *a = args;
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_deploy_outcome_ struct deploy_outcome out = {0};

        (void) argc;
        (void) argv;
        if (a->restart && a->no_reload)
                return verb_usage_error("apply", "--restart needs the reload that --no-reload skips");
        if (a->boot && a->check)
                return verb_usage_error("apply", "--boot writes the marker that --check must not");
        /* The boot step's first act, before the configuration is read: whatever ends this apply
         * (a bad configuration, a host that no longer fits it, numaplan.service's time limit),
         * the replicas do not start until one succeeds. */
        int r = a->boot ? deploy_boot_begin(g, a->runtime) : EXIT_OK;
        if (r == EXIT_OK)
                r = inputs_load(g, a->config, a->runtime, INPUTS_IRQS_ASKED | INPUTS_NAMED, &in);
        if (r == EXIT_OK)
                r = inputs_check_replay(&in, g, !a->no_reload && !a->check, "apply");
        if (r != EXIT_OK)
                return r;
        if (!a->check)
                inputs_journal(&in, in.live);
        if (!plan_units_valid(in.plan))
                return EXIT_USAGE;
        struct deploy_options o = {
                .kind = DEPLOY_APPLY, .check = a->check, .reload = !a->no_reload, .restart = a->restart};
        r = deploy_run(&in, &o, &out);
        deploy_report(&out, &(struct report_options){.check = a->check, .diff = a->diff, .json = a->json});
        if (r == EXIT_OK || (a->check && r == EXIT_FAILED))
                say_boot_step(&in, a->check);
        return r;
}

const struct verb verb_apply = {
        .name = "apply",
        .rank = 30,
        .summary = "write the drop-ins, reload systemd",
        .options = options,
        .args_size = sizeof(struct apply_args),
        .max_args = 0,
        .run = run,
        .usage = "numaplan apply [-c FILE] [--check] [--diff] [--runtime] [--no-reload] [--restart] [--json] [--boot]",
        .description = "Write one drop-in per replica unit (" UNIT_DIR_PERSISTENT "/UNIT.d/50-numaplan.conf),\n"
                       "remove numaplan's drop-ins of replicas that left the configuration, and reload systemd\n"
                       "once if anything changed. All or nothing: a failed write restores every file. Once all\n"
                       "is done, removes the marker the boot step creates as it starts (" STATE_RUNTIME_DIR
                       "/" STATE_UNPLACED "),\n"
                       "whose presence keeps the replicas from starting: the drop-ins assert it is not there.",
        .epilogue = "With numaplan-generator installed, the drop-ins are the generator's: apply checks the\n"
                    "plan, removes its own drop-ins, reloads (which runs the generator) and checks the result.\n"
                    "\nPinning takes effect when a unit starts: a running unit keeps its placement until it\n"
                    "restarts, and apply says so.",
};
