/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/irqs.h"
#include "core/placement.h"
#include "host/cgroup.h"
#include "host/file-mappers.h"
#include "host/host-facts.h"
#include "host/numastat.h"
#include "host/rank-read.h"
#include "host/server.h"
#include "host/tasks.h"
#include "host/warmup.h"
#include "stage/verify-units.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"
#include "systemd/dropin-seen.h"
#include "systemd/systemd-dl.h"
#include "systemd/unit-state.h"

static void gather_dropin(const struct inputs *in, const struct placement *pl, const struct unit_state *s,
                          const char *journal, struct dropin_facts *d, char **path_buf) {
        _cleanup_free_ char *content = NULL, *want = dropin_render(in->topology, in->config, in->plan, pl, &in->env);
        struct strbuf over = {0};
        struct dropin_seen seen;
        struct stat st;

        *path_buf = dropin_path(in->unit_dir, pl->unit);
        *d = (struct dropin_facts){.path = *path_buf, .journal = journal};
        dropin_seen(s->dropin_paths, d->path, &seen);
        /* systemd applies drop-ins in this order: a later one that sets our keys wins. */
        for (size_t i = (size_t) (seen.index + 1); seen.index >= 0 && s->dropin_paths[i]; i++) {
                const char *p = s->dropin_paths[i];
                _cleanup_free_ char *text = NULL, *keys = NULL;
                if (read_file(p, &text) >= 0 && (keys = dropin_settings(text)))
                        strbuf_printf(&over, "%s%s sets %s", over.len ? "; " : "", p, keys);
        }
        d->loaded = seen.index >= 0;
        d->instead = seen.instead;
        d->overridden_by = over.len ? strbuf_steal(&over) : NULL;
        d->matches_plan = read_file(d->path, &content) >= 0 && streq(content, want);
        if (stat(d->path, &st) >= 0)
                d->mtime = (double) st.st_mtim.tv_sec + (double) st.st_mtim.tv_nsec / 1e9;
}

static void add_tasks(struct root *root, struct task_facts *tf) {
        for (size_t i = 0; i < tf->n_processes; i++) {
                struct task *t;
                size_t n;
                if (process_tasks(root, tf->processes[i].pid, &t, &n, &tf->unread) < 0)
                        continue;
                tf->tasks = xrealloc(tf->tasks, (tf->n_tasks + n + 1) * sizeof(*tf->tasks));
                memcpy(tf->tasks + tf->n_tasks, t, n * sizeof(*t));
                tf->n_tasks += n;
                free(t);
        }
}

static void gather_tasks(struct root *root, const char *mount, const struct unit_state *s, const struct placement *pl,
                         struct task_facts *tf, struct container_facts *cf) {
        server_processes(root, mount, s->control_group, pl, tf, cf);
        add_tasks(root, tf);
}

static void gather_pages(struct root *root, const struct task_facts *tf, const struct placement *pl,
                         struct page_tally *pages) {
        page_tally_init(pages, host_page_size(root) / 1024);
        for (size_t i = 0, k = 0; i < tf->n_processes; i++) {
                (void) process_pages(root, tf->processes[i].pid, &pl->nodes, pages);
                for (; k < pages->n_unread; k++) /* memory-locality fails, saying the same */
                        log_warning("%s: %s: %s unknown", pages->unread[k].path, pages->unread[k].error,
                                    page_source_lost(pages->unread[k].source));
        }
}

static int memory_node_ids(const struct topology *t, int **ret, struct cpuset *ret_set) {
        int *ids = xmalloc0((t->n_nodes + 1) * sizeof(int));
        int n = 0;
        cpuset_clear(ret_set);
        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].mem_total > 0) {
                        ids[n++] = t->nodes[i].id;
                        cpuset_set(ret_set, (unsigned) t->nodes[i].id);
                }
        *ret = ids;
        return n;
}

static void summarize(struct unit_report *u) {
        u->ok = true;
        for (unsigned i = 0; i < N_CHECKS; i++)
                u->ok = u->ok && u->checks[i].ok;
        if (u->ok) {
                _cleanup_free_ char *nodes = cpuset_format(&u->pl->nodes), *cpus = cpuset_format(&u->pl->cpus);
                u->summary = xasprintf("pinned as planned: %s of its pages on node%s %s, every task on CPUs %s",
                                       u->checks[CHECK_MEMORY_LOCALITY].got, cpuset_count(&u->pl->nodes) > 1 ? "s" : "",
                                       nodes, cpus);
                return;
        }
        for (unsigned i = 0; i < N_CHECKS; i++)
                if (!u->checks[i].ok) {
                        const struct check *c = &u->checks[i];
                        u->summary = xasprintf("NOT pinned as planned: %s: %s", check_name(i),
                                               c->detail ? c->detail : c->got);
                        return;
                }
}

/* What the unit is and does, up to where its pages are; judged with the other units' pages in
 * judge_pages(). */
/* What every unit's facts are gathered with. */
struct verify_context {
        const struct inputs *in;
        const struct verify_options *o;
        struct irq_targets targets;
        sd_bus *bus;
        char *mount; /* cgroup2's */
        struct cpuset memory_nodes;
        int *mem_ids; /* the nodes with memory, for numastat */
        size_t n_mem;
};

static int verify_unit(const struct verify_context *c, struct unit_report *u) {
        const struct inputs *in = c->in;
        const struct placement *pl = u->pl;
        struct unit_state s;
        struct dropin_facts d;
        struct task_facts *tf = &u->tasks;
        _cleanup_free_ char *dpath = NULL;

        int ret = unit_state_read(c->bus, pl->unit, &s);
        if (ret < 0)
                return ret;
        _cleanup_free_ char *journal =
                changeset_interrupted(in->unit_dir) ? xasprintf("%s/" CHANGESET_JOURNAL, in->unit_dir) : NULL;
        gather_dropin(in, pl, &s, journal, &d, &dpath);
        gather_tasks(in->root, c->mount, &s, pl, tf, &u->container);

        struct verify_facts f = {.unit = pl->unit,
                                 .pl = pl,
                                 .state = &s,
                                 .memory_nodes = &c->memory_nodes,
                                 .dropin = &d,
                                 .container = &u->container,
                                 .tasks = tf,
                                 .topology = in->topology,
                                 .irqs = &c->targets};
        checks_run(CHECK_PHASE_UNIT, &f, u->checks);

        /* The warm-up makes the server touch its memory; the pages are counted after it. */
        _cleanup_free_ struct numastat *before = NULL;
        read_numastat(in->root, c->mem_ids, c->n_mem, &before);
        struct warmup_result w = {0};
        if (c->o->no_warmup)
                f.warmup_skipped = "--no-warmup";
        else if (!pl->warmup_url)
                f.warmup_skipped = "no warmup-url configured";
        else if (tf->n_processes == 0)
                w.detail = xstrdup("not sent: the unit runs no process");
        else if (warmup_run(pl->warmup_url, pl->warmup_body, pl->warmup_timeout_ms, &w) < 0)
                w.detail = xstrdup("libcurl is not available");
        if (!f.warmup_skipped) {
                f.warmup = &w;
                f.warmup_url = pl->warmup_url;
        }
        checks_run(CHECK_PHASE_WARMUP, &f, u->checks);
        free(w.detail);
        read_numastat(in->root, c->mem_ids, c->n_mem, &u->during);
        for (size_t k = 0; k < c->n_mem; k++) {
                u->during[k].numa_miss -= before[k].numa_miss;
                u->during[k].numa_foreign -= before[k].numa_foreign;
                u->during[k].other_node -= before[k].other_node;
        }
        u->n_numastat = c->n_mem;

        gather_pages(in->root, tf, pl, &u->pages);
        rank_processes(in->root, in->topology, pl, tf, u->pages.base_kb, &u->ranks);
        free(d.overridden_by);
        unit_state_done(&s);
        return 0;
}

/* Every unit's pages split into its own and the program code it shares, from their processes'
 * mappings and, only while that is not enough, the host's other processes', then judged. */
static void judge_pages(const struct inputs *in, struct unit_report *reports, size_t n) {
        struct replica_pages *v = xmalloc0((n + 1) * sizeof(*v));
        for (size_t i = 0; i < n; i++)
                v[i] = (struct replica_pages){
                        .pages = &reports[i].pages,
                        .processes = reports[i].tasks.processes,
                        .n_processes = reports[i].tasks.n_processes,
                        .models = reports[i].pl->conf->models,
                };
        /* Every replica of the plan verified: the one that may hold an off-plan file's page cache
         * is among them. */
        if (n && replica_pages_split_lazily(in->root, v, n, n == in->plan->n_replicas) < 0)
                log_warning("cannot list the host's processes: every page counts as the replica's own");
        free(v);
        for (size_t i = 0; i < n; i++) {
                struct unit_report *u = &reports[i];
                struct verify_facts f = {.unit = u->pl->unit,
                                         .pl = u->pl,
                                         .plan = in->plan,
                                         .topology = in->topology,
                                         .tasks = &u->tasks,
                                         .pages = &u->pages,
                                         .ranks = &u->ranks,
                                         .models_dir = in->state.models};
                checks_run(CHECK_PHASE_PAGES, &f, u->checks);
                summarize(u);
        }
}

static void unit_report_done(struct unit_report *u) {
        for (unsigned k = 0; k < N_CHECKS; k++)
                check_done(&u->checks[k]);
        page_tally_done(&u->pages);
        rank_facts_done(&u->ranks);
        free(u->during);
        free(u->summary);
        container_facts_done(&u->container);
        free(u->tasks.processes);
        strv_free(u->tasks.cgroups);
        free(u->tasks.tasks);
        strv_free(u->tasks.unread);
}

static int preflight(sd_bus *bus, struct root *root, char **ret_mount) {
        enum cgroup_mode mode;

        if (bus_check_version(bus) < 0)
                return -EOPNOTSUPP;
        cgroup_detect(root, &mode, ret_mount);
        if (mode == CGROUP_LEGACY || mode == CGROUP_UNIFIED_NO_CPUSET)
                log_warning("no cgroup v2 cpuset controller: AllowedCPUs= and AllowedMemoryNodes= are not enforced");
        return 0;
}

void unit_reports_free(struct unit_report *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                unit_report_done(&v[i]);
        free(v);
}

int verify_units(const struct inputs *in, const struct placement *const *sel, size_t n, const struct verify_options *o,
                 struct unit_report **ret) {
        struct verify_context c = {.in = in, .o = o};
        struct unit_report *v = xmalloc0((n + 1) * sizeof(*v));
        int r = EXIT_OK;

        for (size_t i = 0; i < n; i++)
                v[i].pl = sel[i];
        c.n_mem = (size_t) memory_node_ids(in->topology, &c.mem_ids, &c.memory_nodes);
        irq_targets_for_plan(in->topology, in->plan, &c.targets);
        if (bus_connect(&c.bus) < 0 || preflight(c.bus, in->root, &c.mount) < 0)
                r = EXIT_ENV;
        for (size_t i = 0; r == EXIT_OK && i < n; i++)
                if (verify_unit(&c, &v[i]) < 0)
                        r = EXIT_ENV;
        if (r == EXIT_OK)
                judge_pages(in, v, n);
        bus_unrefp(&c.bus);
        free(c.mount);
        free(c.mem_ids);
        irq_targets_done(&c.targets);
        *ret = v;
        return r;
}
