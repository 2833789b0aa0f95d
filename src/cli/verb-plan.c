/* SPDX-License-Identifier: MIT */
/* numaplan plan: what apply would write, and why. Changes nothing. */

#include "basic/escape.h"
#include "basic/json-util.h"
#include "basic/table.h"
#include "basic/util.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "stage/inputs.h"

static json_object *node_list_json(const struct cpuset *s) {
        json_object *a = json_object_new_array();
        CPUSET_FOREACH(n, s)
                json_object_array_add(a, json_object_new_int(n));
        return a;
}

/* {"page_kb": 2048, "nodes": [{"node": 1, "pages": 512}]}, or null. */
static json_object *hugepages_json(const struct placement *pl) {
        if (pl->n_hugepages == 0)
                return NULL;
        json_object *o = json_object_new_object(), *a = json_object_new_array();
        json_object_object_add(o, "page_kb", json_uint64(pl->hugepage_kb));
        for (size_t i = 0; i < pl->n_hugepages; i++) {
                json_object *n = json_object_new_object();
                json_object_object_add(n, "node", json_object_new_int(pl->hugepages[i].node));
                json_object_object_add(n, "pages", json_uint64(pl->hugepages[i].pages));
                json_object_array_add(a, n);
        }
        json_object_object_add(o, "nodes", a);
        return o;
}

/* Its accelerators in the order of its visible devices, each rank's node and CPUs: what the drop-in
 * says in NUMAPLAN_RANK_NODES and NUMAPLAN_RANK_CPUS. */
static json_object *ranks_json(const struct topology *t, const struct placement *pl) {
        json_object *a = json_object_new_array();
        for (size_t k = 0; k < pl->n_ranks; k++) {
                const struct placement_rank *r = &pl->ranks[k];
                json_object *o = json_object_new_object();
                json_object_object_add(o, "accelerator", json_object_new_string(t->accels[r->accel].pci));
                json_object_object_add(o, "node", r->node >= 0 ? json_object_new_int(r->node) : NULL);
                json_object_object_add(o, "cpus", json_cpuset(&r->cpus));
                json_object_array_add(a, o);
        }
        return a;
}

/* The interface a replica's adapter is named by: the one its list names, else its first. */
static const char *nic_iface(const struct topology *t, const struct placement_nic *pn) {
        return pn->named ? pn->named : t->nics[pn->nic].iface;
}

/* {"mode": "auto", "adapters": [{"pci", "interface", "rdma_devices", "node", "link"}], "unresolved": []} */
static json_object *nics_json(const struct topology *t, const struct placement *pl) {
        json_object *o = json_object_new_object(), *a = json_object_new_array(), *u = json_object_new_array();

        for (size_t i = 0; i < pl->n_nics; i++) {
                const struct pci_device *n = &t->nics[pl->nics[i].nic];
                json_object *j = json_object_new_object(), *rdma = json_object_new_array();
                for (size_t r = 0; r < n->n_rdma; r++)
                        json_object_array_add(rdma, json_object_new_string(n->rdma[r].name));
                json_object_object_add(j, "pci", json_object_new_string(n->pci));
                json_object_object_add(j, "interface", json_string_or_null(nic_iface(t, &pl->nics[i])));
                json_object_object_add(j, "rdma_devices", rdma);
                json_object_object_add(j, "node", n->numa_node >= 0 ? json_object_new_int(n->numa_node) : NULL);
                json_object_object_add(j, "link", json_string_or_null(pl->nics[i].link));
                json_object_array_add(a, j);
        }
        for (size_t k = 0; pl->nic_names && pl->nic_names[k]; k++) {
                bool found = false;
                for (size_t i = 0; i < pl->n_nics && !found; i++)
                        found = pl->nics[i].named && streq(pl->nics[i].named, pl->nic_names[k]);
                if (!found)
                        json_object_array_add(u, json_object_new_string(pl->nic_names[k]));
        }
        json_object_object_add(o, "mode", json_object_new_string(nics_mode_to_string(pl->nics_mode)));
        json_object_object_add(o, "adapters", a);
        json_object_object_add(o, "unresolved", u);
        return o;
}

static json_object *plan_to_json(const struct inputs *in) {
        const struct plan *p = in->plan;
        json_object *o = json_object_new_object(), *replicas = json_object_new_array(),
                    *nodes = json_object_new_array();

        for (size_t i = 0; i < p->n_replicas; i++) {
                const struct placement *pl = &p->replicas[i];
                json_object *r = json_object_new_object(), *accels = json_object_new_array();
                _cleanup_free_ char *path = dropin_path(in->unit_dir, pl->unit),
                                    *text = dropin_render(in->topology, in->config, p, pl, &in->env);

                for (size_t j = 0; j < pl->n_accels; j++)
                        json_object_array_add(accels, json_object_new_string(in->topology->accels[pl->accels[j]].pci));
                json_object_object_add(r, "name", json_object_new_string(pl->name));
                json_object_object_add(r, "unit", json_object_new_string(pl->unit));
                json_object_object_add(r, "accelerators", accels);
                json_object_object_add(r, "nodes", node_list_json(&pl->nodes));
                json_object_object_add(r, "policy", json_object_new_string(policy_to_string(pl->policy)));
                json_object_object_add(r, "cpus", json_cpuset(&pl->cpus));
                json_object_object_add(r, "cpu_affinity",
                                       pl->cpu_affinity_numa ? json_object_new_string("numa") : json_cpuset(&pl->cpus));
                json_object_object_add(r, "memory_bytes", pl->memory ? json_uint64(pl->memory) : NULL);
                json_object_object_add(r, "model_bytes", json_uint64(pl->conf->model_bytes));
                json_object_object_add(r, "hugepages", hugepages_json(pl));
                json_object_object_add(r, "container", pl->container ? json_object_new_string(pl->container) : NULL);
                json_object_object_add(r, "nics", nics_json(in->topology, pl));
                json_object_object_add(r, "ranks", ranks_json(in->topology, pl));
                json_object *why = json_object_new_array();
                for (size_t j = 0; j < pl->n_why; j++)
                        json_object_array_add(why, json_object_new_string(pl->why[j]));
                json_object_object_add(r, "why", why);
                json_object_object_add(r, "dropin_path", json_object_new_string(path));
                json_object_object_add(r, "dropin", json_object_new_string(text));
                json_object_array_add(replicas, r);
        }
        for (size_t i = 0; i < p->n_nodes; i++) {
                json_object *n = json_object_new_object();
                json_object_object_add(n, "id", json_object_new_int(p->nodes[i].id));
                json_object_object_add(n, "usable_bytes", json_uint64(p->nodes[i].usable));
                json_object_object_add(n, "assigned_bytes", json_uint64(p->nodes[i].assigned));
                json_object_array_add(nodes, n);
        }
        json_object_object_add(o, "replicas", replicas);
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "warnings", json_warnings(&in->warnings));
        return o;
}

/* Each replica's network adapters, when any has one: then every replica, those without too. */
static void print_nics(const struct inputs *in) {
        static const char *const headers[] = {"replica", "nics", "adapters"};
        const struct plan *p = in->plan;
        const struct topology *t = in->topology;
        _cleanup_table_ struct table *tab = table_new(headers, ELEMENTSOF(headers));
        size_t rows = 0;

        for (size_t i = 0; i < p->n_replicas; i++) {
                const struct placement *pl = &p->replicas[i];
                struct strbuf b = {0};
                for (size_t j = 0; j < pl->n_nics; j++) {
                        const char *iface = nic_iface(t, &pl->nics[j]);
                        _cleanup_free_ char *shown = iface ? name_escape(iface) : NULL;
                        strbuf_printf(&b, "%s%s %s", j ? ", " : "", t->nics[pl->nics[j].nic].pci, shown ? shown : "-");
                        for (size_t r = 0; r < t->nics[pl->nics[j].nic].n_rdma; r++) {
                                _cleanup_free_ char *rd = name_escape(t->nics[pl->nics[j].nic].rdma[r].name);
                                strbuf_printf(&b, " %s", rd);
                        }
                        strbuf_printf(&b, " (%s)", pl->nics[j].link ? pl->nics[j].link : "named");
                }
                rows += pl->n_nics > 0 || pl->nic_names;
                table_add(tab, pl->name);
                table_add(tab, nics_mode_to_string(pl->nics_mode));
                table_add(tab, b.len                        ? b.s
                               : pl->nic_names              ? "none found now: resolved at the start"
                               : pl->nics_mode == NICS_AUTO ? "none on its nodes (nic-remote)"
                                                            : "-");
                strbuf_done(&b);
        }
        if (!rows)
                return;
        printf("\nnetwork adapters (nics =; their names are written for the servers at each start):\n");
        table_print(tab, stdout, "  ");
}

/* A replica's row: its accelerators, nodes, policy, CPUs and memory (with its huge pages). */
static void add_replica(struct table *tab, const struct inputs *in, const struct placement *pl) {
        struct strbuf acc = {0};
        char mem[FORMAT_BYTES_MAX];
        _cleanup_free_ char *ns = cpuset_format(&pl->nodes), *cpus = cpuset_format(&pl->cpus);

        for (size_t j = 0; j < pl->n_accels; j++) {
                const struct pci_device *a = &in->topology->accels[pl->accels[j]];
                strbuf_printf(&acc, "%s%s%s", j ? "," : "", a->pci, a->numa_node < 0 ? " (no node)" : "");
        }
        if (pl->memory)
                format_bytes(mem, sizeof(mem), pl->memory);
        else
                snprintf(mem, sizeof(mem), "-"); /* unset: no memory = and no model */
        uint64_t huge = 0;
        for (size_t j = 0; j < pl->n_hugepages; j++)
                huge += pl->hugepages[j].pages * pl->hugepage_kb * 1024;
        table_add(tab, pl->name);
        table_add(tab, pl->unit);
        table_add(tab, acc.len ? acc.s : "-");
        table_addf(tab, "%s%s", ns, pl->extended ? " (extended)" : "");
        table_add(tab, policy_to_string(pl->policy));
        table_addf(tab, "%s%s", cpus, pl->cpu_affinity_numa ? " (numa)" : "");
        if (huge) {
                char h[FORMAT_BYTES_MAX];
                format_bytes(h, sizeof(h), huge);
                table_addf(tab, "%s + %s huge", mem, h);
        } else
                table_add(tab, mem);
        strbuf_done(&acc);
}

/* Each node's memory: usable, assigned, left, and the replicas there. */
static void print_node_memory(const struct inputs *in) {
        static const char *const node_headers[] = {">node", ">usable", ">assigned", ">left", "replicas"};
        _cleanup_table_ struct table *nodes = table_new(node_headers, ELEMENTSOF(node_headers));
        const struct plan *p = in->plan;

        for (size_t i = 0; i < p->n_nodes; i++) {
                char u[FORMAT_BYTES_MAX], a[FORMAT_BYTES_MAX], l[FORMAT_BYTES_MAX];
                struct strbuf names = {0};
                format_bytes(u, sizeof(u), p->nodes[i].usable);
                format_bytes(a, sizeof(a), p->nodes[i].assigned);
                format_bytes(l, sizeof(l),
                             p->nodes[i].usable > p->nodes[i].assigned ? p->nodes[i].usable - p->nodes[i].assigned : 0);
                for (size_t j = 0; j < p->n_replicas; j++)
                        if (cpuset_isset(&p->replicas[j].nodes, p->nodes[i].id))
                                strbuf_printf(&names, "%s%s", names.len ? " " : "", p->replicas[j].name);
                table_addf(nodes, "%d", p->nodes[i].id);
                table_add(nodes, u);
                table_add(nodes, a);
                table_add(nodes, l);
                table_add(nodes, names.len ? names.s : "-");
                strbuf_done(&names);
        }
        char hr[16];
        snprintf(hr, sizeof(hr), "%u%%", in->config->headroom_bp / 100);
        printf("\nmemory per node (usable = MemTotal less %s headroom):\n", hr);
        table_print(nodes, stdout, "  ");
}

static void print_table(const struct inputs *in) {
        static const char *const headers[] = {"replica", "unit", "accelerators", "nodes", "policy", "cpus", ">memory"};
        const struct plan *p = in->plan;
        _cleanup_table_ struct table *tab = table_new(headers, ELEMENTSOF(headers));
        const char *sources = config_sources(in->config);

        /* With no file, `sources` already says "the built-in default". */
        printf("plan from %s%s\n\n", sources,
               !in->config->builtin_default ? ""
               : in->config->files[0]       ? " (no replica section: the built-in default, one replica per compute "
                                              "accelerator, or per node)"
                                            : ": one replica per compute accelerator, or per node");
        for (size_t i = 0; i < p->n_replicas; i++)
                add_replica(tab, in, &p->replicas[i]);
        if (p->n_replicas)
                table_print(tab, stdout, NULL);
        else
                printf("no replicas: nothing to place\n");
        print_node_memory(in);
        print_nics(in);
        print_warnings(&in->warnings, "\n", NULL);
        for (size_t i = 0; i < p->n_replicas; i++) {
                _cleanup_free_ char *path = dropin_path(in->unit_dir, p->replicas[i].unit),
                                    *text = dropin_render(in->topology, in->config, p, &p->replicas[i], &in->env);
                printf("\n%s\n%s", path, text);
        }
}

struct plan_args {
        const char *config;
        bool json;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct plan_args),
        VERB_FLAG("json", 0, struct plan_args, json, "one JSON document on stdout (numaplan(8) lists its keys)"),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct plan_args *a = args;
        _cleanup_inputs_ struct inputs in = {0};

        (void) argc;
        (void) argv;
        int r = inputs_load(g, a->config, false, INPUTS_NAMED, &in);
        if (r != EXIT_OK)
                return r;
        if (a->json) {
                _cleanup_json_ json_object *o = plan_to_json(&in);
                json_print(o);
        } else
                print_table(&in);
        return EXIT_OK;
}

const struct verb verb_plan = {
        .name = "plan",
        .rank = 20,
        .pages = true,
        .summary = "placement and drop-in text; changes nothing",
        .options = options,
        .args_size = sizeof(struct plan_args),
        .max_args = 0,
        .run = run,
        .usage = "numaplan plan [-c FILE] [--json]",
        .description = "Place every replica of the configuration on this host and print the placement\n"
                       "(replica, unit, accelerators, nodes, policy, CPUs, memory against what each node can\n"
                       "hold) and each drop-in apply would write. Changes nothing.",
};
