/* SPDX-License-Identifier: MIT */
/* numaplan migrate: the pages of running replicas that sit off their planned nodes, moved onto
 * them without a restart. Page-precise: numa_maps says which mappings hold pages off the plan,
 * move_pages(2) which pages, and only those move. */

#include <inttypes.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/util.h"
#include "cli/moved.h"
#include "cli/verbs.h"
#include "core/memory-place.h"
#include "core/numa-maps.h"
#include "core/placement.h"
#include "core/observed.h"
#include "core/verify-checks.h"
#include "host/cgroup.h"
#include "host/file-mappers.h"
#include "host/host-facts.h"
#include "live/migrate.h"
#include "host/root.h"
#include "host/server.h"
#include "host/tasks.h"
#include "stage/inputs.h"
#include "systemd/bus.h"
#include "systemd/journal.h"
#include "systemd/systemd-dl.h"
#include "systemd/unit-state.h"

struct migrate_args {
        const char *config;
        bool dry_run, json;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct migrate_args),
        VERB_FLAG("dry-run", 0, struct migrate_args, dry_run, "only say what would move"),
        VERB_FLAG("json", 0, struct migrate_args, json, "one JSON document on stdout (numaplan(8) lists its keys)"),
        {},
};

struct unit_moves {
        const struct placement *pl;
        struct cpuset targets; /* its nodes, less any GPU memory or NVM (core/memory-place.h) */
        struct process *processes;
        size_t n_processes;
        struct migrate_stats st;
        double seconds;
        uint64_t before_total, before_on; /* its own pages before, as verify counts them, and those on plan */
        uint64_t after_total, after_on;   /* and afterwards */
        unsigned min_local_bp;
        const char *error; /* why nothing was tried, or NULL */
        bool ok;
        struct file_id *keep; /* files left where they are (others map them), sorted */
        size_t n_keep;
};

/* Which processes are the unit's server, or why there are none to move. */
static int unit_processes(const struct inputs *in, sd_bus *bus, const char *mount, struct unit_moves *u) {
        struct unit_state s;
        int r = unit_state_read(bus, u->pl->unit, &s);
        if (r < 0)
                return r;
        u->min_local_bp = u->pl->min_local_bp;
        struct task_facts tf;
        struct container_facts cf;
        server_processes(in->root, mount, s.control_group, u->pl, &tf, &cf);
        u->processes = tf.processes;
        u->n_processes = tf.n_processes;
        if (!s.control_group || !*s.control_group)
                u->error = "not running";
        else if (!tf.readable)
                u->error = "its cgroup cannot be read";
        else if (u->n_processes == 0)
                u->error = "runs no process";
        else if (cf.clients_only && !cf.name)
                u->error = "runs only a container client: set container = NAME";
        else if (cf.clients_only && cf.error < 0)
                u->error = "its container cannot be found";
        strv_free(tf.cgroups);
        container_facts_done(&cf);
        unit_state_done(&s);
        return 0;
}

/* Every unit's own pages, all and on its plan, counted as verify counts them (one scan of the
 * host's maps for all); `before` the move, also which files to leave: the program code other units map
 * (shared) and the files another replica maps, whose pages a move would take from it. */
static void own_pages(const struct inputs *in, struct unit_moves *v, size_t n, bool before) {
        struct page_tally *t = xmalloc0((n + 1) * sizeof(*t));
        struct replica_pages *rp = xmalloc0((n + 1) * sizeof(*rp));
        for (size_t i = 0; i < n; i++) {
                page_tally_init(&t[i], host_page_size(in->root) / 1024);
                for (size_t k = 0; k < v[i].n_processes; k++)
                        (void) process_pages(in->root, v[i].processes[k].pid, &v[i].pl->nodes, &t[i]);
                for (size_t k = 0; before && k < t[i].n_unread; k++) /* the counts below leave it out */
                        log_warning("%s: %s: %s unknown", t[i].unread[k].path, t[i].unread[k].error,
                                    page_source_lost(t[i].unread[k].source));
                rp[i] = (struct replica_pages){.pages = &t[i],
                                               .processes = v[i].processes,
                                               .n_processes = v[i].n_processes,
                                               .models = v[i].pl->conf->models};
        }
        (void) replica_pages_split(in->root, rp, n);
        for (size_t i = 0; i < n; i++) {
                uint64_t *total = before ? &v[i].before_total : &v[i].after_total,
                         *on = before ? &v[i].before_on : &v[i].after_on;
                *total = page_tally_own_sum(&t[i]);
                *on = page_tally_own_on(&t[i], &v[i].pl->nodes);
                for (size_t f = 0; before && f < t[i].n_files; f++) {
                        const struct file_pages *fp = &t[i].files[f];
                        bool other = false;
                        for (size_t k = 0; !fp->shared && in->plan && k < in->plan->n_replicas && !other; k++)
                                other = &in->plan->replicas[k] != v[i].pl && fp->mapped_by &&
                                        strv_contains(fp->mapped_by, in->plan->replicas[k].unit);
                        if (!(fp->shared || other) || !fp->id.ino)
                                continue;
                        v[i].keep = xrealloc(v[i].keep, (v[i].n_keep + 1) * sizeof(*v[i].keep));
                        v[i].keep[v[i].n_keep++] = fp->id;
                }
                if (v[i].n_keep)
                        qsort(v[i].keep, v[i].n_keep, sizeof(*v[i].keep), file_id_compare);
                page_tally_done(&t[i]);
        }
        free(t);
        free(rp);
}

static int migrate_unit(bool dry, struct unit_moves *u) {
        if (u->error)
                return 0;
        double t0 = moved_now();
        for (size_t i = 0; i < u->n_processes; i++) {
                int r = migrate_process(u->processes[i].pid, &u->targets, u->keep, u->n_keep, dry, &u->st);
                if (r == -EOPNOTSUPP)
                        return r;
                if (r == -EPERM) {
                        u->error = "not permitted to move its pages (run numaplan migrate as root)";
                        break;
                }
                if (r < 0 && r != -ESRCH)
                        log_warning("%s: process %d: %s", u->pl->unit, (int) u->processes[i].pid, strerror(-r));
        }
        u->seconds = moved_now() - t0;
        return 0;
}

static json_object *share_json(uint64_t on, uint64_t total) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "pages", json_uint64(total));
        json_object_object_add(o, "on_plan_pages", json_uint64(on));
        json_object_object_add(o, "on_plan_ratio", json_object_new_double(total ? (double) on / (double) total : 0));
        return o;
}

static void print_json(const struct unit_moves *v, size_t n, bool dry) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *units = json_object_new_array();
        bool all = true;

        for (size_t i = 0; i < n; i++) {
                const struct unit_moves *u = &v[i];
                json_object *uo = json_object_new_object(), *pids = json_object_new_array();
                for (size_t k = 0; k < u->n_processes; k++)
                        json_object_array_add(pids, json_object_new_int(u->processes[k].pid));
                json_object_object_add(uo, "unit", json_object_new_string(u->pl->unit));
                json_object_object_add(uo, "replica", json_object_new_string(u->pl->name));
                json_object_object_add(uo, "ok", json_object_new_boolean(u->ok));
                json_object_object_add(uo, "error", json_string_or_null(u->error));
                json_object_object_add(uo, "nodes", json_cpuset(&u->pl->nodes));
                json_object_object_add(uo, "processes", pids);
                json_object_object_add(uo, dry ? "would_move" : "moved", moved_json(&u->st, u->seconds));
                json_object_object_add(uo, "before", share_json(u->before_on, u->before_total));
                json_object_object_add(uo, "after", share_json(u->after_on, u->after_total));
                json_object_object_add(uo, "min_local_ratio", json_object_new_double(u->min_local_bp / 10000.0));
                json_object_array_add(units, uo);
                all = all && u->ok;
        }
        json_object_object_add(o, "ok", json_object_new_boolean(all));
        json_object_object_add(o, "dry_run", json_object_new_boolean(dry));
        json_object_object_add(o, "units", units);
        json_print(o);
}

static void print_text(const struct unit_moves *v, size_t n, bool dry) {
        for (size_t i = 0; i < n; i++) {
                const struct unit_moves *u = &v[i];
                _cleanup_free_ char *nodes = cpuset_format(&u->pl->nodes);
                if (u->error && u->n_processes == 0) {
                        printf("%s: %s: nothing to move\n", u->pl->unit, u->error);
                        continue;
                }
                _cleanup_free_ char *what = moved_summary(&u->st, u->seconds),
                                    *before = format_share(u->before_on, u->before_total),
                                    *after = format_share(u->after_on, u->after_total);
                char want[16];
                format_percent(want, sizeof(want), u->min_local_bp);
                printf("%s: %s%s\n", u->pl->unit, dry ? "(dry run) would have " : "", what);
                printf("  on node%s %s: %s of %" PRIu64 " pages before, %s of %" PRIu64 " after (min-local %s)%s%s\n",
                       cpuset_count(&u->pl->nodes) > 1 ? "s" : "", nodes, before, u->before_total, after,
                       u->after_total, want, u->error ? ": " : "", strempty(u->error));
        }
}

/* Each move as the unit's journal entry: pages moved and not, and the share on plan after. */
static void journal_moves(const struct unit_moves *v, size_t n) {
        for (size_t i = 0; journal_enabled() && i < n; i++) {
                const struct unit_moves *u = &v[i];
                _cleanup_free_ char *what = moved_summary(&u->st, u->seconds), *nodes = cpuset_format(&u->pl->nodes),
                                    *after = format_share(u->after_on, u->after_total);
                char *fields[] = {
                        xasprintf("NUMAPLAN_NODES=%s", nodes),
                        xasprintf("NUMAPLAN_PAGES_MOVED=%" PRIu64, migrate_moved(&u->st)),
                        xasprintf("NUMAPLAN_PAGES_NOT_MOVED=%" PRIu64, migrate_failed(&u->st)),
                        xasprintf("NUMAPLAN_PAGES=%" PRIu64, u->after_total),
                        xasprintf("NUMAPLAN_PAGES_ON_PLAN=%" PRIu64, u->after_on),
                        NULL,
                };
                journal_event(JOURNAL_MIGRATE, u->ok ? LOG_INFO : LOG_WARNING, u->pl->unit, u->ok ? "ok" : "failed",
                              fields, "%s: %s; %s of its pages on node%s %s after%s%s", u->pl->unit,
                              u->error && u->n_processes == 0 ? "nothing to move" : what, after,
                              cpuset_count(&u->pl->nodes) > 1 ? "s" : "", nodes, u->error ? ": " : "",
                              strempty(u->error));
                for (size_t k = 0; k < ELEMENTSOF(fields); k++)
                        free(fields[k]);
        }
}

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct migrate_args *a = args;
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_free_ char *mount = NULL;
        _cleanup_free_ const struct placement **sel = NULL;
        _cleanup_inputs_ struct inputs in = {0};
        size_t n = 0;

        int r = inputs_load(g, a->config, false, 0, &in);
        if (r != EXIT_OK)
                return r;
        if (!root_is_live(in.root))
                return verb_usage_error("migrate", "it moves this host's pages: not with --sysfs-root");
        if (!a->dry_run)
                inputs_journal(&in, true);
        r = inputs_select(&in, argc, argv, &sel, &n);
        _cleanup_free_ struct unit_moves *v = xmalloc0((n + 1) * sizeof(*v));
        for (size_t i = 0; i < n; i++) {
                v[i].pl = sel[i];
                v[i].targets = sel[i]->nodes;
                _cleanup_free_ char *dropped = memory_targets_check(in.topology, &v[i].targets);
                if (dropped)
                        log_warning("%s: %s", sel[i]->unit, dropped);
        }
        if (r == EXIT_OK && bus_connect(&bus) < 0)
                r = EXIT_ENV;
        if (r == EXIT_OK) {
                enum cgroup_mode mode;
                cgroup_detect(in.root, &mode, &mount);
        }
        for (size_t i = 0; r == EXIT_OK && i < n; i++)
                if (unit_processes(&in, bus, mount, &v[i]) < 0)
                        r = EXIT_ENV;
        if (r == EXIT_OK)
                own_pages(&in, v, n, true);
        for (size_t i = 0; r == EXIT_OK && i < n; i++) {
                int k = migrate_unit(a->dry_run, &v[i]);
                if (k == -EOPNOTSUPP)
                        log_error("libnuma (libnuma1) is needed to move pages");
                if (k < 0)
                        r = EXIT_ENV;
        }
        if (r == EXIT_OK) {
                bool all = true;
                own_pages(&in, v, n, false);
                for (size_t i = 0; i < n; i++) {
                        const struct unit_moves *u = &v[i];
                        v[i].ok = !u->error && u->after_total > 0 &&
                                  locality_reaches(u->after_on, u->after_total, u->min_local_bp);
                        all = all && v[i].ok;
                }
                if (a->json)
                        print_json(v, n, a->dry_run);
                else if (n == 0)
                        printf("no replicas\n");
                else
                        print_text(v, n, a->dry_run);
                journal_moves(v, n);
                r = all ? EXIT_OK : EXIT_FAILED;
        }
        for (size_t i = 0; i < n; i++) {
                free(v[i].processes);
                free(v[i].keep);
        }
        return r;
}

const struct verb verb_migrate = {
        .name = "migrate",
        .rank = 60,
        .summary = "move running replicas' pages onto their nodes, without a restart",
        .options = options,
        .args_size = sizeof(struct migrate_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan migrate [-c FILE] [UNIT...] [--dry-run] [--json]",
        .description = "For each running replica (all, or the named units), move every page of its server's\n"
                       "processes (its unit's cgroup and those below it, or the container that container =\n"
                       "names) that sits off its planned nodes onto them: anonymous memory, page cache, huge\n"
                       "pages.\n"
                       "Only the pages off the plan move; the processes keep running. Says, per unit, the pages\n"
                       "and bytes moved from and to each node, those that could not move and why, the time\n"
                       "taken, and the share of its pages on its nodes before and after. Exit 0 when every\n"
                       "unit's share afterwards reaches its min-local, 1 otherwise. Root only.",
};
