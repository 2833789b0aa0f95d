/* SPDX-License-Identifier: MIT */
/* numaplan verify: is each replica pinned as planned, and if not, why. systemd's view over
 * D-Bus, every task's affinity in /proc, a warm-up request, and where the pages are. */

#include <inttypes.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/table.h"
#include "basic/terminal.h"
#include "basic/util.h"
#include "cli/metrics-file.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "core/placement.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/rank-locality.h"
#include "core/verify-checks.h"
#include "host/numastat.h"
#include "stage/inputs.h"
#include "stage/verify-units.h"
#include "systemd/journal.h"

/* ---- output ---- */

static json_object *processes_json(const struct task_facts *tf) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < tf->n_processes; i++) {
                const struct process *p = &tf->processes[i];
                json_object *o = json_object_new_object();
                json_object_object_add(o, "pid", json_object_new_int(p->pid));
                json_object_object_add(o, "comm", json_object_new_string(p->comm));
                json_object_object_add(o, "cgroup",
                                       json_object_new_string(p->cgroup < tf->n_cgroups ? tf->cgroups[p->cgroup] : ""));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *container_json(const struct container_facts *cf) {
        if (!cf->name)
                return NULL;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(cf->name));
        json_object_object_add(o, "found", json_object_new_boolean(cf->error >= 0 && cf->id));
        if (cf->why)
                json_object_object_add(o, "error", json_object_new_string(cf->why));
        if (cf->engine)
                json_object_object_add(o, "engine", json_object_new_string(cf->engine));
        if (cf->id) {
                json_object_object_add(o, "id", json_object_new_string(cf->id));
                json_object_object_add(o, "running", json_object_new_boolean(cf->running));
                json_object_object_add(o, "pid", json_object_new_int(cf->pid));
                json_object_object_add(o, "cpuset_cpus", json_object_new_string(strempty(cf->cpuset_cpus)));
                json_object_object_add(o, "cpuset_mems", json_object_new_string(strempty(cf->cpuset_mems)));
        }
        if (cf->cgroup)
                json_object_object_add(o, "cgroup", json_object_new_string(cf->cgroup));
        return o;
}

static json_object *own_pages_json(const struct page_tally *t, const struct cpuset *planned) {
        uint64_t *own = xmalloc0(NUMA_NODES_MAX * sizeof(*own));
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                own[n] = page_tally_own(t, n);
        json_object *o = json_object_new_object();
        json_object_object_add(o, "by_node", json_by_node(own, NUMA_NODES_MAX));
        json_object_object_add(o, "planned", json_uint64(page_tally_own_on(t, planned)));
        json_object_object_add(o, "total", json_uint64(page_tally_own_sum(t)));
        free(own);
        return o;
}

/* Its locked and pinned pages (core/held-pages.h says what each counts), into `pages`. */
static void held_json(json_object *pages, const struct page_tally *t, const struct cpuset *planned) {
        const struct held_totals *h = &t->held;
        json_object *locked = json_object_new_object(), *pinned = json_object_new_object();
        json_object_object_add(locked, "vm_locked", json_uint64(h->vm_locked));
        json_object_object_add(locked, "by_node", json_by_node(t->locked, NUMA_NODES_MAX));
        json_object_object_add(locked, "total", json_uint64(page_tally_sum(t->locked)));
        json_object_object_add(locked, "planned", json_uint64(page_tally_on(t->locked, planned)));
        json_object_object_add(locked, "mappings_size", json_uint64(h->locked_size));
        json_object_object_add(locked, "beyond_mappings", json_uint64(h->locked_unmapped));
        json_object_object_add(locked, "complete",
                               json_object_new_boolean(!page_tally_unread_of(t, PAGE_SOURCE_STATUS) &&
                                                       !page_tally_unread_of(t, PAGE_SOURCE_SMAPS)));
        json_object_object_add(pages, "locked", locked);
        uint64_t unlisted = h->vm_pinned > h->pinned_listed ? h->vm_pinned - h->pinned_listed : 0;
        json_object_object_add(pinned, "vm_pinned", json_uint64(h->vm_pinned));
        json_object_object_add(pinned, "listed", json_uint64(h->pinned_listed));
        json_object_object_add(pinned, "by_node", json_by_node(t->pin_mapped, NUMA_NODES_MAX));
        json_object_object_add(pinned, "off_plan", json_uint64(h->pinned_off_plan));
        json_object_object_add(pinned, "unlisted", json_uint64(unlisted));
        json_object_object_add(pinned, "complete",
                               json_object_new_boolean(!page_tally_unread_of(t, PAGE_SOURCE_STATUS) &&
                                                       !page_tally_unread_of(t, PAGE_SOURCE_SMAPS) &&
                                                       !page_tally_unread_of(t, PAGE_SOURCE_FDINFO)));
        json_object_object_add(pages, "pinned", pinned);
        json_object *unread = json_object_new_array();
        for (size_t i = 0; i < t->n_unread; i++) {
                json_object *o = json_object_new_object();
                json_object_object_add(o, "path", json_object_new_string(t->unread[i].path));
                json_object_object_add(o, "error", json_object_new_string(t->unread[i].error));
                json_object_object_add(o, "unknown", json_object_new_string(page_source_lost(t->unread[i].source)));
                json_object_array_add(unread, o);
        }
        json_object_object_add(pages, "unread", unread);
}

/* A file of the replica's: its pages, where they are, who else maps it. */
static json_object *file_json(const struct file_pages *f) {
        json_object *o = json_object_new_object(), *by = json_object_new_object(), *units = json_object_new_array();
        json_object_object_add(o, "path", json_object_new_string(f->path));
        json_object_object_add(o, "pages", json_uint64(f->total));
        int node = file_pages_node(f);
        json_object_object_add(o, "node", node >= 0 ? json_object_new_int(node) : NULL);
        for (size_t k = 0; k < f->n_nodes; k++) {
                char key[16];
                snprintf(key, sizeof(key), "%d", f->nodes[k].node);
                json_object_object_add(by, key, json_uint64(f->nodes[k].pages));
        }
        json_object_object_add(o, "by_node", by);
        for (size_t k = 0; f->mapped_by && f->mapped_by[k]; k++)
                json_object_array_add(units, json_object_new_string(f->mapped_by[k]));
        json_object_object_add(o, "mapped_by", units);
        return o;
}

/* Each process that drives one of its accelerators, and where its pages are. */
static json_object *ranks_json(const struct rank_facts *rf) {
        json_object *a = json_object_new_array();
        uint64_t *anon = xmalloc0(NUMA_NODES_MAX * sizeof(*anon));
        for (size_t i = 0; i < rf->n; i++) {
                const struct rank_process *p = &rf->v[i];
                const struct page_tally *t = p->pages;
                json_object *o = json_object_new_object(), *pages = json_object_new_object();
                rank_anonymous(p, anon);
                json_object_object_add(o, "pid", json_object_new_int(p->pid));
                json_object_object_add(o, "comm", json_object_new_string(p->comm));
                json_object_object_add(o, "accelerator", json_object_new_string(p->pci));
                json_object_object_add(o, "rank", json_uint64(p->rank));
                json_object_object_add(o, "node", p->node >= 0 ? json_object_new_int(p->node) : NULL);
                json_object_object_add(pages, "anon", json_by_node(t->anon, NUMA_NODES_MAX));
                json_object_object_add(pages, "huge", json_by_node(t->huge, NUMA_NODES_MAX));
                json_object_object_add(pages, "file", json_by_node(t->file, NUMA_NODES_MAX));
                json_object_object_add(pages, "locked", json_by_node(t->locked, NUMA_NODES_MAX));
                json_object_object_add(pages, "pinned", json_by_node(t->pin_mapped, NUMA_NODES_MAX));
                json_object_object_add(pages, "on_node",
                                       json_uint64(p->node >= 0 && p->node < NUMA_NODES_MAX ? anon[p->node] : 0));
                json_object_object_add(pages, "total", json_uint64(page_tally_sum(anon)));
                json_object_object_add(o, "pages", pages);
                json_object_array_add(a, o);
        }
        free(anon);
        return a;
}

static json_object *report_json(const struct unit_report *reports, size_t n) {
        json_object *o = json_object_new_object(), *units = json_object_new_array();
        bool all = true;

        for (size_t i = 0; i < n; i++) {
                const struct unit_report *u = &reports[i];
                json_object *uo = json_object_new_object(), *checks = json_object_new_array(),
                            *pages = json_object_new_object(), *remote = json_object_new_array(),
                            *shared = json_object_new_array(), *stat = json_object_new_object();
                for (unsigned k = 0; k < N_CHECKS; k++) {
                        json_object *c = json_object_new_object();
                        json_object_object_add(c, "name", json_object_new_string(check_name(k)));
                        json_object_object_add(c, "ok", json_object_new_boolean(u->checks[k].ok));
                        json_object_object_add(c, "want", json_object_new_string(strempty(u->checks[k].want)));
                        json_object_object_add(c, "got", json_object_new_string(strempty(u->checks[k].got)));
                        if (u->checks[k].detail)
                                json_object_object_add(c, "detail", json_object_new_string(u->checks[k].detail));
                        json_object_array_add(checks, c);
                }
                json_object_object_add(pages, "by_node", json_by_node(u->pages.total, NUMA_NODES_MAX));
                json_object_object_add(pages, "planned", json_uint64(page_tally_on(u->pages.total, &u->pl->nodes)));
                json_object_object_add(pages, "total", json_uint64(page_tally_sum(u->pages.total)));
                json_object_object_add(pages, "anon", json_by_node(u->pages.anon, NUMA_NODES_MAX));
                json_object_object_add(pages, "file", json_by_node(u->pages.file, NUMA_NODES_MAX));
                json_object_object_add(pages, "huge", json_by_node(u->pages.huge, NUMA_NODES_MAX));
                json_object_object_add(pages, "page_size_kb", json_uint64(u->pages.base_kb));
                json_object_object_add(pages, "own", own_pages_json(&u->pages, &u->pl->nodes));
                json_object *sh = json_object_new_object();
                json_object_object_add(sh, "by_node", json_by_node(u->pages.shared, NUMA_NODES_MAX));
                json_object_object_add(sh, "total", json_uint64(page_tally_sum(u->pages.shared)));
                json_object_object_add(pages, "shared", sh);
                held_json(pages, &u->pages, &u->pl->nodes);
                for (size_t f = 0; f < u->pages.n_files; f++) {
                        const struct file_pages *fp = &u->pages.files[f];
                        if (fp->shared)
                                json_object_array_add(shared, file_json(fp));
                        else if (file_pages_off_plan(fp)) {
                                json_object *rf = file_json(fp);
                                json_object_object_add(rf, "pages_off_plan", json_uint64(fp->off_plan));
                                json_object_array_add(remote, rf);
                        }
                }
                for (size_t k = 0; k < u->n_numastat; k++) {
                        json_object *d = json_object_new_object();
                        char key[16];
                        snprintf(key, sizeof(key), "%d", u->during[k].node);
                        json_object_object_add(d, "numa_miss", json_uint64(u->during[k].numa_miss));
                        json_object_object_add(d, "numa_foreign", json_uint64(u->during[k].numa_foreign));
                        json_object_object_add(d, "other_node", json_uint64(u->during[k].other_node));
                        json_object_object_add(stat, key, d);
                }
                json_object_object_add(uo, "unit", json_object_new_string(u->pl->unit));
                json_object_object_add(uo, "ok", json_object_new_boolean(u->ok));
                json_object_object_add(uo, "summary", json_object_new_string(u->summary));
                json_object_object_add(uo, "checks", checks);
                json_object_object_add(uo, "pages", pages);
                json_object_object_add(uo, "remote_files", remote);
                json_object_object_add(uo, "shared_files", shared);
                json_object_object_add(uo, "numastat_change", stat);
                json_object_object_add(uo, "processes", processes_json(&u->tasks));
                json_object_object_add(uo, "container", container_json(&u->container));
                json_object_object_add(uo, "ranks", ranks_json(&u->ranks));
                json_object_array_add(units, uo);
                all = all && u->ok;
        }
        json_object_object_add(o, "ok", json_object_new_boolean(all));
        json_object_object_add(o, "units", units);
        return o;
}

static void print_tap(const struct unit_report *reports, size_t n) {
        unsigned k = 0;
        output_printed();
        printf("1..%zu\n", n * N_CHECKS);
        for (size_t i = 0; i < n; i++)
                for (unsigned c = 0; c < N_CHECKS; c++) {
                        const struct check *ch = &reports[i].checks[c];
                        printf("%sok %u - %s: %s\n", ch->ok ? "" : "not ", ++k, reports[i].pl->unit, check_name(c));
                        printf("# want %s, got %s%s%s\n", strempty(ch->want), strempty(ch->got), ch->detail ? ": " : "",
                               strempty(ch->detail));
                }
}

/* "a, b, c and 4 more" */
static char *units_list(char *const *units) {
        struct strbuf b = {0};
        size_t n = 0;
        for (; units && units[n]; n++)
                if (n < 3)
                        strbuf_printf(&b, "%s%s", n ? ", " : "", units[n]);
        if (n > 3)
                strbuf_printf(&b, " and %zu more", n - 3);
        return strbuf_steal(&b);
}

static void print_shared(const struct page_tally *t) {
        static const char *const headers[] = {"shared file", ">pages", ">node", "also mapped by"};
        uint64_t total = page_tally_sum(t->shared);
        char sz[FORMAT_BYTES_MAX];

        if (total == 0)
                return;
        format_bytes(sz, sizeof(sz), total * t->base_kb * 1024);
        printf("  shared program code, not judged: %" PRIu64 " pages (%s) that other units map too\n", total, sz);
        _cleanup_table_ struct table *tb = table_new(headers, ELEMENTSOF(headers));
        for (size_t i = 0; i < t->n_files; i++) {
                const struct file_pages *f = &t->files[i];
                if (!f->shared || f->total == 0)
                        continue;
                _cleanup_free_ char *units = units_list(f->mapped_by);
                table_add(tb, f->path);
                table_addf(tb, "%" PRIu64, f->total);
                table_addf(tb, "%d", file_pages_node(f));
                table_add(tb, units);
        }
        table_print(tb, stdout, "    ");
}

/* "UNIT: pinned as planned: ..." with its verdict in green, "NOT pinned as planned:" in red; the
 * rest wrapped under it. */
static void print_summary(const struct unit_report *u, size_t i) {
        const char *rest = strchr(u->summary, ':');
        size_t n = rest ? (size_t) (rest - u->summary) + 1 : strlen(u->summary);
        _cleanup_free_ char *head = xasprintf("%s%s: %s%.*s%s%s", i ? "\n" : "", u->pl->unit,
                                              color_on(stdout, u->ok ? ANSI_GREEN : ANSI_RED), (int) n, u->summary,
                                              color_off(stdout), rest && rest[1] ? " " : "");
        print_wrapped(stdout, head, strlen(u->pl->unit) + 2 + n + 1, rest && rest[1] ? rest + 2 : "", "  ");
}

static void print_table(const struct unit_report *reports, size_t n) {
        static const char *const headers[] = {"check", "", "want", "got"};

        for (size_t i = 0; i < n; i++) {
                const struct unit_report *u = &reports[i];
                _cleanup_table_ struct table *t = table_new(headers, ELEMENTSOF(headers));
                print_summary(u, i);
                for (unsigned c = 0; c < N_CHECKS; c++) {
                        table_add(t, check_name(c));
                        table_add_colored(t, color_on(stdout, u->checks[c].ok ? ANSI_GREEN : ANSI_RED),
                                          u->checks[c].ok ? "ok" : "FAIL");
                        table_add(t, u->checks[c].want);
                        table_add(t, u->checks[c].got);
                }
                table_print(t, stdout, "  ");
                for (unsigned c = 0; c < N_CHECKS; c++)
                        if (u->checks[c].detail &&
                            (!u->checks[c].ok || c == CHECK_MEMORY_LOCALITY || c == CHECK_IRQ_LOCALITY ||
                             (c == CHECK_RANK_LOCALITY && u->ranks.n)))
                                printf("  %s: %s\n", check_name(c), u->checks[c].detail);
                print_shared(&u->pages);
                _cleanup_free_ char *held = held_report(&u->pages);
                if (held)
                        fputs(held, stdout);
                struct strbuf ns = {0};
                for (size_t k = 0; k < u->n_numastat; k++)
                        strbuf_printf(&ns, "%snode %d +%" PRIu64 "/+%" PRIu64 "/+%" PRIu64, ns.len ? ", " : "",
                                      u->during[k].node, u->during[k].numa_miss, u->during[k].numa_foreign,
                                      u->during[k].other_node);
                if (ns.len)
                        printf("  numa_miss/numa_foreign/other_node during the warm-up: %s\n", ns.s);
                strbuf_done(&ns);
        }
}

/* Each verdict as the unit's journal entry: what failed, and where its pages are. */
static void journal_verdicts(const struct unit_report *reports, size_t n) {
        for (size_t i = 0; journal_enabled() && i < n; i++) {
                const struct unit_report *u = &reports[i];
                struct strbuf failed = {0};
                for (unsigned c = 0; c < N_CHECKS; c++)
                        if (!u->checks[c].ok)
                                strbuf_printf(&failed, "%s%s", failed.len ? "," : "", check_name(c));
                _cleanup_free_ char *nodes = cpuset_format(&u->pl->nodes), *cpus = cpuset_format(&u->pl->cpus);
                char *fields[] = {
                        xasprintf("NUMAPLAN_NODES=%s", nodes),
                        xasprintf("NUMAPLAN_CPUS=%s", cpus),
                        xasprintf("NUMAPLAN_PAGES=%" PRIu64, page_tally_sum(u->pages.total)),
                        xasprintf("NUMAPLAN_PAGES_ON_PLAN=%" PRIu64, page_tally_on(u->pages.total, &u->pl->nodes)),
                        failed.len ? xasprintf("NUMAPLAN_FAILED_CHECKS=%s", failed.s) : NULL,
                        NULL,
                };
                journal_event(JOURNAL_VERIFY, u->ok ? LOG_INFO : LOG_WARNING, u->pl->unit, u->ok ? "ok" : "failed",
                              fields, "%s: %s", u->pl->unit, u->summary);
                for (size_t k = 0; k < ELEMENTSOF(fields); k++)
                        free(fields[k]);
                strbuf_done(&failed);
        }
}

/* --metrics FILE: the verdict (exit 0 or 1), else the run alone. A file that cannot be written
 * is an environment problem (exit 3). */
/* When the run started: the clock's time for the metrics' timestamp, the monotonic one for its
 * duration. */
struct run_start {
        double realtime_s, monotonic_s;
};

static int write_metrics(const char *path, const struct inputs *in, const struct unit_report *reports, size_t n,
                         const struct run_start *start, int r) {
        bool success = r == EXIT_OK || r == EXIT_FAILED;
        struct metrics_unit *units = xmalloc0((n + 1) * sizeof(*units));
        struct metrics_run run = {.success = success,
                                  .timestamp_s = start->realtime_s,
                                  .duration_s = now_monotonic_s() - start->monotonic_s,
                                  .host = in ? in->topology : NULL,
                                  .warnings = in ? &in->warnings : NULL};

        for (size_t i = 0; success && i < n; i++)
                units[i] = (struct metrics_unit){
                        .unit = reports[i].pl->unit,
                        .ok = reports[i].ok,
                        .checks = reports[i].checks,
                        .pages = &reports[i].pages,
                        .nodes = &reports[i].pl->nodes,
                        .cpus = &reports[i].pl->cpus,
                        .min_local_bp = reports[i].pl->min_local_bp,
                        .ranks = &reports[i].ranks,
                };
        if (metrics_write_file(path, &run, units, success ? n : 0) < 0)
                r = EXIT_ENV;
        free(units);
        return r;
}

/* ---- the verb ---- */

struct verify_args {
        const char *config, *metrics;
        bool no_warmup, json, tap;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct verify_args),
        VERB_FLAG("no-warmup", 0, struct verify_args, no_warmup, "do not send the warm-up request"),
        VERB_FLAG("json", 0, struct verify_args, json, "one JSON document on stdout (numaplan(8) lists its keys)"),
        VERB_FLAG("tap", 0, struct verify_args, tap, "one TAP test point per check, for CI pipelines"),
        VERB_VALUE("metrics", 0, struct verify_args, metrics, "FILE",
                   "also write the verdict for Prometheus (node_exporter's textfile\n"
                   "collector) to FILE, replaced atomically"),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct verify_args *a = args;
        bool no_warmup = a->no_warmup, json = a->json, tap = a->tap;
        _cleanup_inputs_ struct inputs in = {0};
        struct run_start start = {now_realtime_s(), now_monotonic_s()};
        int r;

        if (json && tap)
                return verb_usage_error("verify", "--json and --tap exclude each other");
        /* The interrupts of every replica's devices: judged with irq-affinity, reported without. */
        r = inputs_load(g, a->config, false, INPUTS_DEVICES | INPUTS_IRQS, &in);
        if (r != EXIT_OK)
                return a->metrics ? write_metrics(a->metrics, NULL, NULL, 0, &start, r) : r;
        inputs_journal(&in, in.live);
        if (a->metrics)
                inputs_read_tuning(&in); /* the links, the governor and the audit's warnings */

        _cleanup_free_ const struct placement **sel = NULL;
        struct unit_report *reports = NULL;
        size_t n = 0;
        r = inputs_select(&in, argc, argv, &sel, &n);
        if (r == EXIT_OK)
                r = verify_units(&in, sel, n, &(struct verify_options){.no_warmup = no_warmup}, &reports);
        else
                n = 0;

        if (r == EXIT_OK) {
                bool all = true;
                for (size_t i = 0; i < n; i++)
                        all = all && reports[i].ok;
                if (json) {
                        _cleanup_json_ json_object *o = report_json(reports, n);
                        json_print(o);
                } else if (tap)
                        print_tap(reports, n);
                else if (n == 0)
                        printf("no replicas to verify\n");
                else
                        print_table(reports, n);
                journal_verdicts(reports, n);
                r = all ? EXIT_OK : EXIT_FAILED;
        }
        if (a->metrics)
                r = write_metrics(a->metrics, &in, reports, n, &start, r);

        unit_reports_free(reports, n);
        return r;
}

const struct verb verb_verify = {
        .name = "verify",
        .rank = 40,
        .pages = true,
        .summary = "prove each replica is pinned as planned",
        .options = options,
        .args_size = sizeof(struct verify_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan verify [-c FILE] [UNIT...] [--no-warmup] [--json | --tap] [--metrics FILE]",
        .description = "Check that each replica (all, or the named units) runs as planned: systemd's view over\n"
                       "D-Bus (NUMAPolicy, NUMAMask, CPU affinity, effective CPUs and memory nodes, drop-ins),\n"
                       "the server's processes (the unit's cgroup and those below it, or the container that\n"
                       "container = names) and their allowed CPUs and nodes, a warm-up request, and the share\n"
                       "of its own resident pages on its planned nodes (program code that other units map too\n"
                       "is shown apart, not judged). Exit 0 when every check passes, 1 otherwise.",
};
