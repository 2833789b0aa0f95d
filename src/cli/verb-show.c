/* SPDX-License-Identifier: MIT */
/* numaplan show: the host as numaplan sees it, in the spirit of `numactl --hardware` and
 * `nvidia-smi topo -m`. */

#include <inttypes.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/table.h"
#include "basic/util.h"
#include "cli/inputs.h"
#include "cli/output.h"
#include "core/config.h"
#include "core/topology.h"
#include "host/config-files.h"

static void help(void) {
        printf("Usage: numaplan show [-c FILE] [--json]\n\n"
               "Print the NUMA nodes (CPUs, physical cores, memory, distances), the PCI accelerators\n"
               "with the node that owns each and where that answer came from, and warnings about\n"
               "what hurts pinning on this host. The configuration's accelerator-nodes apply.\n\n"
               "  -c, --config FILE   read FILE instead of " CONFIG_FILE " and " CONFIG_DROPIN_DIR "/\n"
               "      --json          one JSON document on stdout (numaplan(8) lists its keys)\n");
}

static json_object *node_json(const struct topology *t, const struct node *n) {
        json_object *o = json_object_new_object(), *d = json_object_new_object();

        json_object_object_add(o, "id", json_object_new_int(n->id));
        json_object_object_add(o, "cpus", json_cpuset(&n->cpus));
        json_object_object_add(o, "memory_total_bytes", json_uint64(n->mem_total));
        json_object_object_add(o, "memory_free_bytes", json_uint64(n->mem_free));
        if (n->distances)
                for (size_t j = 0; j < t->n_nodes; j++) {
                        char key[16];
                        snprintf(key, sizeof(key), "%d", t->nodes[j].id);
                        json_object_object_add(d, key, json_object_new_int(n->distances[j]));
                }
        json_object_object_add(o, "distances", d);
        json_object_object_add(o, "kind", json_object_new_string(node_kind_to_string(n->kind)));
        json_object_object_add(o, "cores", json_object_new_int((int) n->cores));
        return o;
}

static json_object *accel_json(const struct accelerator *a) {
        json_object *o = json_object_new_object();
        char buf[16];

        json_object_object_add(o, "pci", json_object_new_string(a->pci));
        snprintf(buf, sizeof(buf), "0x%04x", a->vendor);
        json_object_object_add(o, "vendor", a->ids_known ? json_object_new_string(buf) : NULL);
        snprintf(buf, sizeof(buf), "0x%04x", a->device);
        json_object_object_add(o, "device", a->ids_known ? json_object_new_string(buf) : NULL);
        snprintf(buf, sizeof(buf), "0x%06x", a->class);
        json_object_object_add(o, "class", json_object_new_string(buf));
        json_object_object_add(o, "name", json_string_or_null(a->name));
        json_object_object_add(o, "numa_node", a->numa_node >= 0 ? json_object_new_int(a->numa_node) : NULL);
        json_object_object_add(o, "numa_source", json_object_new_string(numa_source_to_string(a->numa_source)));
        json_object_object_add(o, "local_cpus", a->has_local_cpus ? json_cpuset(&a->local_cpus) : NULL);
        json_object_object_add(o, "compute", json_object_new_boolean(a->compute));
        return o;
}

static void print_json(const struct topology *t, const struct warnings *w) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *nodes = json_object_new_array(), *accels = json_object_new_array();

        for (size_t i = 0; i < t->n_nodes; i++)
                json_object_array_add(nodes, node_json(t, &t->nodes[i]));
        for (size_t i = 0; i < t->n_accels; i++)
                json_object_array_add(accels, accel_json(&t->accels[i]));
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "accelerators", accels);
        json_object_object_add(o, "warnings", json_warnings(w));
        json_print(o);
}

/* The sockets a node's CPUs sit in, as a list ("0", "0-1"), or "-" when unknown. */
static char *node_sockets(const struct topology *t, const struct node *n) {
        struct cpuset s = {0};
        CPUSET_FOREACH(c, &n->cpus)
                if (t->socket_of[c] >= 0)
                        cpuset_set(&s, (unsigned) t->socket_of[c]);
        return cpuset_is_empty(&s) ? xstrdup("-") : cpuset_format(&s);
}

static void print_nodes(const struct topology *t) {
        static const char *const headers[] = {">node", "kind", "cpus", ">cores", "socket", ">memory", ">free", "huge pages"};
        _cleanup_table_ struct table *tab = table_new(headers, ELEMENTSOF(headers));
        unsigned cores = 0;

        for (size_t i = 0; i < t->n_nodes; i++) {
                const struct node *n = &t->nodes[i];
                _cleanup_free_ char *cpus = cpuset_format(&n->cpus), *sockets = node_sockets(t, n);
                char total[FORMAT_BYTES_MAX], free_[FORMAT_BYTES_MAX];
                struct strbuf hp = {0};

                format_bytes(total, sizeof(total), n->mem_total);
                format_bytes(free_, sizeof(free_), n->mem_free);
                for (size_t j = 0; j < n->n_hugepages; j++)
                        strbuf_printf(&hp, "%s%" PRIu64 "kB %" PRIu64 "/%" PRIu64, j ? ", " : "",
                                      n->hugepages[j].page_kb, n->hugepages[j].free, n->hugepages[j].total);
                table_addf(tab, "%d", n->id);
                table_add(tab, node_kind_to_string(n->kind));
                table_add(tab, *cpus ? cpus : "-");
                table_addf(tab, "%u", n->cores);
                table_add(tab, sockets);
                table_add(tab, total);
                table_add(tab, free_);
                table_add(tab, hp.len ? hp.s : "-");
                strbuf_done(&hp);
                cores += n->cores;
        }

        _cleanup_free_ char *online = cpuset_format(&t->online_cpus);
        printf("%zu NUMA node%s, %u CPUs online (%s), %u physical cores%s\n\n", t->n_nodes,
               t->n_nodes == 1 ? "" : "s", cpuset_count(&t->online_cpus), online, cores,
               t->has_node_dirs ? "" : "; no NUMA in this kernel");
        table_print(tab, stdout, NULL);
}

static void print_distances(const struct topology *t) {
        if (!t->has_node_dirs)
                return;
        printf("\nnode distances:\n");
        printf("%6s", "node");
        for (size_t j = 0; j < t->n_nodes; j++)
                printf(" %4d", t->nodes[j].id);
        putchar('\n');
        for (size_t i = 0; i < t->n_nodes; i++) {
                printf("%5d:", t->nodes[i].id);
                for (size_t j = 0; j < t->n_nodes; j++)
                        if (t->nodes[i].distances)
                                printf(" %4d", t->nodes[i].distances[j]);
                        else
                                printf(" %4s", "-");
                putchar('\n');
        }
}

static void print_accelerators(const struct topology *t) {
        static const char *const headers[] = {"pci", ">node", "from", "local cpus", "class", "compute", "name"};
        _cleanup_table_ struct table *tab = table_new(headers, ELEMENTSOF(headers));

        printf("\naccelerators:\n");
        if (t->n_accels == 0) {
                printf("  none (no PCI display, 3D, processing accelerator or co-processor devices)\n");
                return;
        }
        for (size_t i = 0; i < t->n_accels; i++) {
                const struct accelerator *a = &t->accels[i];
                _cleanup_free_ char *lc = a->has_local_cpus ? cpuset_format(&a->local_cpus) : xstrdup("-");

                table_add(tab, a->pci);
                if (a->numa_node >= 0)
                        table_addf(tab, "%d", a->numa_node);
                else
                        table_add(tab, "-");
                table_add(tab, numa_source_to_string(a->numa_source));
                table_add(tab, lc);
                table_addf(tab, "0x%06x", a->class);
                table_add(tab, a->compute ? "yes" : "no");
                if (a->name)
                        table_add(tab, a->name);
                else if (a->ids_known)
                        table_addf(tab, "[%04x:%04x]", a->vendor, a->device);
                else
                        table_add(tab, "(vendor and device unreadable)");
        }
        table_print(tab, stdout, "  ");
}

struct show_args {
        const char *config;
        bool json;
};

static const struct verb_option options[] = {
        VERB_VALUE("config", 'c', struct show_args, config),
        VERB_FLAG("json", 0, struct show_args, json),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct show_args *a = args;
        _cleanup_config_ struct config *c = NULL;
        struct inputs in = {0};

        (void) argc;
        (void) argv;
        /* accelerator-nodes from the configuration: `show` is about the host, so a configuration
         * that does not load costs the overrides, with a warning, not the command. */
        if (config_load(a->config, &c) < 0)
                log_warning("configuration not used: accelerator-nodes left out");
        int r = inputs_host(g, INPUTS_NAMES, c, &in);
        if (r == EXIT_ENV) {
                inputs_done(&in);
                return r;
        }

        if (a->json)
                print_json(in.topology, &in.warnings);
        else {
                print_nodes(in.topology);
                print_distances(in.topology);
                print_accelerators(in.topology);
                print_warnings(&in.warnings, "\nwarnings:\n", "  ");
        }
        inputs_done(&in);
        return EXIT_OK;
}

const struct verb verb_show = {
        .name = "show",
        .summary = "topology, accelerators, warnings",
        .options = options,
        .args_size = sizeof(struct show_args),
        .max_args = 0,
        .run = run,
        .help = help,
};
