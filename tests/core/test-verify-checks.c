/* SPDX-License-Identifier: MIT */
/* verify's checks without systemd: each check's pass and fail on observed states, and drop-in
 * override detection. The readers are tests/host's; the end-to-end proof with a real systemd is
 * the VM tier's. */

#include "tap.h"
#include "tmproot.h"
#include "basic/util.h"
#include "core/irqs.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"
#include "core/verify-checks.h"

/* Each check as the table runs it, given the facts it looks at. */
static void run_unit_active(const struct unit_state *s, const char *unit, struct check *c) {
        check_unit_active(&(struct verify_facts){.state = s, .unit = unit}, c);
}
static void run_numa_policy(const struct unit_state *s, const struct placement *pl, struct check *c) {
        check_numa_policy(&(struct verify_facts){.state = s, .pl = pl}, c);
}
static void run_numa_mask(const struct unit_state *s, const struct placement *pl, struct check *c) {
        check_numa_mask(&(struct verify_facts){.state = s, .pl = pl}, c);
}
static void run_cpu_affinity(const struct unit_state *s, const struct placement *pl, struct check *c) {
        check_cpu_affinity(&(struct verify_facts){.state = s, .pl = pl}, c);
}
static void run_effective_cpus(const struct unit_state *s, const struct placement *pl, struct check *c) {
        check_effective_cpus(&(struct verify_facts){.state = s, .pl = pl}, c);
}
static void run_effective_memory_nodes(const struct unit_state *s, const struct placement *pl, const struct cpuset *all,
                                       struct check *c) {
        check_effective_memory_nodes(&(struct verify_facts){.state = s, .pl = pl, .memory_nodes = all}, c);
}
static void run_dropin(const struct dropin_facts *d, struct check *c) {
        check_dropin(&(struct verify_facts){.dropin = d}, c);
}
static void run_container(const struct placement *pl, const struct container_facts *cf, struct check *c) {
        check_container(&(struct verify_facts){.pl = pl, .container = cf}, c);
}
static void run_task_affinity(const struct unit_state *s, const struct placement *pl, const struct task_facts *tf,
                              const struct dropin_facts *d, struct check *c) {
        check_task_affinity(&(struct verify_facts){.state = s, .pl = pl, .tasks = tf, .dropin = d}, c);
}
static void run_warmup(const struct warmup_result *w, const char *url, const char *why, struct check *c) {
        check_warmup(&(struct verify_facts){.warmup = w, .warmup_url = url, .warmup_skipped = why}, c);
}
static void run_memory_locality(const struct page_tally *pages, const struct placement *pl, const struct plan *plan,
                                const char *models_dir, const struct task_facts *tf, struct check *c) {
        check_memory_locality(
                &(struct verify_facts){.pages = pages, .pl = pl, .plan = plan, .models_dir = models_dir, .tasks = tf},
                c);
}
static void run_hugepages(const struct topology *t, const struct page_tally *pages, const struct placement *pl,
                          struct check *c) {
        check_hugepages(&(struct verify_facts){.topology = t, .pages = pages, .pl = pl}, c);
}

static struct cpuset set(const char *list) {
        struct cpuset s;
        cpuset_parse_list(list, &s);
        return s;
}

static struct placement bound_to_node1(void) {
        static struct replica_conf conf = {.name = (char *) "llama-0"};
        return (struct placement){
                .name = (char *) "llama-0",
                .unit = (char *) "llama-server@0.service",
                .conf = &conf,
                .nodes = set("1"),
                .policy = POLICY_BIND,
                .cpus = set("8-15,24-31"),
                .cpu_affinity_numa = true,
        };
}

static struct unit_state running_as_planned(void) {
        return (struct unit_state){
                .load_state = (char *) "loaded",
                .active_state = (char *) "active",
                .sub_state = (char *) "running",
                .control_group = (char *) "/system.slice/system-llama\\x2dserver.slice/llama-server@0.service",
                .numa_policy = 2,
                .numa_mask = set("1"),
                .cpu_affinity = set("8-15,24-31"),
                .cpu_affinity_from_numa = true,
                .effective_cpus = set("8-15,24-31"),
                .effective_mems = set("1"),
        };
}

#define CHECK(fn, expect_ok, what, ...) \
        do { \
                struct check c_ = {0}; \
                fn(__VA_ARGS__, &c_); \
                if (!ok(c_.ok == (expect_ok), "%s", what)) \
                        printf("#   want %s, got %s: %s\n", c_.want, c_.got, strempty(c_.detail)); \
                check_done(&c_); \
        } while (0)

static void systemd_view(void) {
        struct placement pl = bound_to_node1();
        struct unit_state s = running_as_planned();
        struct cpuset all = set("0-1");

        CHECK(run_unit_active, true, "unit-active passes for a running unit", &s, pl.unit);
        CHECK(run_numa_policy, true, "numa-policy passes for bind", &s, &pl);
        CHECK(run_numa_mask, true, "numa-mask passes", &s, &pl);
        CHECK(run_cpu_affinity, true, "cpu-affinity passes with CPUAffinity=numa", &s, &pl);
        CHECK(run_effective_cpus, true, "effective-cpus passes", &s, &pl);
        CHECK(run_effective_memory_nodes, true, "effective-memory-nodes passes", &s, &pl, &all);

        struct unit_state bad = s;
        bad.active_state = (char *) "inactive";
        bad.sub_state = (char *) "dead";
        bad.effective_cpus = set("");
        bad.effective_mems = set("");
        CHECK(run_unit_active, false, "unit-active fails for an inactive unit", &bad, pl.unit);
        struct check c = {0};
        run_effective_cpus(&bad, &pl, &c);
        ok(!c.ok && c.detail && strstr(c.detail, "only while it runs"),
           "an inactive unit's empty EffectiveCPUs says why");
        check_done(&c);
        run_effective_memory_nodes(&bad, &pl, &all, &c);
        ok(!c.ok && c.detail && strstr(c.detail, "only while it runs"), "and its EffectiveMemoryNodes too");
        check_done(&c);
        bad.load_state = (char *) "not-found";
        run_unit_active(&bad, pl.unit, &c);
        ok(!c.ok && streq(c.got, "not-found") && strstr(c.detail, "cannot load"), "a missing unit is named as such");
        check_done(&c);

        bad = s;
        bad.numa_policy = 3;
        run_numa_policy(&bad, &pl, &c);
        ok(!c.ok && streq(c.got, "interleave") && streq(c.want, "bind"),
           "numa-policy fails for interleave instead of bind");
        check_done(&c);
        bad.numa_policy = -1;
        run_numa_policy(&bad, &pl, &c);
        ok(!c.ok && streq(c.got, "unset") && strstr(c.detail, "not loaded"),
           "an unset NUMAPolicy says the drop-in is not loaded");
        check_done(&c);
        bad = s;
        bad.numa_mask = set("0-1");
        CHECK(run_numa_mask, false, "numa-mask fails for another mask", &bad, &pl);
        bad = s;
        bad.cpu_affinity_from_numa = false;
        bad.cpu_affinity = set("");
        CHECK(run_cpu_affinity, false, "cpu-affinity fails without CPUAffinity=numa", &bad, &pl);
        pl.cpu_affinity_numa = false;
        bad.cpu_affinity = set("8-15,24-31");
        CHECK(run_cpu_affinity, true, "an explicit CPUAffinity= list passes when equal", &bad, &pl);
        bad.cpu_affinity = set("0-31");
        CHECK(run_cpu_affinity, false, "and fails when not", &bad, &pl);
        pl.cpu_affinity_numa = true;
        bad = s;
        bad.effective_cpus = set("0-31");
        CHECK(run_effective_cpus, false, "effective-cpus fails when wider than planned", &bad, &pl);
        bad.effective_mems = set("0-1");
        CHECK(run_effective_memory_nodes, false, "effective-memory-nodes fails when wider", &bad, &pl, &all);
        pl.policy = POLICY_PREFERRED;
        CHECK(run_effective_memory_nodes, true, "preferred: every memory node is expected", &bad, &pl, &all);
}

static void dropins(void) {
        struct dropin_facts d = {
                .path = "/etc/systemd/system/x.service.d/50-numaplan.conf", .loaded = true, .matches_plan = true};
        struct check c = {0};

        run_dropin(&d, &c);
        ok(c.ok, "dropin-in-effect passes when loaded, current, not overridden");
        check_done(&c);
        d.overridden_by = (char *) "/etc/systemd/system/x.service.d/60-local.conf sets NUMAPolicy=";
        run_dropin(&d, &c);
        ok(!c.ok && strstr(c.detail, "60-local.conf sets NUMAPolicy="), "a later drop-in is named by path");
        check_done(&c);
        d.overridden_by = NULL;
        d.loaded = false;
        run_dropin(&d, &c);
        ok(!c.ok && strstr(c.detail, "numaplan apply"), "a drop-in systemd has not loaded says to apply");
        check_done(&c);
        d.instead = "/etc/systemd/system/x.service.d/50-numaplan.conf";
        d.path = "/run/systemd/system/x.service.d/50-numaplan.conf";
        run_dropin(&d, &c);
        ok(!c.ok && streq(c.got, "masked") &&
                   strstr(c.detail, "systemd loads /etc/systemd/system/x.service.d/50-numaplan.conf instead"),
           "one of the same name that systemd loads instead masks it, named");
        check_done(&c);
        d.instead = NULL;
        d.loaded = true;
        d.matches_plan = false;
        run_dropin(&d, &c);
        ok(!c.ok && streq(c.got, "stale"), "a drop-in that differs from the plan is stale");
        check_done(&c);
        d.matches_plan = true;
        d.journal = "/etc/systemd/system/.numaplan-journal";
        run_dropin(&d, &c);
        ok(!c.ok && streq(c.got, "apply interrupted") && strstr(c.detail, "run numaplan apply to finish it"),
           "an interrupted apply fails the check, saying how to finish it");
        check_done(&c);

        _cleanup_free_ char *a = dropin_settings("[Service]\nNUMAPolicy=default\nCPUAffinity = 0-63\nNice=5\n");
        is_str(a, "NUMAPolicy=, CPUAffinity=", "the settings a drop-in overrides");
        _cleanup_free_ char *b = dropin_settings("[Service]\nEnvironment=X=1\nNUMAPolicyX=1\n");
        ok(b == NULL, "other settings are not overrides");
        _cleanup_free_ char *e = dropin_settings("[Service]\nAllowedCPUs=\n");
        is_str(e, "AllowedCPUs=", "an empty assignment (a reset) is an override too");
}

static void task_checks(void) {
        struct process procs[] = {
                {.pid = 100, .comm = "llama (main)", .start = 1700000010.0},
                {.pid = 200, .comm = "worker", .start = 1700000050.0},
        };
        struct task tasks[] = {
                {.pid = 100, .tid = 100, .comm = "llama", .cpus = set("8-15,24-31"), .mems = set("1")},
                {.pid = 100, .tid = 101, .comm = "llama-io", .cpus = set("0-31"), .mems = set("0-1")},
                {.pid = 200, .tid = 200, .comm = "worker", .cpus = set("8-15"), .mems = set("1")},
        };
        struct task_facts tf = {.processes = procs, .n_processes = 2, .tasks = tasks, .n_tasks = 3, .readable = true};
        struct placement pl = bound_to_node1();
        struct unit_state s = running_as_planned();
        struct dropin_facts df = {.path = "x", .loaded = true, .matches_plan = true, .mtime = 1699999000.0};
        struct check c = {0};

        run_task_affinity(&s, &pl, &tf, &df, &c);
        ok(!c.ok && strstr(c.got, "1 of 3 threads outside") && strstr(c.detail, "pid 100 (llama-io) thread 101") &&
                   strstr(c.detail, "restart the unit (systemctl restart llama-server@0.service)"),
           "a thread allowed every CPU fails task-affinity, named with its pid and tid");
        check_done(&c);

        tasks[1].cpus = set("9");
        tasks[1].mems = set("1");
        run_task_affinity(&s, &pl, &tf, &df, &c);
        ok(c.ok && strstr(c.got, "2 processes, 3 threads within"), "every thread within: passes");
        check_done(&c);

        df.mtime = 1700000000.0 + 30; /* the drop-in was written after process 100 started */
        run_task_affinity(&s, &pl, &tf, &df, &c);
        ok(!c.ok && strstr(c.detail, "pid 100 (llama (main)) started") && strstr(c.detail, "restart the unit"),
           "a process older than the drop-in is named, with restart the unit");
        check_done(&c);

        struct task_facts none = {.readable = true};
        run_task_affinity(&s, &pl, &none, &df, &c);
        ok(!c.ok && streq(c.got, "no processes"), "no process: task-affinity cannot pass");
        check_done(&c);
        struct task_facts unreadable = {0};
        run_task_affinity(&s, &pl, &unreadable, &df, &c);
        ok(!c.ok && strstr(c.detail, "cannot list the processes"), "an unreadable cgroup cannot pass");
        check_done(&c);

        char *unread[] = {(char *) "/proc/100/task/102/status: Permission denied", NULL};
        df.mtime = 0;
        tf.unread = unread;
        run_task_affinity(&s, &pl, &tf, &df, &c);
        ok(!c.ok && strstr(c.got, "3 threads within, 1 unknown") &&
                   strstr(c.detail, "cannot read /proc/100/task/102/status: Permission denied: where that thread may "
                                    "run is unknown"),
           "a thread that cannot be read fails task-affinity, named with why, not left out");
        check_done(&c);
}

static void warmup_and_locality(void) {
        struct placement pl = bound_to_node1();
        struct check c = {0};
        struct warmup_result w = {.ok = true, .status = 200, .detail = (char *) "HTTP 200 after 0.1 s (1 try)"};

        run_warmup(&w, "http://127.0.0.1:8080/completion", NULL, &c);
        ok(c.ok && streq(c.got, "HTTP 200"), "warmup passes on 200");
        check_done(&c);
        w = (struct warmup_result){.ok = false, .status = 500, .detail = (char *) "HTTP 500"};
        run_warmup(&w, "http://127.0.0.1:8080/completion", NULL, &c);
        ok(!c.ok && streq(c.got, "HTTP 500"), "warmup fails on 500");
        check_done(&c);
        run_warmup(NULL, NULL, "--no-warmup", &c);
        ok(c.ok && streq(c.got, "skipped") && streq(c.detail, "--no-warmup"), "a skipped warm-up says why");
        check_done(&c);

        struct page_tally t;
        struct task_facts tf = {.n_processes = 1};
        page_tally_init(&t, 4);
        page_tally_add(&t,
                       "7f00 bind:1 anon=990 N1=990 kernelpagesize_kB=4\n7f01 bind:1 file=/m mapped=10 N0=10 "
                       "kernelpagesize_kB=4\n",
                       NULL, &pl.nodes);
        pl.min_local_bp = 9500;
        run_memory_locality(&t, &pl, NULL, NULL, &tf, &c);
        ok(c.ok && streq(c.got, "99.0%") && streq(c.want, ">= 95%"), "99.0%% local passes min-local 95%%");
        check_done(&c);
        pl.min_local_bp = 9950;
        run_memory_locality(&t, &pl, NULL, NULL, &tf, &c);
        ok(!c.ok && strstr(c.detail, "/m has 10 of its 10 pages off the plan") &&
                   strstr(c.detail, "numaplan migrate llama-server@0.service moves it now"),
           "below min-local fails, naming the file cached on the wrong node and the command that moves it");
        check_done(&c);
        page_tally_done(&t);
        page_tally_init(&t, 4);
        page_tally_add(
                &t,
                "7f00 bind:1 anon=900 N0=900 kernelpagesize_kB=4\n7f01 bind:1 anon=100 N1=100 kernelpagesize_kB=4\n",
                NULL, &pl.nodes);
        pl.min_local_bp = 9000;
        run_memory_locality(&t, &pl, NULL, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "10.0%") &&
                   strstr(c.detail, "numaplan migrate llama-server@0.service moves what is off"),
           "anonymous memory off the plan: the advice is numaplan migrate");
        check_done(&c);
        page_tally_done(&t);
        page_tally_init(&t, 4);
        pl.min_local_bp = 9500;
        run_memory_locality(&t, &pl, NULL, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "no pages"), "no resident pages cannot pass");
        check_done(&c);
        page_tally_add_unread(&t, PAGE_SOURCE_NUMA_MAPS, xstrdup("/proc/7/numa_maps"), xstrdup("Permission denied"));
        run_memory_locality(&t, &pl, NULL, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "unknown") &&
                   streq(c.detail,
                         "cannot be judged: /proc/7/numa_maps: Permission denied (where its pages are unknown)"),
           "a numa_maps that cannot be read: unknown, not no pages");
        check_done(&c);
        page_tally_done(&t);

        /* 99% local, but a process's smaps could not be read: its locked pages' nodes are unknown. */
        page_tally_init(&t, 4);
        page_tally_add(
                &t, "7f00 bind:1 anon=990 N1=990 kernelpagesize_kB=4\n7f01 bind:1 anon=10 N0=10 kernelpagesize_kB=4\n",
                NULL, &pl.nodes);
        t.held.vm_locked = 50000;
        page_tally_add_unread(&t, PAGE_SOURCE_SMAPS, xstrdup("/proc/7/smaps"), xstrdup("Permission denied"));
        run_memory_locality(&t, &pl, NULL, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "99.0%") &&
                   strstr(c.detail, "cannot be judged: /proc/7/smaps: Permission denied (which mappings are locked") &&
                   strstr(c.detail, "; of what was read: 990 of its own 1000 pages"),
           "an smaps that cannot be read fails memory-locality, saying why, with the share of what was read");
        check_done(&c);
        _cleanup_free_ char *held = held_report(&t);
        ok(held && strstr(held, "locked: 50000 pages (195.3 MiB, VmLck); its locked mappings' resident pages: unknown, "
                                "/proc/7/smaps: Permission denied\n"),
           "the locked line says unknown, and why, not none resident");
        if (held)
                printf("#   %s", held);
        page_tally_done(&t);
}

/* Two nodes; node 1 has a pool of 2 MiB pages holding `pool` pages. */
/* Two replicas side by side, one per node, the same engine: llama-1 (node 1) is judged on its own
 * pages; the engine's binary that llama-0 read first sits on node 0. */
static void side_by_side(void) {
        static struct replica_conf conf0 = {.name = (char *) "llama-0"}, conf1 = {.name = (char *) "llama-1"};
        struct placement replicas[2] = {
                {.name = (char *) "llama-0", .unit = (char *) "llama@0.service", .conf = &conf0, .nodes = set("0")},
                {.name = (char *) "llama-1",
                 .unit = (char *) "llama@1.service",
                 .conf = &conf1,
                 .nodes = set("1"),
                 .min_local_bp = 9900},
        };
        struct plan plan = {.replicas = replicas, .n_replicas = 2};
        struct task_facts tf = {.n_processes = 1};
        struct check c = {0};
        struct page_tally t;
        static const char numa_maps[] = "1000 bind:1 file=/opt/engine/node mapped=9842 N0=9842 kernelpagesize_kB=4\n"
                                        "2000 bind:1 anon=7782 N1=7782 kernelpagesize_kB=4\n"
                                        "3000 bind:1 file=/srv/m1.gguf mapped=3166 N1=3166 kernelpagesize_kB=4\n";
        static const char maps[] = "1000-2000 r-xp 00000000 fe:01 7 /opt/engine/node\n"
                                   "3000-4000 r--s 00000000 fe:01 8 /srv/m1.gguf\n";
        char **engine_mappers = xmalloc0(2 * sizeof(char *));
        engine_mappers[0] = xstrdup("llama@0.service");

        page_tally_init(&t, 4);
        page_tally_add(&t, numa_maps, maps, &replicas[1].nodes);
        run_memory_locality(&t, &replicas[1], &plan, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "52.6%"), "counting the binary another replica read first, it would fail: %s", c.got);
        check_done(&c);

        char **mapped_by[] = {engine_mappers, NULL};
        page_tally_split(&t, mapped_by, NULL);
        run_memory_locality(&t, &replicas[1], &plan, NULL, &tf, &c);
        ok(c.ok && streq(c.got, "100.0%"), "judged on its own pages, it passes: %s", c.got);
        ok(strstr(c.detail, "10948 of its own 10948 pages") && strstr(c.detail, "not judged: 9842 pages"),
           "the detail counts its own pages and the shared ones apart: %s", c.detail);
        ok(!strstr(c.detail, "migrate") && !strstr(c.detail, "model ="), "and advises nothing for shared code");
        check_done(&c);
        page_tally_done(&t);

        /* The same model file for both, without model-copies: llama-0 read it first, on node 0. */
        static const char shared_model[] = "2000 bind:1 anon=7782 N1=7782 kernelpagesize_kB=4\n"
                                           "3000 bind:1 file=/srv/m.gguf mapped=3166 N0=3166 kernelpagesize_kB=4\n";
        static const char shared_maps[] = "3000-4000 r--s 00000000 fe:01 9 /srv/m.gguf\n";
        char **model_mappers = xmalloc0(2 * sizeof(char *));
        model_mappers[0] = xstrdup("llama@0.service");
        char **mapped_by2[] = {model_mappers};
        page_tally_init(&t, 4);
        page_tally_add(&t, shared_model, shared_maps, &replicas[1].nodes);
        page_tally_split(&t, mapped_by2, NULL);
        run_memory_locality(&t, &replicas[1], &plan, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "71.0%"), "a data file another replica maps counts: it fails (%s)", c.got);
        ok(strstr(c.detail,
                  "/srv/m.gguf has 3166 of its 3166 pages on node 0, and replica llama-0 (llama@0.service, node 0) "
                  "maps it too") &&
                   strstr(c.detail, "model-copies = per-node"),
           "naming the other replica and the fix: %s", c.detail);
        ok(!strstr(c.detail, "migrate"), "with no migrate advice");
        check_done(&c);
        page_tally_done(&t);

        /* Unpinned: its own anonymous memory on node 0 fails it, shared code or not. */
        static const char unpinned[] = "1000 default file=/opt/engine/node mapped=9842 N0=9842 kernelpagesize_kB=4\n"
                                       "2000 default anon=7782 N0=7782 kernelpagesize_kB=4\n";
        char **engine2 = xmalloc0(2 * sizeof(char *));
        engine2[0] = xstrdup("llama@0.service");
        char **mapped_by3[] = {engine2};
        page_tally_init(&t, 4);
        page_tally_add(&t, unpinned, maps, &replicas[1].nodes);
        page_tally_split(&t, mapped_by3, NULL);
        run_memory_locality(&t, &replicas[1], &plan, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "0.0%") && strstr(c.detail, "numaplan migrate llama@1.service moves what is off"),
           "an unpinned replica still fails, on its own anonymous memory");
        check_done(&c);
        page_tally_done(&t);

        /* model-copies = per-node: it must read its node's copy. */
        static char *models[] = {(char *) "/srv/m", NULL};
        static struct replica_conf conf_copies = {.name = (char *) "llama-1", .models = models};
        struct placement copying = replicas[1];
        copying.conf = &conf_copies;
        copying.copies = (char *) "node1";
        static const char *const mapped[] = {
                "2000 bind:1 anon=100 N1=100 kernelpagesize_kB=4\n3000 bind:1 file=/run/numaplan/models/node1/srv/m "
                "mapped=50 N1=50 kernelpagesize_kB=4\n",
                "2000 bind:1 anon=100 N1=100 kernelpagesize_kB=4\n3000 bind:1 file=/srv/m mapped=50 N1=50 "
                "kernelpagesize_kB=4\n",
                "2000 bind:1 anon=100 N1=100 kernelpagesize_kB=4\n3000 bind:1 file=/run/numaplan/models/node0/srv/m "
                "mapped=50 N1=50 kernelpagesize_kB=4\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(mapped); i++) {
                page_tally_init(&t, 4);
                page_tally_add(&t, mapped[i], NULL, &copying.nodes);
                run_memory_locality(&t, &copying, &plan, "/run/numaplan/models", &tf, &c);
                if (i == 0)
                        ok(c.ok, "it maps its node's copy: passes");
                else
                        ok(!c.ok &&
                                   strstr(c.detail, i == 1 ? "it maps /srv/m, not its node's copy"
                                                           : "it maps /run/numaplan/models/node0/srv/m") &&
                                   strstr(c.detail, "${NUMAPLAN_MODEL}") && !strstr(c.detail, "migrate"),
                           "%s: fails, even with every page local, naming what to start it with",
                           i == 1 ? "it maps the original" : "it maps another node's copy");
                check_done(&c);
                page_tally_done(&t);
        }

        /* Only shared code resident: nothing of its own to judge. */
        static const char only_code[] = "1000 bind:1 file=/opt/engine/node mapped=9842 N0=9842 kernelpagesize_kB=4\n";
        char **engine3 = xmalloc0(2 * sizeof(char *));
        engine3[0] = xstrdup("llama@0.service");
        char **mapped_by4[] = {engine3};
        page_tally_init(&t, 4);
        page_tally_add(&t, only_code, maps, &replicas[1].nodes);
        page_tally_split(&t, mapped_by4, NULL);
        run_memory_locality(&t, &replicas[1], &plan, NULL, &tf, &c);
        ok(!c.ok && streq(c.got, "no pages") && strstr(c.detail, "only program code"),
           "with only shared code resident it cannot pass");
        check_done(&c);
        page_tally_done(&t);
}

static struct topology *two_nodes(uint64_t pool) {
        struct topology *t = xmalloc0(sizeof(*t));
        t->n_nodes = 2;
        t->nodes = xmalloc0(2 * sizeof(*t->nodes));
        for (int i = 0; i < 2; i++) {
                t->nodes[i].id = i;
                t->nodes[i].hugepages = xmalloc0(sizeof(struct hugepage_pool));
                t->nodes[i].hugepages[0] = (struct hugepage_pool){.page_kb = 2048, .total = i == 1 ? pool : 0};
                t->nodes[i].n_hugepages = 1;
        }
        return t;
}

static void hugepages(void) {
        struct placement pl = bound_to_node1();
        struct hugepage_share share = {.node = 1, .pages = 16};
        struct check c = {0};
        struct page_tally t;

        page_tally_init(&t, 4);
        run_hugepages(NULL, &t, &pl, &c);
        ok(c.ok && streq(c.got, "none planned"), "a replica without hugepages = passes");
        check_done(&c);

        pl.hugepage_kb = 2048;
        pl.hugepages = &share;
        pl.n_hugepages = 1;
        _cleanup_topology_ struct topology *full = two_nodes(16), *short_pool = two_nodes(10);
        run_hugepages(short_pool, &t, &pl, &c);
        ok(!c.ok && strstr(c.detail, "node 1's pool of 2.0 MiB pages holds 10 of the 16 planned"),
           "a pool smaller than planned fails, in numbers");
        check_done(&c);
        run_hugepages(full, &t, &pl, &c);
        ok(!c.ok && strstr(c.detail, "maps none of its huge pages"), "a reserved pool the replica does not use fails");
        check_done(&c);
        page_tally_add(&t, "7f00 bind:1 file=/dev/hugepages/x huge dirty=8 N1=8 kernelpagesize_kB=2048\n", NULL,
                       &pl.nodes);
        run_hugepages(full, &t, &pl, &c);
        ok(c.ok && streq(c.got, "8 mapped, 8 there"), "huge pages on the planned node pass: %s", c.got);
        check_done(&c);
        page_tally_add(&t, "7f40 bind:1 file=/dev/hugepages/y huge dirty=2 N0=2 kernelpagesize_kB=2048\n", NULL,
                       &pl.nodes);
        run_hugepages(full, &t, &pl, &c);
        ok(!c.ok && strstr(c.detail, "2 of its huge pages sit off node 1"), "huge pages from another node's pool fail");
        check_done(&c);
        page_tally_done(&t);
}

#define CONTAINER_DETAIL(what, expect_ok, needle, ...) \
        do { \
                struct check c_ = {0}; \
                run_container(__VA_ARGS__, &c_); \
                const char *text_ = c_.ok ? strempty(c_.got) : strempty(c_.detail); \
                if (!ok(c_.ok == (expect_ok) && strstr(text_, needle), "%s", what)) \
                        printf("#   ok %d, want %s, got %s: %s\n", c_.ok, c_.want, c_.got, strempty(c_.detail)); \
                check_done(&c_); \
        } while (0)

static void containers(void) {
        struct placement pl = bound_to_node1();

        ok(container_client("docker") && container_client("podman") && container_client("conmon") &&
                   container_client("containerd-shim-runc-v2") && !container_client("llama-server") &&
                   !container_client("dockerd-exporter"),
           "container clients by command name");

        struct container_facts own = {.clients_only = false};
        CONTAINER_DETAIL("a unit running its server itself passes", true, "the unit's own", &pl, &own);
        struct container_facts client = {.clients_only = true, .client = "docker", .client_pid = 77};
        CONTAINER_DETAIL("only a docker client and no container =: fails, naming the key", false,
                         "the server runs outside the unit: set container = NAME", &pl, &client);

        struct container_facts lost = {.name = "llama",
                                       .clients_only = true,
                                       .error = -ENOENT,
                                       .why = (char *) "docker has no container llama (docker ps -a)"};
        CONTAINER_DETAIL("a container the engine does not know fails, saying so", false,
                         "docker has no container llama", &pl, &lost);
        struct container_facts stopped = {.name = "llama", .engine = (char *) "docker", .id = (char *) "ab"};
        CONTAINER_DETAIL("a stopped container fails", false, "systemctl start", &pl, &stopped);

        struct container_facts bare = {.name = "llama",
                                       .engine = (char *) "docker",
                                       .id = (char *) "ab",
                                       .running = true,
                                       .pid = 9,
                                       .cpuset_cpus = (char *) "",
                                       .cpuset_mems = (char *) ""};
        CONTAINER_DETAIL("started without the cpuset flags: fails naming both", false,
                         "add --cpuset-cpus=${NUMAPLAN_CPUS} --cpuset-mems=${NUMAPLAN_MEMS}", &pl, &bare);
        struct container_facts half = bare;
        half.cpuset_cpus = (char *) "8-15,24-31";
        CONTAINER_DETAIL("without --cpuset-mems: fails naming it", false, "add --cpuset-mems=${NUMAPLAN_MEMS} to", &pl,
                         &half);
        struct container_facts other = half;
        other.cpuset_mems = (char *) "0";
        CONTAINER_DETAIL("on another node: fails with both values", false, "--cpuset-mems=${NUMAPLAN_MEMS}", &pl,
                         &other);
        struct container_facts good = half;
        good.cpuset_mems = (char *) "1";
        good.have_cpuset = true;
        good.cpus = set("8-15,24-31");
        good.mems = set("1");
        CONTAINER_DETAIL("started with the plan's flags and its cgroup within: passes", true,
                         "--cpuset-cpus=8-15,24-31", &pl, &good);
        struct container_facts moved = good;
        moved.mems = set("0-1");
        moved.cgroup = (char *) "/system.slice/docker-ab.scope";
        CONTAINER_DETAIL("flags right but the cgroup allows more (changed by hand): fails", false,
                         "--cpuset-cpus=${NUMAPLAN_CPUS}", &pl, &moved);

        struct placement pref = bound_to_node1();
        pref.policy = POLICY_PREFERRED;
        CONTAINER_DETAIL("preferred: --cpuset-mems is not asked for", true, "--cpuset-cpus=8-15,24-31", &pref, &half);
}

/* A device of `t` on node 1 with interrupts 45-46 set to `cpus`, served by CPU 9. */
static void irq_device(struct pci_device *a, enum pci_kind kind, const char *pci, const char *cpus) {
        *a = (struct pci_device){.kind = kind, .numa_node = 1};
        snprintf(a->pci, sizeof(a->pci), "%s", pci);
        a->irqs.known = a->irqs.msi = true;
        for (unsigned irq = 45; irq <= 46; irq++) {
                struct device_irq *q = device_irqs_add(&a->irqs, irq);
                q->affinity = set(cpus);
                q->effective = set("9");
                q->has_affinity = q->has_effective = true;
        }
}

static void irq_locality(void) {
        struct placement pl = bound_to_node1();
        struct pci_device gpu, nic;
        struct topology t = {.accels = &gpu, .n_accels = 1, .nics = &nic, .n_nics = 1};
        size_t gpu_index = 0;
        struct placement_nic uses = {.nic = 0};
        struct irq_target targets[2] = {{.dev = &gpu, .cpus = pl.cpus}, {.dev = &nic, .cpus = set("8-31")}};
        struct irq_targets tg = {.v = targets, .n = 2};
        struct check c = {0};

        pl.home = set("1");
        pl.accels = &gpu_index;
        pl.n_accels = 1;
        pl.nics = &uses;
        pl.n_nics = 1;
        irq_device(&gpu, PCI_ACCELERATOR, "0000:81:00.0", "0-31");
        irq_device(&nic, PCI_NIC, "0000:91:00.0", "8-15");
        check_irq_locality(&(struct verify_facts){.pl = &pl, .topology = &t, .irqs = &tg}, &c);
        ok(c.ok && streq(c.got, "not steered (irq-affinity = no)"), "irq-affinity = no: passes, not steered");
        ok(c.detail && strstr(c.detail, "0000:81:00.0: IRQs 45-46 set to CPUs 0-31, served by 9") &&
                   strstr(c.detail, "0000:91:00.0: IRQs 45-46 set to CPUs 8-15, served by 9"),
           "with its GPU's and its adapter's interrupts, where they are set and served, in its detail");

        pl.irq_affinity = true;
        check_irq_locality(&(struct verify_facts){.pl = &pl, .topology = &t, .irqs = &tg}, &c);
        ok(!c.ok && streq(c.got, "2 of 4 outside") && streq(c.want, "interrupts on CPUs 8-31"),
           "irq-affinity = yes, the GPU's set to every CPU: fails, 2 of 4 outside");
        if (!ok(c.detail &&
                        strstr(c.detail, "IRQ 45 of 0000:81:00.0 is set to CPUs 0-31 (served by 9), outside "
                                         "8-15,24-31") &&
                        strstr(c.detail, "numaplan apply steers them back"),
                "naming the interrupt, where it is set and served, and the fix"))
                tap_diag("detail", c.detail);

        for (size_t i = 0; i < gpu.irqs.n; i++)
                gpu.irqs.v[i].affinity = set("8-9");
        for (size_t i = 0; i < nic.irqs.n; i++)
                nic.irqs.v[i].affinity = set("24-31");
        check_irq_locality(&(struct verify_facts){.pl = &pl, .topology = &t, .irqs = &tg}, &c);
        ok(c.ok && streq(c.got, "4 of 4 within"),
           "steered: the GPU's within the replica's CPUs, the adapter's within those of the replicas that use it");

        nic.irqs.v[1].has_affinity = false;
        check_irq_locality(&(struct verify_facts){.pl = &pl, .topology = &t, .irqs = &tg}, &c);
        ok(!c.ok && streq(c.got, "1 of 4 unreadable"), "an interrupt whose CPUs cannot be read fails, said");

        pl.n_nics = 0;
        check_irq_locality(&(struct verify_facts){.pl = &pl, .topology = &t, .irqs = &tg}, &c);
        ok(c.ok && streq(c.got, "2 of 2 within") && !strstr(c.detail, "0000:91:00.0"),
           "an adapter the plan did not give the replica (nics =) is not judged for it");
        check_done(&c);
        device_irqs_done(&gpu.irqs);
        device_irqs_done(&nic.irqs);
}

/* Pages in GPU memory or NVM fail memory-locality whatever the share, naming the kind and node. */
static void forbidden_kinds(void) {
        struct placement pl = bound_to_node1();
        struct topology *t = xmalloc0(sizeof(*t));
        static const int ids[] = {1, 4, 9};
        static const unsigned kinds[] = {MEMORY_DRAM, MEMORY_GPU, MEMORY_NVM};
        struct task_facts tf = {.n_processes = 1};
        struct check c = {0};
        struct page_tally pages;

        t->n_nodes = 3;
        t->nodes = xmalloc0(3 * sizeof(*t->nodes));
        for (int i = 0; i < 3; i++)
                t->nodes[i] = (struct node){.id = ids[i], .memory = {.kinds = kinds[i], .accelerator = -1}};
        t->nodes[1].memory.owner_pci = xstrdup("0009:01:00.0");
        page_tally_init(&pages, 4);
        page_tally_add(&pages,
                       "7f00 bind:1 anon=300000 N1=200000 N4=105472 kernelpagesize_kB=4\n"
                       "7f01 bind:1 anon=256 N9=256 kernelpagesize_kB=4\n",
                       NULL, &pl.nodes);
        pl.min_local_bp = 1000;
        check_memory_locality(&(struct verify_facts){.pages = &pages, .pl = &pl, .tasks = &tf, .topology = t}, &c);
        ok(!c.ok && strstr(c.detail, "412.0 MiB of its pages are in GPU memory on node 4, owned by 0009:01:00.0") &&
                   strstr(c.detail, "1.0 MiB of its pages are in persistent memory (NVM) on node 9"),
           "pages in GPU memory and NVM fail memory-locality though 65%% is above min-local, naming kind and node");
        check_done(&c);
        page_tally_done(&pages);
        page_tally_init(&pages, 4);
        page_tally_add(&pages, "7f00 bind:1 anon=300000 N1=290000 N2=10000 kernelpagesize_kB=4\n", NULL, &pl.nodes);
        check_memory_locality(&(struct verify_facts){.pages = &pages, .pl = &pl, .tasks = &tf, .topology = t}, &c);
        ok(c.ok && !strstr(c.detail, "GPU memory"), "pages on another DRAM node are judged by the share as before");
        check_done(&c);
        page_tally_done(&pages);
        topology_free(t);
}

int main(void) {
        irq_locality();
        side_by_side();
        systemd_view();
        dropins();
        task_checks();
        warmup_and_locality();
        hugepages();
        containers();
        forbidden_kinds();
        return done_testing();
}
