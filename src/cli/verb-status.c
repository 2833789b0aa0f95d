/* SPDX-License-Identifier: MIT */
/* numaplan status: each replica unit, whether systemd has loaded numaplan's current drop-in, and
 * whether the running unit started with it or before it. One D-Bus round trip a unit and no
 * warm-up traffic: fast enough for a shell prompt or a monitoring probe. */

#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/table.h"
#include "basic/util.h"
#include "cli/verbs.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "stage/inputs.h"
#include "systemd/boot-step.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"
#include "systemd/dropin-seen.h"
#include "systemd/systemd-dl.h"
#include "systemd/unit-state.h"

struct status_args {
        const char *config;
        bool json;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct status_args),
        VERB_FLAG("json", 0, struct status_args, json, "one JSON document on stdout"),
        {},
};

struct row {
        const struct placement *pl;
        struct unit_status s;
        const char *dropin;  /* "in effect", "not loaded", "masked", "stale", "missing" */
        bool started_before; /* active since before the drop-in was written */
        bool ok;
};

static bool active(const struct unit_status *s) {
        return streq_ptr(s->active_state, "active") || streq_ptr(s->active_state, "reloading");
}

static void judge(const struct inputs *in, struct row *row) {
        _cleanup_free_ char *path = dropin_path(in->unit_dir, row->pl->unit), *content = NULL,
                            *want = dropin_render(in->topology, in->config, in->plan, row->pl, &in->env);
        struct stat st;
        struct dropin_seen seen;

        dropin_seen(row->s.dropin_paths, path, &seen);
        if (read_file(path, &content) < 0)
                row->dropin = "missing";
        else if (!streq(content, want))
                row->dropin = "stale";
        else if (seen.index < 0 && seen.instead)
                row->dropin = "masked";
        else if (seen.index < 0)
                row->dropin = "not loaded";
        else
                row->dropin = "in effect";
        if (active(&row->s) && row->s.active_enter_usec > 0 && stat(path, &st) == 0) {
                uint64_t written = (uint64_t) st.st_mtim.tv_sec * 1000000 + (uint64_t) st.st_mtim.tv_nsec / 1000;
                row->started_before = row->s.active_enter_usec < written;
        }
        row->ok = streq(row->dropin, "in effect") && !row->started_before;
}

static const char *advice(const struct row *r) {
        if (streq(r->dropin, "missing") || streq(r->dropin, "stale"))
                return "run numaplan apply";
        if (streq(r->dropin, "not loaded"))
                return "systemctl daemon-reload";
        if (streq(r->dropin, "masked"))
                return "a drop-in of the same name in a directory systemd prefers masks it";
        if (r->started_before)
                return "restart it: it runs with its old placement";
        if (!streq_ptr(r->s.load_state, "loaded"))
                return "systemd cannot load the unit";
        return "";
}

/* What the next boot runs, and whether a boot step that ran keeps the replicas from starting. */
struct boot {
        struct boot_step step;
        bool blocked; /* apply's boot marker is there */
};

static void print_json(const struct row *rows, size_t n, bool interrupted, const struct boot *boot) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *units = json_object_new_array();
        bool all = !interrupted && !boot->blocked;

        for (size_t i = 0; i < n; i++) {
                const struct row *r = &rows[i];
                json_object *u = json_object_new_object(), *plan = json_object_new_object();
                json_object_object_add(u, "unit", json_object_new_string(r->pl->unit));
                json_object_object_add(u, "replica", json_object_new_string(r->pl->name));
                json_object_object_add(u, "ok", json_object_new_boolean(r->ok));
                json_object_object_add(u, "load_state", json_string_or_null(r->s.load_state));
                json_object_object_add(u, "active_state", json_string_or_null(r->s.active_state));
                json_object_object_add(u, "sub_state", json_string_or_null(r->s.sub_state));
                json_object_object_add(u, "dropin", json_object_new_string(r->dropin));
                json_object_object_add(u, "started_before_dropin", json_object_new_boolean(r->started_before));
                json_object_object_add(plan, "policy", json_object_new_string(policy_to_string(r->pl->policy)));
                json_object_object_add(plan, "nodes", json_cpuset(&r->pl->nodes));
                json_object_object_add(plan, "cpus", json_cpuset(&r->pl->cpus));
                json_object_object_add(u, "plan", plan);
                json_object_array_add(units, u);
                all = all && r->ok;
        }
        json_object_object_add(o, "ok", json_object_new_boolean(all));
        json_object_object_add(o, "apply_interrupted", json_object_new_boolean(interrupted));
        json_object_object_add(o, "boot_step", json_string_or_null(boot_step_name(&boot->step)));
        json_object_object_add(o, "unplaced", json_object_new_boolean(boot->blocked));
        json_object_object_add(o, "units", units);
        json_print(o);
}

static void print_table(const struct row *rows, size_t n) {
        static const char *const headers[] = {"unit", "state", "drop-in", "since", "policy", "nodes", "cpus", "todo"};
        _cleanup_table_ struct table *t = table_new(headers, ELEMENTSOF(headers));

        for (size_t i = 0; i < n; i++) {
                const struct row *r = &rows[i];
                _cleanup_free_ char *nodes = cpuset_format(&r->pl->nodes), *cpus = cpuset_format(&r->pl->cpus);
                table_add(t, r->pl->unit);
                if (streq_ptr(r->s.load_state, "loaded"))
                        table_addf(t, "%s (%s)", strempty(r->s.active_state), strempty(r->s.sub_state));
                else
                        table_add(t, strempty(r->s.load_state));
                table_add(t, r->dropin);
                table_add(t, !active(&r->s) ? "-" : r->started_before ? "before drop-in" : "with drop-in");
                table_add(t, policy_to_string(r->pl->policy));
                table_add(t, nodes);
                table_add(t, cpus);
                table_add(t, advice(r));
        }
        table_print(t, stdout, NULL);
}

static void boot_done(struct boot *b) {
        boot_step_done(&b->step);
}

/* The boot step on stdout after the table, or a warning when there is none. */
static void say_boot_step(const struct boot_step *step) {
        _cleanup_free_ char *text = boot_step_describe(step);
        if (step->kind == BOOT_STEP_NONE)
                log_warning("%s", text);
        else
                printf("\nboot step: %s\n", text);
}

struct rows {
        struct row *v;
        size_t n;
};

static void rows_done(struct rows *r) {
        for (size_t i = 0; i < r->n; i++)
                unit_status_done(&r->v[i].s);
        free(r->v);
}

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct status_args *a = args;
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_(rows_done) struct rows rows = {0};

        int r = inputs_load(g, a->config, false, 0, &in);
        if (r != EXIT_OK)
                return r;
        _cleanup_free_ const struct placement **sel = NULL;
        r = inputs_select(&in, argc, argv, &sel, &rows.n);
        if (r != EXIT_OK)
                return r;
        rows.v = xmalloc0((rows.n + 1) * sizeof(*rows.v));
        if (bus_connect(&bus) < 0)
                return EXIT_ENV;
        for (size_t i = 0; i < rows.n; i++) {
                rows.v[i].pl = sel[i];
                if (unit_status_read(bus, rows.v[i].pl->unit, &rows.v[i].s) < 0)
                        return EXIT_ENV;
                judge(&in, &rows.v[i]);
        }
        bool interrupted = changeset_interrupted(in.unit_dir), all = !interrupted;
        if (interrupted)
                log_warning("an apply was interrupted midway (%s/" CHANGESET_JOURNAL
                            "): run numaplan apply to finish it",
                            in.unit_dir);
        _cleanup_(boot_done) struct boot boot = {.blocked = !in.generator && access(in.state.unplaced, F_OK) == 0};
        boot_step_find(in.unit_dir, in.system_dirs, in.generator, &boot.step);
        if (boot.blocked)
                log_warning("%s is there: the boot step has not placed the replicas at this boot, and their drop-ins "
                            "keep them from starting (journalctl -u numaplan.service says why); fix the cause and run "
                            "numaplan apply",
                            in.state.unplaced);
        all = all && !boot.blocked;
        for (size_t i = 0; i < rows.n; i++)
                all = all && rows.v[i].ok;
        if (a->json)
                print_json(rows.v, rows.n, interrupted, &boot);
        else if (rows.n == 0)
                printf("no replicas\n");
        else
                print_table(rows.v, rows.n);
        if (!a->json)
                say_boot_step(&boot.step);
        return all ? EXIT_OK : EXIT_FAILED;
}

const struct verb verb_status = {
        .name = "status",
        .rank = 50,
        .pages = true,
        .summary = "each replica unit: its drop-in in effect, started with it or before",
        .options = options,
        .args_size = sizeof(struct status_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan status [-c FILE] [UNIT...] [--json]",
        .description = "For each replica unit (all, or the named ones): whether systemd has loaded it, whether\n"
                       "numaplan's drop-in is in effect and current, whether the running unit started before the\n"
                       "drop-in was written (then it runs unpinned until restarted), and the placement the plan\n"
                       "gives it; then which boot step places the replicas at the next boot, warning when none\n"
                       "will. Sends no traffic to the replicas; numaplan verify proves the rest. Exit 0 when every\n"
                       "unit has its current drop-in in effect, 1 otherwise (also while a boot step that failed\n"
                       "keeps the replicas from starting).",
};
