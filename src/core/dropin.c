/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/cpu-split.h"
#include "core/dropin.h"
#include "core/ranks.h"

/* "accelerator 0000:3b:00.0 on node 1", "accelerators A, B on nodes 0-1", "CPU-only on node 0";
 * an accelerator without a node is said to be one, as show and the warnings say it. */
static void describe_accelerators(const struct topology *t, const struct placement *pl, struct strbuf *b) {
        struct cpuset nodes = {0};
        size_t with = 0, without = 0;

        for (size_t j = 0; j < pl->n_accels; j++) {
                const struct pci_device *a = &t->accels[pl->accels[j]];
                if (a->numa_node >= 0)
                        cpuset_set(&nodes, (unsigned) a->numa_node), with++;
                else
                        without++;
        }
        if (with) {
                strbuf_append(b, with > 1 ? "accelerators " : "accelerator ");
                for (size_t j = 0, k = 0; j < pl->n_accels; j++) {
                        const struct pci_device *a = &t->accels[pl->accels[j]];
                        if (a->numa_node >= 0)
                                strbuf_join(b, k++ ? ", " : "", a->pci);
                }
                _cleanup_free_ char *h = cpuset_format(&nodes);
                strbuf_join(b, cpuset_count(&nodes) > 1 ? " on nodes " : " on node ", h);
        }
        if (without) {
                strbuf_printf(b, "%saccelerator%s ", with ? "; " : "", without > 1 ? "s" : "");
                for (size_t j = 0, k = 0; j < pl->n_accels; j++) {
                        const struct pci_device *a = &t->accels[pl->accels[j]];
                        if (a->numa_node < 0)
                                strbuf_printf(b, "%s%s", k++ ? ", " : "", a->pci);
                }
                strbuf_printf(b, " with no NUMA node");
        }
        if (!with) {
                _cleanup_free_ char *h = cpuset_format(&pl->home);
                strbuf_printf(b, "%sCPU-only on node%s %s", without ? ": " : "", cpuset_count(&pl->home) > 1 ? "s" : "",
                              *h ? h : "-");
        }
}

static void describe_memory(const struct plan *p, const struct placement *pl, struct strbuf *b) {
        char mem[FORMAT_BYTES_MAX], usable[FORMAT_BYTES_MAX];
        _cleanup_free_ char *nodes = cpuset_format(&pl->nodes);

        /* No memory = (nor a model to size it by): nothing reserved, which "0 B" would misstate. */
        if (pl->memory == 0)
                snprintf(mem, sizeof(mem), "no memory set,");
        else
                format_bytes(mem, sizeof(mem), pl->memory);
        if (cpuset_count(&pl->nodes) == 1) {
                const struct plan_node *n = plan_node(p, cpuset_next(&pl->nodes, 0));
                format_bytes(usable, sizeof(usable), n ? n->usable : 0);
                strbuf_join(b, mem, pl->memory ? " of " : " and ", usable, " usable on node ", nodes);
        } else {
                strbuf_printf(b, "%s %s over nodes %s (usable:", mem,
                              pl->policy == POLICY_INTERLEAVE ? "interleaved" : "bound", nodes);
                CPUSET_FOREACH(id, &pl->nodes) {
                        const struct plan_node *n = plan_node(p, id);
                        format_bytes(usable, sizeof(usable), n ? n->usable : 0);
                        strbuf_printf(b, " node %d %s", id, usable);
                }
                strbuf_append(b, ")");
        }
        if (pl->extended)
                strbuf_append(b, "; extended beyond its home, which could not hold it");
}

/* A double-quoted word of a unit file: systemd's specifiers (%) doubled, and variables ($) too
 * where `doubled` has them; quotes and backslashes escaped; and any control byte, or byte of no
 * UTF-8 sequence, as systemd's C escape \xNN, which it takes back inside quotes: such a byte
 * written as it is would end the line (a carriage return) or have systemd ignore the line. The
 * configuration refuses them in its values; this holds for any path. `specifier` (may be NULL)
 * follows as it is, for systemd to expand. */
static void quoted(struct strbuf *b, const char *s, const char *doubled, const char *specifier) {
        strbuf_putc(b, '"');
        for (const char *bad = find_unsafe(s, NULL); *s; s++) {
                if (bad && s == bad) {
                        strbuf_printf(b, "\\x%02x", (unsigned char) *s);
                        bad = find_unsafe(s + 1, NULL);
                        continue;
                }
                if (strchr(doubled, *s))
                        strbuf_putc(b, *s);
                else if (*s == '"' || *s == '\\')
                        strbuf_putc(b, '\\');
                strbuf_putc(b, *s);
        }
        strbuf_printf(b, "%s\"", strempty(specifier));
}

/* A word of a systemd command line, taken as it is. */
static void command_word(struct strbuf *b, const char *s, bool first) {
        if (!first)
                strbuf_putc(b, ' ');
        quoted(b, s, "%$", NULL);
}

/* A double-quoted Environment= assignment, so that any path arrives as it is. */
static void environment_word(struct strbuf *b, const char *key, const char *value) {
        _cleanup_free_ char *word = xasprintf("%s=%s", key, value);
        quoted(b, word, "%", NULL);
}

/* model-copies = per-node: the file prepare writes NUMAPLAN_MODEL into for this unit (%n) once it
 * knows whether the copy is whole, which systemd reads for the server after prepare ran. */
#define MODEL_ENV_DIR "/.env/"

/* A path as the value of a setting that takes one unquoted (AssertPathExists=, EnvironmentFile=):
 * its specifiers' signs doubled, so that it is taken as it is. */
static void path_value(struct strbuf *b, const char *path) {
        for (const char *s = path; *s; s++) {
                if (*s == '%')
                        strbuf_putc(b, '%');
                strbuf_putc(b, *s);
        }
}

static void prepare_command(struct strbuf *b, const struct placement *pl, const struct dropin_env *env,
                            const char *nodes, const char *nics) {
        /* '+': as root, even for a unit with User=; '-': a page that will not move is a line in the
         * journal, never a failed start. */
        strbuf_append(b, "ExecStartPre=-+");
        command_word(b, env->exe, true);
        /* Ranks on several nodes each read their share of the model: spread it evenly over them. */
        struct cpuset spread = ranks_nodes(pl);
        cpuset_and(&spread, &pl->nodes);
        bool spreads = pl->conf->models && !pl->copies && cpuset_count(&spread) > 1;
        _cleanup_free_ char *over = spreads ? cpuset_format(&spread) : NULL;
        strbuf_printf(b, " prepare --nodes %s%s", spreads ? over : nodes, spreads ? " --spread" : "");
        if (pl->copies) {
                _cleanup_free_ char *dir = xasprintf("%s/%s", env->models, pl->copies),
                                    *envdir = xasprintf("%s" MODEL_ENV_DIR, env->models);
                strbuf_append(b, " --copy-to ");
                quoted(b, dir, "%$", NULL);
                strbuf_printf(b, " --copy-size %" PRIu64 " --env-file ", pl->copies_bytes);
                quoted(b, envdir, "%$", "%n");
        }
        if (nics) {
                _cleanup_free_ char *dir = xasprintf("%s/", env->nics);
                strbuf_append(b, " --nics ");
                quoted(b, nics, "%$", NULL);
                strbuf_append(b, " --nics-env ");
                quoted(b, dir, "%$", "%n");
        }
        if (pl->conf->models)
                strbuf_append(b, " --");
        for (char **m = pl->conf->models; m && *m; m++)
                command_word(b, *m, false);
        strbuf_append(b, "\n");
}

/* A replica of several accelerators runs a worker a device: each one's node and CPUs, in the order
 * its engine numbers the devices (core/ranks.h), for the worker to bind itself to. */
static void rank_environment(struct strbuf *b, const struct placement *pl) {
        if (pl->n_ranks < 2)
                return;
        _cleanup_free_ char *nodes = ranks_nodes_text(pl), *cpus = ranks_cpus_text(pl);
        strbuf_join(b, "Environment=NUMAPLAN_RANK_NODES=", nodes, " NUMAPLAN_RANK_CPUS=", cpus, "\n");
}

/* The first line of every drop-in apply writes: whose it is, and from which files. */
static void header(struct strbuf *b, const struct config *c) {
        strbuf_join(b, DROPIN_HEADER " from ", config_sources(c), ". Do not edit: run numaplan apply.\n");
}

char *dropin_render(const struct topology *t, const struct config *c, const struct plan *p, const struct placement *pl,
                    const struct dropin_env *env) {
        struct strbuf b = {0};
        _cleanup_free_ char *nodes = cpuset_format(&pl->nodes), *cpus = cpuset_format(&pl->cpus);

        char ncpus_buf[DECIMAL_MAX], ncores_buf[DECIMAL_MAX];
        const char *ncpus = format_uint(ncpus_buf, pl->n_cpus), *ncores = format_uint(ncores_buf, pl->n_cores);

        /* Joined, not printf()'d: plan and apply write a drop-in per replica. */
        header(&b, c);
        strbuf_join(&b, "# replica ", pl->name, ": ");
        describe_accelerators(t, pl, &b);
        strbuf_append(&b, "; ");
        describe_memory(p, pl, &b);
        strbuf_append(&b, env->marker_blocks ? "\n[Unit]\nAfter=numaplan.service\nAssertPathExists=!"
                                             : "\n[Unit]\nAfter=numaplan.service\nAssertPathExists=");
        path_value(&b, env->marker);
        strbuf_append(&b, "\n\n[Service]\n");
        strbuf_join(&b, "NUMAPolicy=", policy_to_string(pl->policy), "\nNUMAMask=", nodes, "\n");
        strbuf_join(&b, "CPUAffinity=", pl->cpu_affinity_numa ? "numa" : cpus, "\nAllowedCPUs=", cpus, "\n");
        if (pl->policy != POLICY_PREFERRED) /* preferred lets the kernel fall back: no hard limit */
                strbuf_join(&b, "AllowedMemoryNodes=", nodes, "\n");
        if (pl->environment)
                strbuf_join(&b, "Environment=", pl->environment, "\n");
        /* For the commands that place a server elsewhere (docker run --cpuset-cpus=${NUMAPLAN_CPUS})
         * and the servers' thread counts (llama-server --threads ${NUMAPLAN_NCORES}). */
        strbuf_join(&b, "Environment=NUMAPLAN_CPUS=", cpus, " NUMAPLAN_MEMS=", nodes, " NUMAPLAN_NCPUS=", ncpus,
                    " NUMAPLAN_NCORES=", ncores, "\n");
        cpu_kinds_best_environment(&b, t, &pl->cpus); /* for engines that pin their hot threads */
        rank_environment(&b, pl);
        if (pl->conf->openmp) /* one thread a physical core, each kept on its own */
                strbuf_join(&b, "Environment=OMP_NUM_THREADS=", ncores, " OMP_PROC_BIND=close OMP_PLACES=cores\n");
        _cleanup_free_ char *model = dropin_model_path(pl, env);
        if (model) {
                strbuf_append(&b, "Environment=");
                environment_word(&b, "NUMAPLAN_MODEL", model);
                strbuf_append(&b, "\n");
        }
        if (model && pl->copies) {
                strbuf_append(&b, "EnvironmentFile=-");
                path_value(&b, env->models);
                strbuf_append(&b, MODEL_ENV_DIR "%n\n");
        }
        _cleanup_free_ char *nics = env->exe && env->nics ? dropin_nic_items(t, pl) : NULL;
        if (nics) {
                /* Written by prepare at each start, once drivers and udev have named the adapters. */
                strbuf_append(&b, "EnvironmentFile=-");
                path_value(&b, env->nics);
                strbuf_append(&b, "/%n\n");
        }
        if ((pl->conf->models || nics) && env->exe)
                prepare_command(&b, pl, env, nodes, nics);
        return strbuf_steal(&b);
}

bool dropin_runs_prepare(const struct topology *t, const struct placement *pl, const struct dropin_env *env) {
        if (!env->exe)
                return false;
        if (pl->conf->models)
                return true;
        _cleanup_free_ char *nics = env->nics ? dropin_nic_items(t, pl) : NULL;
        return nics != NULL;
}

char *dropin_model_path(const struct placement *pl, const struct dropin_env *env) {
        if (!pl->conf->models || !pl->conf->models[0])
                return NULL;
        if (!pl->copies)
                return xstrdup(pl->conf->models[0]);
        return xasprintf("%s/%s%s", env->models, pl->copies, pl->conf->models[0]);
}

char *dropin_nic_items(const struct topology *t, const struct placement *pl) {
        struct strbuf b = {0};

        if (pl->nics_mode == NICS_LIST)
                for (size_t i = 0; pl->nic_names && pl->nic_names[i]; i++)
                        strbuf_printf(&b, "%s%s", i ? "," : "", pl->nic_names[i]);
        else
                for (size_t i = 0; i < pl->n_nics; i++)
                        strbuf_printf(&b, "%s%s", i ? "," : "", t->nics[pl->nics[i].nic].pci);
        return b.len ? strbuf_steal(&b) : NULL;
}

char *dropin_path(const char *unit_dir, const char *unit) {
        return xasprintf("%s/%s.d/" DROPIN_NAME, unit_dir, unit);
}

/* "# 0000:42:00.0 (replicas llama-0, llama-1): IRQs 45-47 on CPUs 2-3" */
static void describe_target(struct strbuf *b, const struct irq_target *t) {
        _cleanup_free_ char *irqs = device_irqs_format(&t->dev->irqs), *cpus = cpuset_format(&t->cpus);
        strbuf_printf(b, "# %s (replica%s %s): IRQ%s %s on CPUs %s\n", t->dev->pci, strchr(t->replicas, ',') ? "s" : "",
                      t->replicas, t->dev->irqs.n > 1 ? "s" : "", irqs, cpus);
}

char *dropin_render_irqbalance(const struct irq_targets *t, const struct config *c, const char *exe) {
        struct strbuf b = {0};
        size_t n = 0;

        for (size_t i = 0; i < t->n; i++)
                n += t->v[i].dev->irqs.n;
        _cleanup_free_ unsigned *banned = xmalloc0((n + 1) * sizeof(*banned));
        n = 0;
        for (size_t i = 0; i < t->n; i++)
                for (size_t k = 0; k < t->v[i].dev->irqs.n; k++)
                        banned[n++] = t->v[i].dev->irqs.v[k].irq;
        n = irq_numbers_unique(banned, n); /* by number, once each */
        if (n == 0)
                return NULL;
        header(&b, c);
        strbuf_append(&b, "# irqbalance leaves alone the interrupts numaplan steers (irq-affinity = yes), by their "
                          "numbers at this boot:\n");
        for (size_t i = 0; i < t->n; i++)
                if (t->v[i].dev->irqs.n)
                        describe_target(&b, &t->v[i]);
        strbuf_append(&b, "[Service]\nExecStart=\nExecStart=");
        command_word(&b, exe, true);
        strbuf_append(&b, " --foreground $IRQBALANCE_ARGS");
        for (size_t k = 0; k < n; k++)
                strbuf_printf(&b, " --banirq=%u", banned[k]);
        strbuf_append(&b, "\n");
        return strbuf_steal(&b);
}
