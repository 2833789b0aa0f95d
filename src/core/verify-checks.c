/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "basic/parse-util.h"
#include "basic/util.h"
#include "core/irqs.h"
#include "core/memory-place.h"
#include "core/placement.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/verify-checks.h"

const char *numa_policy_name(int mpol) {
        /* systemd sends the kernel's MPOL_* numbers. */
        static const char *const names[] = {"default", "preferred", "bind", "interleave", "local"};
        return mpol >= 0 && (size_t) mpol < ELEMENTSOF(names) ? names[mpol] : "unset";
}

void unit_state_done(struct unit_state *s) {
        free(s->load_state);
        free(s->active_state);
        free(s->sub_state);
        free(s->control_group);
        strv_free(s->dropin_paths);
        *s = (struct unit_state){0};
}

void container_facts_done(struct container_facts *cf) {
        free(cf->why);
        free(cf->engine);
        free(cf->id);
        free(cf->cpuset_cpus);
        free(cf->cpuset_mems);
        free(cf->cgroup);
        *cf = (struct container_facts){0};
}

static const struct {
        enum check_phase phase;
        void (*run)(const struct verify_facts *f, struct check *c);
} check_table[N_CHECKS] = {
#define CHECK_ROW(id, name, phase, function) [CHECK_##id] = {phase, function},
        VERIFY_CHECKS(CHECK_ROW)
#undef CHECK_ROW
};

void checks_run(enum check_phase phase, const struct verify_facts *f, struct check *checks) {
        for (unsigned i = 0; i < N_CHECKS; i++)
                if (check_table[i].phase == phase)
                        check_table[i].run(f, &checks[i]);
}

const char *check_name(unsigned i) {
#define CHECK_NAME(id, name, ...) [CHECK_##id] = name,
        static const char *const names[N_CHECKS] = {VERIFY_CHECKS(CHECK_NAME)};
#undef CHECK_NAME
        return i < N_CHECKS ? names[i] : "?";
}

void check_done(struct check *c) {
        free(c->want);
        free(c->got);
        free(c->detail);
        *c = (struct check){0};
}

static void set(struct check *c, bool ok, char *want, char *got, char *detail) {
        check_done(c);
        *c = (struct check){.ok = ok, .want = want, .got = got, .detail = detail};
}

static bool is_active(const struct unit_state *s) {
        return streq_ptr(s->load_state, "loaded") && streq_ptr(s->active_state, "active");
}

/* Why a property systemd fills only for a running unit is empty. */
static char *inactive_detail(const struct unit_state *s, const char *what) {
        return xasprintf("the unit is %s: systemd reports %s only while it runs", strempty(s->active_state), what);
}

void check_unit_active(const struct verify_facts *f, struct check *c) {
        const struct unit_state *s = f->state;
        const char *unit = f->unit;
        char *got = xasprintf("%s (%s)", strempty(s->active_state), strempty(s->sub_state)), *detail = NULL;

        if (!streq_ptr(s->load_state, "loaded")) {
                free(got);
                got = xstrdup(strempty(s->load_state));
                detail = xasprintf("systemd cannot load the unit (%s): install it, or fix unit= in the configuration",
                                   strempty(s->load_state));
        } else if (streq_ptr(s->active_state, "failed"))
                detail = xasprintf("the unit failed: see journalctl -u %s; if it failed an assertion, numaplan apply "
                                   "did not succeed on this boot",
                                   unit);
        else if (!is_active(s))
                detail = xasprintf("the unit is not running: start it (systemctl start %s)", unit);
        set(c, is_active(s), xstrdup("active"), got, detail);
}

void check_numa_policy(const struct verify_facts *f, struct check *c) {
        const struct unit_state *s = f->state;
        const struct placement *pl = f->pl;
        const char *got = numa_policy_name(s->numa_policy), *want = policy_to_string(pl->policy);
        char *detail = NULL;
        if (s->numa_policy < 0)
                detail = xstrdup("systemd has no NUMAPolicy= for the unit: numaplan's drop-in is not loaded");
        else if (!streq(got, want))
                detail = xasprintf("systemd applies NUMAPolicy=%s, the plan says %s", got, want);
        set(c, streq(got, want), xstrdup(want), xstrdup(got), detail);
}

static void compare_sets(struct check *c, const struct cpuset *want, const struct cpuset *got, char *detail_if_empty,
                         const char *what) {
        char *w = cpuset_format(want), *g = cpuset_format(got), *detail = NULL;
        bool ok = cpuset_equal(want, got);
        if (!ok && cpuset_is_empty(got))
                detail = detail_if_empty;
        else {
                free(detail_if_empty);
                if (!ok)
                        detail = xasprintf("systemd's %s is %s, the plan's %s", what, *g ? g : "empty", w);
        }
        set(c, ok, w, g, detail);
}

void check_numa_mask(const struct verify_facts *f, struct check *c) {
        compare_sets(c, &f->pl->nodes, &f->state->numa_mask, xstrdup("systemd has no NUMAMask= for the unit"),
                     "NUMAMask");
}

void check_cpu_affinity(const struct verify_facts *f, struct check *c) {
        const struct unit_state *s = f->state;
        const struct placement *pl = f->pl;
        if (pl->cpu_affinity_numa) {
                _cleanup_free_ char *list = cpuset_format(&s->cpu_affinity);
                char *got = s->cpu_affinity_from_numa ? xstrdup("numa") : xstrdup(*list ? list : "unset");
                set(c, s->cpu_affinity_from_numa, xstrdup("numa"), got,
                    s->cpu_affinity_from_numa ? NULL
                                              : xstrdup("systemd does not derive the unit's CPU affinity from its "
                                                        "NUMA nodes (CPUAffinity=numa)"));
                return;
        }
        compare_sets(c, &pl->cpus, &s->cpu_affinity, xstrdup("systemd has no CPUAffinity= for the unit"),
                     "CPUAffinity");
}

void check_effective_cpus(const struct verify_facts *f, struct check *c) {
        const struct unit_state *s = f->state;
        const struct placement *pl = f->pl;
        compare_sets(c, &pl->cpus, &s->effective_cpus,
                     is_active(s) ? xstrdup("systemd reports no effective CPUs for the running unit: no cgroup v2 "
                                            "cpuset, so AllowedCPUs= is not enforced")
                                  : inactive_detail(s, "effective CPUs"),
                     "EffectiveCPUs");
}

void check_effective_memory_nodes(const struct verify_facts *f, struct check *c) {
        const struct unit_state *s = f->state;
        const struct placement *pl = f->pl;
        const struct cpuset *memory_nodes = f->memory_nodes;
        /* preferred sets no AllowedMemoryNodes=: the kernel may fall back to any node. */
        const struct cpuset *want = pl->policy == POLICY_PREFERRED ? memory_nodes : &pl->nodes;
        compare_sets(c, want, &s->effective_mems,
                     is_active(s) ? xstrdup("systemd reports no effective memory nodes for the running unit: no "
                                            "cgroup v2 cpuset, so AllowedMemoryNodes= is not enforced")
                                  : inactive_detail(s, "effective memory nodes"),
                     "EffectiveMemoryNodes");
}

void check_dropin(const struct verify_facts *f, struct check *c) {
        const struct dropin_facts *d = f->dropin;
        char *got, *detail = NULL;
        bool ok = d->loaded && !d->overridden_by && d->matches_plan && !d->journal;

        if (d->journal) {
                got = xstrdup("apply interrupted");
                detail = xasprintf("an apply was interrupted midway (%s records it): the drop-ins may mix two plans; "
                                   "run numaplan apply to finish it",
                                   d->journal);
        } else if (!d->loaded && d->instead) {
                got = xstrdup("masked");
                detail = xasprintf("systemd loads %s instead of %s, whose name it has (a directory of higher priority "
                                   "masks ours): remove it, or apply to its directory",
                                   d->instead, d->path);
        } else if (!d->loaded) {
                got = xstrdup("not loaded");
                detail = xasprintf("%s is not among the unit's drop-ins: run numaplan apply (it reloads systemd)",
                                   d->path);
        } else if (d->overridden_by) {
                got = xstrdup("overridden");
                detail = xasprintf("%s, after numaplan's drop-in, so it wins: remove those settings (or the file), "
                                   "then systemctl daemon-reload and restart the unit",
                                   d->overridden_by);
        } else if (!d->matches_plan) {
                got = xstrdup("stale");
                detail = xasprintf("%s differs from the current plan (the configuration or the hardware changed since "
                                   "apply): run numaplan apply",
                                   d->path);
        } else
                got = xstrdup("in effect");
        set(c, ok, xstrdup("in effect"), got, detail);
}

bool container_client(const char *comm) {
        /* The clients wait for the container; conmon and the shims watch it. None computes. */
        static const char *const clients[] = {"docker", "nerdctl", "podman", "conmon", "ctr", "crictl"};
        for (size_t i = 0; i < ELEMENTSOF(clients); i++)
                if (streq(comm, clients[i]))
                        return true;
        return startswith(comm, "containerd-shim") != NULL;
}

/* "--cpuset-cpus=2-3": the container's value for the flag agrees with the plan's `want`. */
static bool flag_matches(const char *value, const struct cpuset *want) {
        struct cpuset got;
        return value && *value && cpuset_parse_list(value, &got) >= 0 && cpuset_equal(&got, want);
}

void check_container(const struct verify_facts *f, struct check *c) {
        const struct placement *pl = f->pl;
        const struct container_facts *cf = f->container;
        _cleanup_free_ char *cpus = cpuset_format(&pl->cpus), *nodes = cpuset_format(&pl->nodes);
        bool mems_too = pl->policy != POLICY_PREFERRED; /* preferred sets no hard limit */

        if (!cf->name) {
                if (cf->clients_only)
                        set(c, false, xstrdup("the server's processes"),
                            xasprintf("only %s (pid %d) in the unit", cf->client, (int) cf->client_pid),
                            xasprintf("the server runs outside the unit: set container = NAME (its --name) in the "
                                      "replica's section, and start it with --cpuset-cpus=${NUMAPLAN_CPUS}%s",
                                      mems_too ? " --cpuset-mems=${NUMAPLAN_MEMS}" : ""));
                else
                        set(c, true, xstrdup("the server's processes"), xstrdup("the unit's own"), NULL);
                return;
        }
        char *want = mems_too ? xasprintf("container %s on CPUs %s, nodes %s", cf->name, cpus, nodes)
                              : xasprintf("container %s on CPUs %s", cf->name, cpus);
        if (cf->error < 0) {
                set(c, false, want, xstrdup("not found"),
                    xasprintf("cannot ask the container engine about %s: %s", cf->name, strempty(cf->why)));
                return;
        }
        if (!cf->running || cf->pid <= 0) {
                set(c, false, want, xasprintf("%s container %s is not running", strempty(cf->engine), cf->name),
                    xasprintf("start the unit (systemctl start %s)", pl->unit));
                return;
        }

        /* As started: the flags say what the engine will keep applying; the cgroup what holds now. */
        struct strbuf missing = {0}, wrong = {0};
        const char *flags[2] = {cf->cpuset_cpus, cf->cpuset_mems};
        static const char *const names[2] = {"--cpuset-cpus", "--cpuset-mems"};
        static const char *const vars[2] = {"NUMAPLAN_CPUS", "NUMAPLAN_MEMS"};
        const struct cpuset *plan[2] = {&pl->cpus, &pl->nodes};
        for (unsigned k = 0; k < (mems_too ? 2U : 1U); k++) {
                if (!flags[k] || !*flags[k])
                        strbuf_printf(&missing, "%s%s=${%s}", missing.len ? " " : "", names[k], vars[k]);
                else if (!flag_matches(flags[k], plan[k])) {
                        _cleanup_free_ char *w = cpuset_format(plan[k]);
                        strbuf_printf(&wrong, "%s%s=%s, the plan %s", wrong.len ? "; " : "", names[k], flags[k], w);
                }
        }
        if (!missing.len && !wrong.len && cf->have_cpuset &&
            (!cpuset_is_subset(&cf->cpus, &pl->cpus) || (mems_too && !cpuset_is_subset(&cf->mems, &pl->nodes)))) {
                _cleanup_free_ char *gc = cpuset_format(&cf->cpus), *gm = cpuset_format(&cf->mems);
                strbuf_printf(&wrong, "its cgroup %s allows CPUs %s, nodes %s", strempty(cf->cgroup), gc, gm);
        }

        if (missing.len)
                set(c, false, want, xasprintf("%s container %s started without %s", cf->engine, cf->name, missing.s),
                    xasprintf("the container runs unpinned: add %s to its run command in %s, then restart the unit",
                              missing.s, pl->unit));
        else if (wrong.len)
                set(c, false, want, xasprintf("%s container %s: %s", cf->engine, cf->name, wrong.s),
                    xasprintf(
                            "pass the plan's placement: --cpuset-cpus=${NUMAPLAN_CPUS}%s in %s, then restart the unit",
                            mems_too ? " --cpuset-mems=${NUMAPLAN_MEMS}" : "", pl->unit));
        else
                set(c, true, want,
                    xasprintf("%s container %s (%.12s), pid %d: --cpuset-cpus=%s%s%s", cf->engine, cf->name,
                              strempty(cf->id), (int) cf->pid, cf->cpuset_cpus, mems_too ? " --cpuset-mems=" : "",
                              mems_too ? cf->cpuset_mems : ""),
                    NULL);
        strbuf_done(&missing);
        strbuf_done(&wrong);
}

void check_task_affinity(const struct verify_facts *f, struct check *c) {
        const struct unit_state *s = f->state;
        const struct placement *pl = f->pl;
        const struct task_facts *tf = f->tasks;
        const struct dropin_facts *d = f->dropin;
        _cleanup_free_ char *cpus = cpuset_format(&pl->cpus), *nodes = cpuset_format(&pl->nodes);
        bool check_mems = pl->policy != POLICY_PREFERRED;
        char *want = check_mems ? xasprintf("CPUs %s, nodes %s", cpus, nodes) : xasprintf("CPUs %s", cpus);
        struct strbuf bad = {0}, stale = {0};
        unsigned n_bad = 0, n_stale = 0;

        if (!tf->readable || tf->n_processes == 0) {
                set(c, false, want, xstrdup("no processes"),
                    !tf->readable ? xasprintf("cannot list the processes of %s", strempty(s->control_group))
                                  : xstrdup("the unit's cgroup holds no process: start the unit"));
                return;
        }
        for (size_t i = 0; i < tf->n_tasks; i++) {
                const struct task *t = &tf->tasks[i];
                if (cpuset_is_subset(&t->cpus, &pl->cpus) && (!check_mems || cpuset_is_subset(&t->mems, &pl->nodes)))
                        continue;
                if (n_bad++ < 4) {
                        _cleanup_free_ char *tc = cpuset_format(&t->cpus), *tm = cpuset_format(&t->mems);
                        char thread[32] = "";
                        if (t->tid != t->pid)
                                snprintf(thread, sizeof(thread), " thread %d", (int) t->tid);
                        strbuf_printf(&bad, "%spid %d (%s)%s: CPUs %s, nodes %s", bad.len ? "; " : "", (int) t->pid,
                                      t->comm, thread, tc, tm);
                }
        }
        for (size_t i = 0; d->mtime > 0 && i < tf->n_processes; i++) {
                const struct process *p = &tf->processes[i];
                if (p->start > 0 && p->start < d->mtime && n_stale++ < 4)
                        strbuf_printf(&stale, "%spid %d (%s) started %.1f s before numaplan's drop-in was written",
                                      stale.len ? "; " : "", (int) p->pid, p->comm, d->mtime - p->start);
        }

        size_t n_unread = strv_length(tf->unread);
        char *got = n_bad == 0 ? xasprintf("%zu process%s, %zu thread%s within", tf->n_processes,
                                           tf->n_processes == 1 ? "" : "es", tf->n_tasks, tf->n_tasks == 1 ? "" : "s")
                               : xasprintf("%u of %zu threads outside", n_bad, tf->n_tasks);
        char *detail = NULL;
        if (n_stale)
                detail = xasprintf("%s%s%s: restart the unit (systemctl restart %s) so it starts with numaplan's "
                                   "placement",
                                   stale.s, n_bad ? "; " : "", n_bad ? bad.s : "", pl->unit);
        else if (n_bad)
                detail = xasprintf("%s%s: restart the unit (systemctl restart %s) so it starts with numaplan's "
                                   "placement; if it still runs outside, something else sets its affinity",
                                   bad.s, n_bad > 4 ? ", ..." : "", pl->unit);
        if (n_unread) {
                /* A thread that cannot be read is not one within: unknown, and failed. */
                char *g = xasprintf("%s, %zu unknown", got, n_unread),
                     *dt = xasprintf("cannot read %s%s: where %s may run is unknown%s%s", tf->unread[0],
                                     n_unread > 1 ? ", ..." : "", n_unread > 1 ? "those threads" : "that thread",
                                     detail ? "; " : "", strempty(detail));
                free(got);
                free(detail);
                got = g;
                detail = dt;
        }
        set(c, n_bad == 0 && n_stale == 0 && n_unread == 0, want, got, detail);
        strbuf_done(&bad);
        strbuf_done(&stale);
}

/* The devices whose interrupts concern a replica: its accelerators, then the adapters it uses. */
static size_t irq_devices(const struct topology *t, const struct placement *pl, const struct pci_device **v) {
        size_t n = 0;
        for (size_t j = 0; j < pl->n_accels; j++)
                v[n++] = &t->accels[pl->accels[j]];
        for (size_t j = 0; j < t->n_nics; j++)
                if (replica_uses_nic(pl, j))
                        v[n++] = &t->nics[j];
        return n;
}

/* "0000:42:00.0: IRQs 45-47 set to CPUs 0-3, served by 1,3" */
static void irq_facts(struct strbuf *b, const struct pci_device *a) {
        struct cpuset set = {0}, served = {0};
        const char *sep = b->len ? "; " : "";

        if (!a->irqs.known || a->irqs.n == 0) {
                strbuf_printf(b, "%s%s: %s", sep, a->pci, a->irqs.known ? "no interrupt" : "its interrupts unknown");
                return;
        }
        for (size_t i = 0; i < a->irqs.n; i++) {
                cpuset_or(&set, &a->irqs.v[i].affinity);
                cpuset_or(&served, &a->irqs.v[i].effective);
        }
        _cleanup_free_ char *irqs = device_irqs_format(&a->irqs), *s = cpuset_format(&set), *e = cpuset_format(&served);
        strbuf_printf(b, "%s%s: IRQ%s %s set to CPUs %s, served by %s", sep, a->pci, a->irqs.n > 1 ? "s" : "", irqs,
                      *s ? s : "unknown", *e ? e : "unknown");
}

/* The interrupts of `a` set outside its target's CPUs (or unreadable), up to four said in `bad`. */
static void irq_judge(const struct pci_device *a, const struct irq_target *tg, unsigned *outside, unsigned *unknown,
                      struct strbuf *bad) {
        for (size_t i = 0; tg && i < a->irqs.n; i++) {
                const struct device_irq *q = &a->irqs.v[i];
                if (!q->has_affinity)
                        (*unknown)++;
                else if (!cpuset_is_subset(&q->affinity, &tg->cpus) && (*outside)++ < 4) {
                        _cleanup_free_ char *set = cpuset_format(&q->affinity), *eff = cpuset_format(&q->effective),
                                            *want = cpuset_format(&tg->cpus);
                        strbuf_printf(bad, "%sIRQ %u of %s is set to CPUs %s (served by %s), outside %s",
                                      bad->len ? "; " : "", q->irq, a->pci, set,
                                      q->has_effective ? eff : "unknown CPUs", want);
                }
        }
}

void check_irq_locality(const struct verify_facts *f, struct check *c) {
        const struct placement *pl = f->pl;
        const struct topology *t = f->topology;
        const struct pci_device **devs = xmalloc0((pl->n_accels + t->n_nics + 1) * sizeof(*devs));
        size_t n = irq_devices(t, pl, devs);
        struct strbuf facts = {0}, bad = {0};
        struct cpuset cpus = {0};
        unsigned total = 0, outside = 0, unknown = 0;

        for (size_t i = 0; i < n; i++) {
                const struct irq_target *tg = irq_target_of(f->irqs, devs[i]);
                irq_facts(&facts, devs[i]);
                irq_judge(devs[i], pl->irq_affinity ? tg : NULL, &outside, &unknown, &bad);
                total += (unsigned) devs[i]->irqs.n;
                if (tg)
                        cpuset_or(&cpus, &tg->cpus);
        }
        free(devs);
        char *detail = facts.len ? strbuf_steal(&facts) : xstrdup("no accelerator or network adapter");
        if (!pl->irq_affinity) {
                set(c, true, xstrdup("-"), xstrdup("not steered (irq-affinity = no)"), detail);
                strbuf_done(&bad);
                return;
        }
        _cleanup_free_ char *list = cpuset_format(&cpus);
        char *want = xasprintf("interrupts on CPUs %s", *list ? list : "-");
        char *got = outside   ? xasprintf("%u of %u outside", outside, total)
                    : unknown ? xasprintf("%u of %u unreadable", unknown, total)
                              : xasprintf("%u of %u within", total, total);
        if (outside) {
                char *why = xasprintf("%s%s: moved since apply, by hand or by an irqbalance that runs without "
                                      "numaplan's drop-in; numaplan apply steers them back (%s)",
                                      bad.s, outside > 4 ? ", ..." : "", detail);
                free(detail);
                detail = why;
        } else if (unknown) {
                char *why = xasprintf("the CPUs of %u interrupts cannot be read from /proc/irq (%s)", unknown, detail);
                free(detail);
                detail = why;
        }
        set(c, outside == 0 && unknown == 0, want, got, detail);
        strbuf_done(&bad);
}

void check_warmup(const struct verify_facts *f, struct check *c) {
        const struct warmup_result *w = f->warmup;
        const char *url = f->warmup_url, *why = f->warmup_skipped;
        if (!w) {
                set(c, true, xstrdup("-"), xstrdup("skipped"), xstrdup(why));
                return;
        }
        set(c, w->ok, xasprintf("2xx from %s", url),
            w->status ? xasprintf("HTTP %ld", w->status) : xstrdup("no answer"), xstrdup(w->detail));
}

bool locality_reaches(uint64_t on, uint64_t total, unsigned min_local_bp) {
        return (unsigned __int128) on * 10000 >= (unsigned __int128) min_local_bp * total;
}

/* The replica, other than `pl`, whose unit is one of `units`; NULL when none is. */
static const struct placement *other_replica(const struct plan *plan, const struct placement *pl, char *const *units) {
        for (size_t i = 0; plan && units && i < plan->n_replicas; i++)
                if (&plan->replicas[i] != pl && strv_contains(units, plan->replicas[i].unit))
                        return &plan->replicas[i];
        return NULL;
}

static bool path_under(const char *path, const char *dir) {
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* With model-copies: the first file it maps that is not its nodes' copy of the model (the
 * original, another node's copy), or NULL. */
static const struct file_pages *not_its_copy(const struct page_tally *pages, const struct placement *pl,
                                             const char *models_dir, char **ret_own) {
        _cleanup_free_ char *own = xasprintf("%s/%s", models_dir, pl->copies);
        for (size_t i = 0; i < pages->n_files; i++) {
                const struct file_pages *f = &pages->files[i];
                if (path_under(f->path, own))
                        continue;
                bool original = false;
                for (char **m = pl->conf->models; m && *m && !original; m++)
                        original = path_under(f->path, *m);
                if (original || path_under(f->path, models_dir)) {
                        *ret_own = TAKE_PTR(own);
                        return f;
                }
        }
        return NULL;
}

/* The advice for each of its own files whose page cache sits mostly off the plan; true when any
 * was given. With pinned pages off the plan only a restart helps, and migrate is not named. */
static bool files_advice(struct strbuf *d, const struct page_tally *pages, const struct placement *pl,
                         const struct plan *plan, bool restart) {
        bool advised = false;
        for (size_t i = 0; i < pages->n_files; i++) {
                const struct file_pages *f = &pages->files[i];
                if (f->shared || !file_pages_off_plan(f))
                        continue;
                const struct placement *other = other_replica(plan, pl, f->mapped_by);
                int where = file_pages_node(f);
                if (other) {
                        _cleanup_free_ char *on = cpuset_format(&other->nodes);
                        strbuf_printf(d,
                                      "; %s has %" PRIu64 " of its %" PRIu64 " pages on node %d, and replica %s (%s, "
                                      "node%s %s) maps it too: one page cache serves both, so only one node can hold "
                                      "it; model-copies = per-node gives each node its own copy",
                                      f->path, f->off_plan, f->total, where, other->name, other->unit,
                                      cpuset_count(&other->nodes) > 1 ? "s" : "", on);
                } else if (restart)
                        strbuf_printf(d,
                                      "; %s has %" PRIu64 " of its %" PRIu64 " pages off the plan: its page cache was "
                                      "filled before the pinning; naming it in model = has every start move it",
                                      f->path, f->off_plan, f->total);
                else
                        strbuf_printf(d,
                                      "; %s has %" PRIu64 " of its %" PRIu64 " pages off the plan: its page cache was "
                                      "filled before the pinning; numaplan migrate %s moves it now, and naming it in "
                                      "model = has every start move it",
                                      f->path, f->off_plan, f->total, pl->unit);
                advised = true;
        }
        return advised;
}

/* What its locked and pinned memory changes in the advice. Pinned pages known off the plan: only
 * a restart moves them (true). Pinned pages no file places, when the check fails: migrate moves
 * the rest and counts those it cannot. */
static bool held_advice(struct strbuf *d, const struct page_tally *pages, const struct placement *pl, bool failing) {
        const struct held_totals *h = &pages->held;
        char sz[FORMAT_BYTES_MAX];
        if (h->pinned_off_plan) {
                format_bytes(sz, sizeof(sz), h->pinned_off_plan * pages->base_kb * 1024);
                strbuf_printf(d,
                              "; %" PRIu64 " pinned pages (%s, buffers registered with io_uring) sit off the plan: the "
                              "kernel does not move a pinned page, so only a restart of %s moves them, pinned anew "
                              "where its memory policy places them",
                              h->pinned_off_plan, sz, pl->unit);
                return true;
        }
        uint64_t unlisted = h->vm_pinned > h->pinned_listed ? h->vm_pinned - h->pinned_listed : 0;
        if (unlisted && failing) {
                format_bytes(sz, sizeof(sz), unlisted * pages->base_kb * 1024);
                strbuf_printf(d,
                              "; %" PRIu64 " of its pages (%s) are pinned for DMA (VmPin) and no file says on which "
                              "node: numaplan migrate moves the others and counts those it cannot, pinned, which only "
                              "a restart moves",
                              unlisted, sz);
        }
        return false;
}

/* Pages in GPU memory or NVM fail the check whatever the share: the GPU's memory is taken from the
 * GPU, NVM is many times slower, and no plan puts a replica there. Says each such node; true when
 * there is one. */
static bool forbidden_pages(struct strbuf *d, const struct verify_facts *facts) {
        const struct page_tally *pages = facts->pages;
        bool found = false;

        for (int n = 0; facts->topology && n < NUMA_NODES_MAX; n++) {
                const struct node *node = topology_node(facts->topology, n);
                if (!node || !memory_kind_forbidden(node->memory.kinds) || !page_tally_own(pages, n))
                        continue;
                char sz[FORMAT_BYTES_MAX];
                format_bytes(sz, sizeof(sz), page_tally_own(pages, n) * pages->base_kb * 1024);
                _cleanup_free_ char *where = memory_forbidden_where(facts->topology, n);
                strbuf_printf(d, "; %s of its pages are in %s", sz, where);
                found = true;
        }
        return found;
}

/* "cannot be judged: PATH: why (what it leaves unknown); ...": the files of its processes that
 * could not be read, the first three named. */
static char *unread_text(const struct page_tally *pages) {
        struct strbuf b = {0};
        strbuf_append(&b, "cannot be judged: ");
        for (size_t i = 0; i < pages->n_unread && i < 3; i++) {
                const struct page_unread *u = &pages->unread[i];
                strbuf_printf(&b, "%s%s: %s (%s unknown)", i ? "; " : "", u->path, u->error,
                              page_source_lost(u->source));
        }
        if (pages->n_unread > 3)
                strbuf_printf(&b, "; and %zu more", pages->n_unread - 3);
        return strbuf_steal(&b);
}

void check_memory_locality(const struct verify_facts *facts, struct check *c) {
        const struct page_tally *pages = facts->pages;
        const struct placement *pl = facts->pl;
        const struct task_facts *tf = facts->tasks;
        char want_buf[16];
        uint64_t total = page_tally_own_sum(pages), planned = page_tally_own_on(pages, &pl->nodes),
                 shared = page_tally_sum(pages->shared);

        format_percent(want_buf, sizeof(want_buf), pl->min_local_bp);
        char *want = xasprintf(">= %s", want_buf);
        /* What could not be read is unknown, never none: the check fails, saying what and why. */
        _cleanup_free_ char *unread = pages->n_unread ? unread_text(pages) : NULL;
        bool where_unknown = page_tally_unread_of(pages, PAGE_SOURCE_NUMA_MAPS);
        if (total == 0 && unread) {
                set(c, false, want, xstrdup("unknown"), TAKE_PTR(unread));
                return;
        }
        if (total == 0) {
                set(c, false, want, xstrdup("no pages"),
                    xstrdup(!tf->n_processes ? "the unit runs no process"
                            : shared         ? "numa_maps shows no resident page of its own, only program code "
                                               "other units map"
                                             : "numa_maps shows no resident page"));
                return;
        }
        bool ok = locality_reaches(planned, total, pl->min_local_bp);
        _cleanup_free_ char *nodes = cpuset_format(&pl->nodes);
        struct strbuf d = {0};
        char sz[FORMAT_BYTES_MAX];
        format_bytes(sz, sizeof(sz), total * pages->base_kb * 1024);
        strbuf_printf(&d, "%" PRIu64 " of its own %" PRIu64 " pages (%s) on node%s %s", planned, total, sz,
                      cpuset_count(&pl->nodes) > 1 ? "s" : "", nodes);
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                if (page_tally_own(pages, n) && !cpuset_isset(&pl->nodes, n))
                        strbuf_printf(&d,
                                      "; node %d holds %" PRIu64 " (anon %" PRIu64 ", file %" PRIu64 ", huge %" PRIu64
                                      ")",
                                      n, page_tally_own(pages, n), pages->anon[n], pages->file[n] - pages->shared[n],
                                      pages->huge[n]);
        if (forbidden_pages(&d, facts))
                ok = false;
        if (shared) {
                format_bytes(sz, sizeof(sz), shared * pages->base_kb * 1024);
                strbuf_printf(&d, "; not judged: %" PRIu64 " pages (%s) of program code that other units map too",
                              shared, sz);
        }
        bool restart = held_advice(&d, pages, pl, !ok);
        bool advised = files_advice(&d, pages, pl, facts->plan, restart) || restart;
        _cleanup_free_ char *copy = NULL;
        const struct file_pages *wrong =
                pl->copies && facts->models_dir ? not_its_copy(pages, pl, facts->models_dir, &copy) : NULL;
        if (wrong) {
                strbuf_printf(&d,
                              "; it maps %s, not its %s copy in %s: start its server with the model at "
                              "${NUMAPLAN_MODEL} (model-copies = per-node)",
                              wrong->path, cpuset_count(&pl->nodes) > 1 ? "nodes'" : "node's", copy);
                ok = false;
                advised = true;
        }
        if (!ok && !advised)
                strbuf_printf(&d, "; numaplan migrate %s moves what is off the plan, without a restart", pl->unit);
        if (unread) {
                char *detail = xasprintf("%s; of what was read: %s", unread, d.s);
                strbuf_done(&d);
                set(c, false, want, where_unknown ? xstrdup("unknown") : format_share(planned, total), detail);
                return;
        }
        set(c, ok, want, format_share(planned, total), strbuf_steal(&d));
}

void check_hugepages(const struct verify_facts *f, struct check *c) {
        const struct topology *t = f->topology;
        const struct page_tally *pages = f->pages;
        const struct placement *pl = f->pl;
        if (pl->n_hugepages == 0) {
                set(c, true, xstrdup("-"), xstrdup("none planned"), NULL);
                return;
        }
        char size[FORMAT_BYTES_MAX];
        struct strbuf want = {0}, missing = {0};
        format_bytes(size, sizeof(size), pl->hugepage_kb * 1024);
        for (size_t i = 0; i < pl->n_hugepages; i++) {
                const struct hugepage_share *s = &pl->hugepages[i];
                const struct node *n = topology_node(t, s->node);
                uint64_t have = 0;
                for (size_t k = 0; n && k < n->n_hugepages; k++)
                        if (n->hugepages[k].page_kb == pl->hugepage_kb)
                                have = n->hugepages[k].total;
                strbuf_printf(&want, "%s%" PRIu64 " on node %d", want.len ? ", " : "", s->pages, s->node);
                if (have < s->pages)
                        strbuf_printf(&missing,
                                      "%snode %d's pool of %s pages holds %" PRIu64 " of the %" PRIu64 " planned",
                                      missing.len ? "; " : "", s->node, size, have, s->pages);
        }
        uint64_t scale = pl->hugepage_kb / pages->base_kb ? pl->hugepage_kb / pages->base_kb : 1;
        uint64_t total = page_tally_sum(pages->huge) / scale, on = page_tally_on(pages->huge, &pl->nodes) / scale;
        _cleanup_free_ char *nodes = cpuset_format(&pl->nodes);
        char *w = xasprintf("pool of %s pages: %s; the replica's on node%s %s", size, want.s,
                            cpuset_count(&pl->nodes) > 1 ? "s" : "", nodes);
        char *got = xasprintf("%" PRIu64 " mapped, %" PRIu64 " there", total, on);
        strbuf_done(&want);
        if (missing.len) {
                strbuf_append(&missing, ": run numaplan apply, which reserves the pools and says what the kernel "
                                        "granted");
                set(c, false, w, got, strbuf_steal(&missing));
        } else if (total == 0)
                set(c, false, w, got,
                    xstrdup("the replica maps none of its huge pages: start its server with huge pages (a hugetlbfs "
                            "file or MAP_HUGETLB), or drop hugepages = from the configuration"));
        else if (on < total)
                set(c, false, w, got,
                    xasprintf("%" PRIu64 " of its huge pages sit off node%s %s: they were taken from another node's "
                              "pool (the planned pool ran out, or the memory policy allowed it)",
                              total - on, cpuset_count(&pl->nodes) > 1 ? "s" : "", nodes));
        else
                set(c, true, w, got, NULL);
        strbuf_done(&missing);
}

char *dropin_settings(const char *text) {
        static const char *const keys[] = {"NUMAPolicy", "NUMAMask", "CPUAffinity", "AllowedCPUs",
                                           "AllowedMemoryNodes"};
        struct strbuf b = {0};

        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                for (const char *p = text; *p;) {
                        const char *line = p + strspn(p, " \t");
                        const char *eol = strchrnul(p, '\n');
                        size_t kl = strlen(keys[k]);
                        const char *after = line + kl;
                        while (after < eol && (*after == ' ' || *after == '\t'))
                                after++;
                        if (strncmp(line, keys[k], kl) == 0 && after < eol && *after == '=') {
                                strbuf_printf(&b, "%s%s=", b.len ? ", " : "", keys[k]);
                                break;
                        }
                        p = *eol ? eol + 1 : eol;
                }
        return b.len ? strbuf_steal(&b) : NULL;
}

/* page_counts_text(), or why the nodes are unknown: the first file of `source` or `also` unread. */
static void held_nodes_text(struct strbuf *b, const struct page_tally *t, const uint64_t *v, enum page_source source,
                            enum page_source also) {
        for (size_t i = 0; i < t->n_unread; i++)
                if (t->unread[i].source == source || t->unread[i].source == also) {
                        strbuf_printf(b, "unknown, %s: %s", t->unread[i].path, t->unread[i].error);
                        return;
                }
        page_counts_text(b, v, "none resident");
}

static void locked_text(struct strbuf *b, const struct page_tally *t) {
        const struct held_totals *h = &t->held;
        char sz[FORMAT_BYTES_MAX];
        format_bytes(sz, sizeof(sz), h->vm_locked * t->base_kb * 1024);
        strbuf_printf(b, "  locked: %" PRIu64 " pages (%s, VmLck); its locked mappings' resident pages: ", h->vm_locked,
                      sz);
        held_nodes_text(b, t, t->locked, PAGE_SOURCE_SMAPS, PAGE_SOURCE_SMAPS);
        if (h->locked_unmapped)
                strbuf_printf(b,
                              "; %" PRIu64 " beyond its locked mappings, pinned by a driver that counts them as "
                              "locked (vfio does)",
                              h->locked_unmapped);
        strbuf_append(b, "\n");
}

static void pinned_text(struct strbuf *b, const struct page_tally *t) {
        const struct held_totals *h = &t->held;
        uint64_t unlisted = h->vm_pinned > h->pinned_listed ? h->vm_pinned - h->pinned_listed : 0;
        char sz[FORMAT_BYTES_MAX];
        format_bytes(sz, sizeof(sz), h->vm_pinned * t->base_kb * 1024);
        strbuf_printf(b, "  pinned: %" PRIu64 " pages (%s, VmPin)", h->vm_pinned, sz);
        if (h->pinned_listed) {
                strbuf_printf(b, "; %" PRIu64 " in buffers registered with io_uring, whose mappings hold ",
                              h->pinned_listed);
                held_nodes_text(b, t, t->pin_mapped, PAGE_SOURCE_SMAPS, PAGE_SOURCE_FDINFO);
                if (h->pinned_off_plan)
                        strbuf_printf(b, "; %" PRIu64 " off the plan: only a restart moves a pinned page",
                                      h->pinned_off_plan);
        }
        if (unlisted) {
                struct cpuset where = {0};
                for (int n = 0; n < NUMA_NODES_MAX; n++)
                        if (page_tally_own(t, n))
                                cpuset_set(&where, (unsigned) n);
                _cleanup_free_ char *list = cpuset_format(&where);
                strbuf_printf(b, "; %" PRIu64 " that no file places: among its resident pages, on node%s %s", unlisted,
                              cpuset_count(&where) == 1 ? "" : "s", *list ? list : "none");
        }
        strbuf_append(b, "\n");
}

char *held_report(const struct page_tally *t) {
        const struct held_totals *h = &t->held;
        struct strbuf b = {0};
        if (h->vm_locked)
                locked_text(&b, t);
        if (h->vm_pinned || h->pinned_listed)
                pinned_text(&b, t);
        return b.len ? strbuf_steal(&b) : NULL;
}
