/* SPDX-License-Identifier: MIT */
/* numaplan show: the host as numaplan sees it, in the spirit of `numactl --hardware` and
 * `nvidia-smi topo -m`. */

#include <inttypes.h>

#include "basic/escape.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/table.h"
#include "basic/util.h"
#include "cli/output.h"
#include "cli/tuning-output.h"
#include "cli/verbs.h"
#include "core/config.h"
#include "core/irq-list.h"
#include "core/memory-kind.h"
#include "core/pci.h"
#include "core/topology.h"
#include "host/config-files.h"
#include "stage/inputs.h"

/* {"read": N, "write": N}, or null when neither is known. */
static json_object *read_write_json(uint64_t read, uint64_t write) {
        if (!read && !write)
                return NULL;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "read", read ? json_uint64(read) : NULL);
        json_object_object_add(o, "write", write ? json_uint64(write) : NULL);
        return o;
}

/* What the node's memory is: hwloc's kind and tier, the kernel's tier, HMAT's figures. */
static void node_memory_json(const struct node_memory *m, json_object *o) {
        const char *kind = memory_kind_name(m->kinds);
        json_object_object_add(o, "memory_kind", json_string_or_null(kind));
        json_object_object_add(o, "accelerator", json_string_or_null(m->owner_pci));
        json_object_object_add(o, "memory_tier", m->tier >= 0 ? json_object_new_int(m->tier) : NULL);
        json_object_object_add(o, "kernel_memory_tier",
                               m->kernel_tier >= 0 ? json_object_new_int(m->kernel_tier) : NULL);
        json_object_object_add(o, "bandwidth", read_write_json(m->read_bandwidth, m->write_bandwidth));
        json_object_object_add(o, "latency", read_write_json(m->read_latency, m->write_latency));
}

/* The sockets (physical packages) a node's CPUs sit in; false when none of its CPUs' is known. */
static bool node_sockets(const struct topology *t, const struct node *n, struct cpuset *ret) {
        cpuset_clear(ret);
        CPUSET_FOREACH(c, &n->cpus)
                if (t->socket_of[c] >= 0)
                        cpuset_set(ret, (unsigned) t->socket_of[c]);
        return !cpuset_is_empty(ret);
}

/* [0], [0, 1]; [] for a node without CPUs, null when its CPUs' sockets are unknown. */
static json_object *sockets_json(const struct topology *t, const struct node *n) {
        struct cpuset s;
        if (!node_sockets(t, n, &s))
                return cpuset_is_empty(&n->cpus) ? json_object_new_array() : NULL;
        json_object *a = json_object_new_array();
        CPUSET_FOREACH(id, &s)
                json_object_array_add(a, json_object_new_int((int) id));
        return a;
}

/* What told numaplan a kind apart: each sysfs attribute (below a CPU's directory, or Intel's PMU
 * file) and its value as the kernel writes it. */
static json_object *kind_source_json(const struct cpu_kinds *k, const struct cpu_kind *x) {
        json_object *o = json_object_new_object();
        char midr[32];
        if (x->by & KIND_BY_MIDR) {
                snprintf(midr, sizeof(midr), "0x%016" PRIx64, x->midr);
                json_object_object_add(o, "regs/identification/midr_el1", json_object_new_string(midr));
        }
        if (x->by & KIND_BY_CAPACITY)
                json_object_object_add(o, "cpu_capacity", json_uint64(x->capacity));
        if (x->by & KIND_BY_MAX_FREQ)
                json_object_object_add(o, "cpufreq/cpuinfo_max_freq", json_uint64(x->max_khz));
        if (x->by & KIND_BY_BASE_FREQ)
                json_object_object_add(o, k->base_from_cppc ? "acpi_cppc/nominal_freq" : "cpufreq/base_frequency",
                                       json_uint64(k->base_from_cppc ? x->base_khz / 1000 : x->base_khz));
        if (x->by & KIND_BY_CORE_TYPE) {
                static const char *const pmu[] = {[CORE_TYPE_LOWPOWER] = "/sys/devices/cpu_lowpower/cpus",
                                                  [CORE_TYPE_ATOM] = "/sys/devices/cpu_atom/cpus",
                                                  [CORE_TYPE_CORE] = "/sys/devices/cpu_core/cpus"};
                json_object_object_add(o, pmu[x->core_type], json_object_new_boolean(true));
        }
        return o;
}

/* A node's share of each CPU kind, most capable first (or in hwloc's order, unranked). */
static json_object *node_kinds_json(const struct topology *t, const struct node *n) {
        json_object *a = json_object_new_array();
        const char *ranked = kinds_ranking_to_string(t->kinds.ranked_by);
        for (size_t i = 0; i < t->kinds.n; i++) {
                struct cpuset part = t->kinds.v[i].cpus;
                cpuset_and(&part, &n->cpus);
                if (cpuset_is_empty(&part))
                        continue;
                json_object *o = json_object_new_object();
                json_object_object_add(o, "cpus", json_cpuset(&part));
                json_object_object_add(o, "kind", json_object_new_int((int) i));
                json_object_object_add(o, "ranked_by", t->kinds.n > 1 ? json_string_or_null(ranked) : NULL);
                json_object_object_add(o, "source", kind_source_json(&t->kinds, &t->kinds.v[i]));
                json_object_array_add(a, o);
        }
        return a;
}

/* The node's part of each L3 cache: an L3 across nodes is listed on each. */
static json_object *node_l3_json(const struct topology *t, const struct node *n) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < t->n_l3; i++) {
                struct cpuset part = t->l3[i].cpus;
                cpuset_and(&part, &n->cpus);
                if (cpuset_is_empty(&part))
                        continue;
                json_object *o = json_object_new_object();
                json_object_object_add(o, "cpus", json_cpuset(&part));
                json_object_object_add(o, "size_bytes", t->l3[i].size_bytes ? json_uint64(t->l3[i].size_bytes) : NULL);
                json_object_array_add(a, o);
        }
        return a;
}

/* ids: every node's id, in the order of t->nodes (the keys of each node's distances). */
static json_object *node_json(const struct topology *t, const struct node *n, const int *ids) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "id", json_object_new_int(n->id));
        json_object_object_add(o, "cpus", json_cpuset(&n->cpus));
        json_object_object_add(o, "sockets", sockets_json(t, n));
        /* Memory that could not be read is unknown, not 0. */
        json_object_object_add(o, "memory_total_bytes", n->memory_known ? json_uint64(n->mem_total) : NULL);
        json_object_object_add(o, "memory_free_bytes", n->memory_known ? json_uint64(n->mem_free) : NULL);
        /* One object a row, not one a pair: a million at 1,024 nodes. */
        json_object_object_add(o, "distances", json_int_members(ids, n->distances, n->distances ? t->n_nodes : 0));
        json_object_object_add(
                o, "kind", n->kind == NODE_KIND_UNKNOWN ? NULL : json_object_new_string(node_kind_to_string(n->kind)));
        json_object_object_add(o, "cores", json_object_new_int((int) n->cores));
        json_object *hp = json_object_new_array();
        for (size_t j = 0; j < n->n_hugepages; j++) {
                json_object *p = json_object_new_object();
                json_object_object_add(p, "size_kb", json_uint64(n->hugepages[j].page_kb));
                json_object_object_add(p, "total", json_uint64(n->hugepages[j].total));
                json_object_object_add(p, "free", json_uint64(n->hugepages[j].free));
                json_object_array_add(hp, p);
        }
        json_object_object_add(o, "hugepages", hp);
        node_memory_json(&n->memory, o);
        json_object_object_add(o, "cpu_kinds", node_kinds_json(t, n));
        json_object_object_add(o, "l3", node_l3_json(t, n));
        return o;
}

/* The nodes that are an accelerator's own memory (GPU memory the driver onlined). */
static bool node_of_accel(const struct topology *t, const struct node *n, const struct pci_device *a) {
        return (n->memory.kinds & MEMORY_GPU) && n->memory.accelerator >= 0 &&
               (size_t) n->memory.accelerator < t->n_accels && &t->accels[n->memory.accelerator] == a;
}

/* A network adapter's interfaces, RDMA devices, and path to each compute accelerator. */
static void nic_json(const struct topology *t, const struct pci_device *a, json_object *o) {
        json_object *ifaces = json_object_new_array(), *rdma = json_object_new_array(),
                    *dist = json_object_new_object();

        for (size_t i = 0; i < a->n_ifaces; i++)
                json_object_array_add(ifaces, json_object_new_string(a->ifaces[i].name));
        for (size_t i = 0; i < a->n_rdma; i++) {
                json_object *r = json_object_new_object(), *ports = json_object_new_array();
                for (size_t p = 0; p < a->rdma[i].n_ports; p++)
                        json_object_array_add(ports, json_object_new_int((int) a->rdma[i].ports[p]));
                json_object_object_add(r, "name", json_object_new_string(a->rdma[i].name));
                json_object_object_add(r, "ports", ports);
                json_object_object_add(r, "via", json_object_new_string(a->rdma[i].via_netdev ? "netdev" : "device"));
                json_object_array_add(rdma, r);
        }
        for (size_t i = 0; i < t->n_accels; i++)
                if (t->accels[i].compute) {
                        const char *l = pci_link(&t->accels[i], a);
                        json_object_object_add(dist, t->accels[i].pci, l ? json_object_new_string(l) : NULL);
                }
        json_object_object_add(o, "interfaces", ifaces);
        json_object_object_add(o, "rdma_devices", rdma);
        json_object_object_add(o, "virtual_function", json_object_new_boolean(a->virtual_function));
        json_object_object_add(o, "pcie_distance", dist);
}

/* [{"irq", "kind", "affinity", "effective"}], or null when the device's files do not say. */
static json_object *irqs_json(const struct device_irqs *d) {
        if (!d->known)
                return NULL;
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < d->n; i++) {
                const struct device_irq *q = &d->v[i];
                json_object *o = json_object_new_object();
                json_object_object_add(o, "irq", json_object_new_int64(q->irq));
                json_object_object_add(o, "kind", json_object_new_string(d->msi ? "msi" : "line"));
                json_object_object_add(o, "affinity", q->has_affinity ? json_cpuset(&q->affinity) : NULL);
                json_object_object_add(o, "effective", q->has_effective ? json_cpuset(&q->effective) : NULL);
                json_object_array_add(a, o);
        }
        return a;
}

/* {"running", "pid"}, or null when the root shows no process. */
static json_object *irqbalance_json(int pid) {
        if (pid == 0)
                return NULL;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "running", json_object_new_boolean(pid > 0));
        json_object_object_add(o, "pid", pid > 0 ? json_object_new_int(pid) : NULL);
        return o;
}

static json_object *accel_json(const struct topology *t, const struct pci_device *a) {
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
        json_object_object_add(o, "local_cpus", a->local_cpus ? json_cpuset(a->local_cpus) : NULL);
        if (a->kind == PCI_ACCELERATOR) {
                json_object_object_add(o, "compute", json_object_new_boolean(a->compute));
                json_object_object_add(o, "index", a->index >= 0 ? json_object_new_int(a->index) : NULL);
                json_object *mem = json_object_new_array();
                for (size_t i = 0; i < t->n_nodes; i++)
                        if (node_of_accel(t, &t->nodes[i], a))
                                json_object_array_add(mem, json_object_new_int(t->nodes[i].id));
                json_object_object_add(o, "memory_nodes", mem);
        } else
                json_object_object_add(o, "interface", json_string_or_null(a->iface));
        if (a->kind != PCI_STORAGE) {
                json_object_object_add(o, "pcie", pcie_json(&a->pcie));
                json_object_object_add(o, "interrupts", irqs_json(&a->irqs));
        }
        if (a->kind == PCI_NIC)
                nic_json(t, a, o);
        return o;
}

/* The PCI addresses given on the command line, canonical; NULL for all. */
struct filter {
        char **pci;
        size_t n;
};

static bool shown(const struct filter *f, const struct pci_device *a) {
        if (f->n == 0)
                return true;
        for (size_t i = 0; i < f->n; i++)
                if (streq(f->pci[i], a->pci))
                        return true;
        return false;
}

/* The warnings about the host, its nodes, and the devices shown: `show PCI` asks about that
 * device, and another's are no answer. Copies of the entries into `buf` (room for all), which own
 * nothing: the list is not to be freed. */
static struct warnings warnings_shown(const struct warnings *w, const struct filter *f, struct warning *buf) {
        struct warnings r = {.v = buf};
        for (size_t i = 0; i < w->n; i++) {
                bool other = false;
                if (f->n > 0 && warning_kinds[w->v[i].code].subject == SUBJECT_PCI && w->v[i].subject) {
                        other = true;
                        for (size_t k = 0; k < f->n && other; k++)
                                other = !streq(f->pci[k], w->v[i].subject);
                }
                if (!other)
                        r.v[r.n++] = w->v[i];
        }
        return r;
}

/* The first address given that names no accelerator, network adapter or NVMe drive; NULL. */
static const char *unmatched(const struct topology *t, const struct filter *f) {
        const struct pci_device *lists[] = {t->accels, t->nics, t->storage};
        size_t ns[] = {t->n_accels, t->n_nics, t->n_storage};
        for (size_t k = 0; k < f->n; k++) {
                bool found = false;
                for (size_t l = 0; l < ELEMENTSOF(lists) && !found; l++)
                        for (size_t i = 0; i < ns[l] && !found; i++)
                                found = streq(lists[l][i].pci, f->pci[k]);
                if (!found)
                        return f->pci[k];
        }
        return NULL;
}

static json_object *devices_json(const struct topology *t, const struct pci_device *v, size_t n,
                                 const struct filter *f) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < n; i++)
                if (shown(f, &v[i]))
                        json_object_array_add(a, accel_json(t, &v[i]));
        return a;
}

/* The compute accelerators and network adapters shown, in --matrix's order; NULL-terminated. */
static const struct pci_device **matrix_devices(const struct topology *t, const struct filter *f, size_t *ret_n) {
        const struct pci_device **v = xmalloc0((t->n_accels + t->n_nics + 1) * sizeof(*v));
        size_t n = 0;
        for (size_t i = 0; i < t->n_accels; i++)
                if (t->accels[i].compute && shown(f, &t->accels[i]))
                        v[n++] = &t->accels[i];
        for (size_t i = 0; i < t->n_nics; i++)
                if (shown(f, &t->nics[i]))
                        v[n++] = &t->nics[i];
        *ret_n = n;
        return v;
}

/* --matrix in the document: {"devices": [PCI...], "paths": [[PIX|PXB|PHB|NODE|SYS|X|null...]...]},
 * row i and column j the path from devices[i] to devices[j]. */
static json_object *matrix_json(const struct topology *t, const struct filter *f) {
        size_t n;
        _cleanup_free_ const struct pci_device **v = matrix_devices(t, f, &n);
        json_object *o = json_object_new_object(), *devices = json_object_new_array(), *paths = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                json_object *row = json_object_new_array();
                json_object_array_add(devices, json_object_new_string(v[i]->pci));
                for (size_t j = 0; j < n; j++) {
                        const char *l = pci_link(v[i], v[j]);
                        json_object_array_add(row, l ? json_object_new_string(l) : NULL);
                }
                json_object_array_add(paths, row);
        }
        json_object_object_add(o, "devices", devices);
        json_object_object_add(o, "paths", paths);
        return o;
}

static void print_json(const struct topology *t, const struct warnings *w, const struct filter *f, bool matrix) {
        /* Before the document, which refers to it until it is gone. */
        _cleanup_free_ int *ids = xmalloc((t->n_nodes + 1) * sizeof(int));
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *nodes = json_object_new_array();

        for (size_t i = 0; i < t->n_nodes; i++)
                ids[i] = t->nodes[i].id;
        for (size_t i = 0; i < t->n_nodes; i++)
                json_object_array_add(nodes, node_json(t, &t->nodes[i], ids));
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "accelerators", devices_json(t, t->accels, t->n_accels, f));
        json_object_object_add(o, "nics", devices_json(t, t->nics, t->n_nics, f));
        json_object_object_add(o, "storage", devices_json(t, t->storage, t->n_storage, f));
        json_object_object_add(o, "numa_balancing",
                               t->numa_balancing >= 0 ? json_object_new_int(t->numa_balancing) : NULL);
        json_object_object_add(o, "transparent_hugepages", json_string_or_null(t->thp));
        json_object *host = host_tuning_json(t->tuning);
        json_object_object_add(host, "irqbalance", irqbalance_json(t->irqbalance));
        json_object_object_add(o, "host", host);
        json_object_object_add(o, "warnings", json_warnings(w));
        if (matrix)
                json_object_object_add(o, "matrix", matrix_json(t, f));
        json_print(o);
}

/* The sockets a node's CPUs sit in, as a list ("0", "0-1"), or "-" when unknown. */
static char *node_sockets_text(const struct topology *t, const struct node *n) {
        struct cpuset s;
        return node_sockets(t, n, &s) ? cpuset_format(&s) : xstrdup("-");
}

/* A node with no CPU and no memory online (GB200's firmware declares eight a GPU, and the driver
 * onlines one): nothing could be placed there, so the table folds these into one line unless -v. */
static bool node_empty(const struct node *n) {
        for (size_t j = 0; j < n->n_hugepages; j++)
                if (n->hugepages[j].total > 0)
                        return false;
        return cpuset_is_empty(&n->cpus) && n->memory_known && n->mem_total == 0;
}

static bool node_listed(const struct node *n, bool verbose) {
        return verbose || !node_empty(n);
}

/* "2 MiB 1024/1024, 1 GiB 0/0": each pool's page size, free and total pages. Page sizes are powers
 * of two, so whole units: "1 GiB", not "1.0 GiB". */
static void hugepages_cell(struct table *tab, const struct node *n) {
        _cleanup_strbuf_ struct strbuf hp = {0};
        for (size_t j = 0; j < n->n_hugepages; j++) {
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), n->hugepages[j].page_kb * 1024);
                char *point = strstr(size, ".0 ");
                if (point)
                        memmove(point, point + 2, strlen(point + 2) + 1);
                strbuf_printf(&hp, "%s%s %" PRIu64 "/%" PRIu64, j ? ", " : "", size, n->hugepages[j].free,
                              n->hugepages[j].total);
        }
        table_add(tab, hp.len ? hp.s : "-");
}

/* The line under the table for the nodes it folds: "nodes 3-9,11-17: no CPUs, no memory online
 * (-v lists them)". */
static void print_empty_nodes(const struct topology *t) {
        struct cpuset ids = {0};
        for (size_t i = 0; i < t->n_nodes; i++)
                if (node_empty(&t->nodes[i]))
                        cpuset_set(&ids, (unsigned) t->nodes[i].id);
        if (cpuset_is_empty(&ids))
                return;
        _cleanup_free_ char *list = cpuset_format(&ids);
        bool one = cpuset_count(&ids) == 1;
        printf("  node%s %s: no CPUs, no memory online (-v lists %s)\n", one ? "" : "s", list, one ? "it" : "them");
}

static void print_nodes(const struct topology *t, bool verbose) {
        static const char *const headers[] = {">node",   "kind",  "cpus",        ">cores", "socket",
                                              ">memory", ">free", "memory kind", ">tier",  "huge pages"};
        _cleanup_table_ struct table *tab = table_new(headers, ELEMENTSOF(headers));
        unsigned cores = 0;

        for (size_t i = 0; i < t->n_nodes; i++) {
                const struct node *n = &t->nodes[i];
                _cleanup_free_ char *cpus = cpuset_format(&n->cpus), *sockets = node_sockets_text(t, n);
                char total[FORMAT_BYTES_MAX], free_[FORMAT_BYTES_MAX];

                cores += n->cores;
                if (!node_listed(n, verbose))
                        continue;
                format_bytes(total, sizeof(total), n->mem_total);
                format_bytes(free_, sizeof(free_), n->mem_free);
                table_addf(tab, "%d", n->id);
                table_add(tab, node_kind_to_string(n->kind));
                table_add(tab, *cpus ? cpus : "-");
                table_addf(tab, "%u", n->cores);
                table_add(tab, sockets);
                table_add(tab, n->memory_known ? total : "-");
                table_add(tab, n->memory_known ? free_ : "-");
                const char *mk = memory_kind_name(n->memory.kinds);
                table_add(tab, mk ? mk : "-");
                if (n->memory.tier >= 0)
                        table_addf(tab, "%d", n->memory.tier);
                else
                        table_add(tab, "-");
                hugepages_cell(tab, n);
        }

        _cleanup_free_ char *online = cpuset_format(&t->online_cpus);
        printf("%zu NUMA node%s, %u CPUs online (%s), %u physical cores%s\n\n", t->n_nodes, t->n_nodes == 1 ? "" : "s",
               cpuset_count(&t->online_cpus), online, cores,
               t->has_node_dirs      ? ""
               : t->nodes_unreadable ? "; the NUMA nodes are unknown (warnings)"
                                     : "; no NUMA in this kernel");
        table_print(tab, stdout, NULL);
        if (!verbose)
                print_empty_nodes(t);
}

/* "midr_el1 0x00000000410fd851, cpu_capacity 997": what told a kind apart, in words. */
static char *kind_source_text(const struct cpu_kinds *k, const struct cpu_kind *x) {
        struct strbuf b = {0};
        if (x->by & KIND_BY_MIDR)
                strbuf_printf(&b, ", midr_el1 0x%016" PRIx64, x->midr);
        if (x->by & KIND_BY_CAPACITY)
                strbuf_printf(&b, ", cpu_capacity %" PRIu64, x->capacity);
        if (x->by & KIND_BY_MAX_FREQ)
                strbuf_printf(&b, ", cpuinfo_max_freq %" PRIu64 " kHz", x->max_khz);
        if (x->by & KIND_BY_BASE_FREQ)
                strbuf_printf(&b,
                              k->base_from_cppc ? ", nominal_freq %" PRIu64 " MHz" : ", base_frequency %" PRIu64 " kHz",
                              k->base_from_cppc ? x->base_khz / 1000 : x->base_khz);
        if (x->by & KIND_BY_CORE_TYPE)
                strbuf_printf(&b, ", %s PMU", core_type_to_string(x->core_type));
        char *s = xstrdup(b.len ? b.s + 2 : "-");
        strbuf_done(&b);
        return s;
}

/* Each node's CPU kinds, where the host has several, and its L3 caches. */
static void print_kinds(const struct topology *t, bool verbose) {
        static const char *const kh[] = {">node", ">kind", "cpus", "told by"}, *const lh[] = {">node", "cpus", ">size"};
        _cleanup_table_ struct table *kinds = table_new(kh, ELEMENTSOF(kh)), *l3 = table_new(lh, ELEMENTSOF(lh));
        size_t l3_rows = 0;
        for (size_t i = 0; i < t->n_nodes; i++) {
                const struct node *n = &t->nodes[i];
                for (size_t k = 0; t->kinds.n > 1 && k < t->kinds.n && node_listed(n, verbose); k++) {
                        struct cpuset part = t->kinds.v[k].cpus;
                        cpuset_and(&part, &n->cpus);
                        _cleanup_free_ char *cpus = cpuset_format(&part),
                                            *src = kind_source_text(&t->kinds, &t->kinds.v[k]);
                        if (!*cpus)
                                continue;
                        table_addf(kinds, "%d", n->id);
                        table_addf(kinds, "%zu", k);
                        table_add(kinds, cpus);
                        table_add(kinds, src);
                }
                for (size_t k = 0; k < t->n_l3 && node_listed(n, verbose); k++) {
                        struct cpuset part = t->l3[k].cpus;
                        cpuset_and(&part, &n->cpus);
                        _cleanup_free_ char *cpus = cpuset_format(&part);
                        char size[FORMAT_BYTES_MAX];
                        if (!*cpus)
                                continue;
                        format_bytes(size, sizeof(size), t->l3[k].size_bytes);
                        table_addf(l3, "%d", n->id);
                        table_add(l3, cpus);
                        table_add(l3, t->l3[k].size_bytes ? size : "-");
                        l3_rows++;
                }
        }
        const char *by = kinds_ranking_to_string(t->kinds.ranked_by);
        if (t->kinds.n > 1) {
                if (by)
                        printf("\nCPU kinds, most capable first (as hwloc ranks them, by %s):\n", by);
                else
                        printf("\nCPU kinds, unranked (hwloc cannot rank them: nothing tells each apart), in hwloc's "
                               "order:\n");
                table_print(kinds, stdout, "  ");
        }
        if (l3_rows) {
                printf("\nL3 caches:\n");
                table_print(l3, stdout, "  ");
        }
}

/* Up to 16 nodes the table fits a terminal and is read at a glance (an 8-socket host with sub-NUMA
 * clustering); beyond, show --json and -v have it. */
#define DISTANCES_SHOWN_MAX 16

/* Between the nodes the node table lists: a folded node holds nothing to be near to. */
static void print_distances(const struct topology *t, bool verbose) {
        size_t listed = 0;
        if (!t->has_node_dirs)
                return;
        for (size_t i = 0; i < t->n_nodes; i++)
                listed += node_listed(&t->nodes[i], verbose);
        if (listed > DISTANCES_SHOWN_MAX && !verbose) {
                printf("\nnode distances: %zu nodes, too many for a table here (-v prints it; show --json has them)\n",
                       listed);
                return;
        }
        printf("\nnode distances:\n");
        printf("%6s", "node");
        for (size_t j = 0; j < t->n_nodes; j++)
                if (node_listed(&t->nodes[j], verbose))
                        printf(" %4d", t->nodes[j].id);
        putchar('\n');
        for (size_t i = 0; i < t->n_nodes; i++) {
                if (!node_listed(&t->nodes[i], verbose))
                        continue;
                printf("%5d:", t->nodes[i].id);
                for (size_t j = 0; j < t->n_nodes; j++)
                        if (!node_listed(&t->nodes[j], verbose))
                                continue;
                        else if (t->nodes[i].distances)
                                printf(" %4d", t->nodes[i].distances[j]);
                        else
                                printf(" %4s", "-");
                putchar('\n');
        }
}

static const char *name_of(const struct pci_device *a, char *buf, size_t n) {
        if (a->name)
                return a->name;
        if (!a->ids_known)
                return "(vendor and device unreadable)";
        snprintf(buf, n, "[%04x:%04x]", a->vendor, a->device);
        return buf;
}

/* A network adapter's RDMA devices, "mlx5_0", "rxe0", or "-". */
static void rdma_cell(struct table *tab, const struct pci_device *a) {
        struct strbuf b = {0};
        for (size_t i = 0; i < a->n_rdma; i++) {
                _cleanup_free_ char *s = name_escape(a->rdma[i].name);
                strbuf_printf(&b, "%s%s", i ? "," : "", s);
        }
        table_add(tab, b.len ? b.s : "-");
        strbuf_done(&b);
}

/* The PCIe path from each network adapter shown to each compute accelerator, as --matrix says it:
 * what nics = auto chooses by. */
static void print_nic_paths(const struct topology *t, const struct filter *f) {
        size_t n = 0, rows = 0;
        for (size_t i = 0; i < t->n_accels; i++)
                n += t->accels[i].compute;
        const char **headers = xmalloc0((n + 2) * sizeof(char *));
        char **labels = xmalloc0((n + 1) * sizeof(char *));
        headers[0] = "adapter";
        for (size_t i = 0, k = 0; i < t->n_accels; i++)
                if (t->accels[i].compute) {
                        labels[k] = xasprintf("GPU%d", t->accels[i].index >= 0 ? t->accels[i].index : (int) k);
                        headers[k + 1] = labels[k];
                        k++;
                }
        _cleanup_table_ struct table *tab = table_new(headers, n + 1);
        for (size_t j = 0; n > 0 && j < t->n_nics; j++) {
                if (!shown(f, &t->nics[j]))
                        continue;
                rows++;
                table_add(tab, t->nics[j].pci);
                for (size_t i = 0; i < t->n_accels; i++)
                        if (t->accels[i].compute) {
                                const char *l = pci_link(&t->accels[i], &t->nics[j]);
                                table_add(tab, l ? l : "?");
                        }
        }
        if (rows) {
                printf("\n  PCIe path from each adapter to each compute accelerator (as show --matrix says it):\n");
                table_print(tab, stdout, "  ");
        }
        for (size_t k = 0; k < n; k++)
                free(labels[k]);
        free(labels);
        free(headers);
}

static void print_devices(const char *title, const char *none, const struct pci_device *v, size_t n,
                          const struct filter *f) {
        static const char *const accel_headers[] = {"pci",     ">node",  "from", "local cpus", "class",
                                                    "compute", ">index", "link", "mrrs/mps",   "name"};
        static const char *const nic_headers[] = {"pci",       ">node", "from", "local cpus", "class",
                                                  "interface", "rdma",  "link", "mrrs/mps",   "name"};
        static const char *const other_headers[] = {"pci", ">node", "from", "local cpus", "class", "interface", "name"};
        bool accels = n > 0 && v[0].kind == PCI_ACCELERATOR, links = n > 0 && v[0].kind != PCI_STORAGE;
        _cleanup_table_ struct table *tab = accels  ? table_new(accel_headers, ELEMENTSOF(accel_headers))
                                            : links ? table_new(nic_headers, ELEMENTSOF(nic_headers))
                                                    : table_new(other_headers, ELEMENTSOF(other_headers));
        size_t rows = 0;
        unsigned reasons = 0;

        printf("\n%s:\n", title);
        for (size_t i = 0; i < n; i++) {
                const struct pci_device *a = &v[i];
                _cleanup_free_ char *lc = a->local_cpus ? cpuset_format(a->local_cpus) : xstrdup("-");
                char buf[32];

                if (!shown(f, a))
                        continue;
                rows++;
                table_add(tab, a->pci);
                if (a->numa_node >= 0)
                        table_addf(tab, "%d", a->numa_node);
                else
                        table_add(tab, "-");
                table_add(tab, numa_source_to_string(a->numa_source));
                table_add(tab, lc);
                table_addf(tab, "0x%06x", a->class);
                if (accels) {
                        table_add(tab, a->compute ? "yes" : "no");
                        if (a->index >= 0)
                                table_addf(tab, "%d", a->index);
                        else
                                table_add(tab, "-");
                } else {
                        _cleanup_free_ char *iface = a->iface ? name_escape(a->iface) : NULL;
                        table_add(tab, iface ? iface : "-");
                }
                if (a->kind == PCI_NIC)
                        rdma_cell(tab, a);
                if (links) {
                        pcie_cells(tab, &a->pcie);
                        pcie_note(&reasons, &a->pcie);
                }
                table_add(tab, name_of(a, buf, sizeof(buf)));
        }
        if (rows)
                table_print(tab, stdout, "  ");
        else
                printf("  %s\n", none);
        pcie_print_notes(reasons);
}

/* Each GPU's own memory nodes, by the owner the driver names (also one not in the PCI tree), and
 * the coherent GPUs whose memory is no node at all. */
static void print_gpu_memory(const struct topology *t, const struct filter *f) {
        for (size_t i = 0; i < t->n_nodes; i++) {
                const char *owner = t->nodes[i].memory.owner_pci;
                bool first = true;
                struct cpuset ids = {0};

                if (!owner || !(t->nodes[i].memory.kinds & MEMORY_GPU))
                        continue;
                const struct pci_device *a = topology_accel(t, owner);
                if (a && !shown(f, a))
                        continue;
                for (size_t j = 0; j < t->n_nodes; j++) {
                        const struct node_memory *m = &t->nodes[j].memory;
                        if (!(m->kinds & MEMORY_GPU) || !m->owner_pci || !streq(m->owner_pci, owner))
                                continue;
                        first = first && j >= i;
                        cpuset_set(&ids, (unsigned) t->nodes[j].id);
                }
                if (!first) /* said at its first node */
                        continue;
                _cleanup_free_ char *list = cpuset_format(&ids);
                printf("  GPU memory of %s: node%s %s\n", owner, cpuset_count(&ids) > 1 ? "s" : "", list);
        }
        if (t->n_driver_managed_gpus > 0) {
                printf("  GPU memory that is no NUMA node (the driver manages it, CDMM):");
                for (size_t i = 0; i < t->n_driver_managed_gpus; i++)
                        printf("%s %s", i ? "," : "", t->driver_managed_gpus[i]);
                putchar('\n');
        }
}

/* "0-7,16-23 (node 0)": a set of CPUs and the nodes they belong to. */
static char *cpus_and_nodes(const struct topology *t, const struct cpuset *cpus) {
        struct cpuset nodes = {0};
        for (size_t i = 0; i < t->n_nodes; i++)
                if (cpuset_intersects(&t->nodes[i].cpus, cpus))
                        cpuset_set(&nodes, (unsigned) t->nodes[i].id);
        _cleanup_free_ char *c = cpuset_format(cpus), *n = cpuset_format(&nodes);
        if (!*c)
                return xstrdup("-");
        return xasprintf("%s (node%s %s)", c, cpuset_count(&nodes) > 1 ? "s" : "", *n ? n : "-");
}

static void irq_row(struct table *tab, const struct topology *t, const struct pci_device *a) {
        struct cpuset set = {0}, served = {0};
        for (size_t i = 0; i < a->irqs.n; i++) {
                cpuset_or(&set, &a->irqs.v[i].affinity);
                cpuset_or(&served, &a->irqs.v[i].effective);
        }
        _cleanup_free_ char *irqs = device_irqs_format(&a->irqs), *s = cpus_and_nodes(t, &set),
                            *e = cpus_and_nodes(t, &served);
        table_add(tab, a->pci);
        if (a->numa_node >= 0)
                table_addf(tab, "%d", a->numa_node);
        else
                table_add(tab, "-");
        table_add(tab, irqs);
        table_add(tab, a->irqs.msi ? "msi" : "line");
        table_add(tab, s);
        table_add(tab, e);
}

/* Each accelerator's and network adapter's interrupts: the CPUs they are set to, and those that
 * served them last; only when one of the devices shown has any. */
static void print_irqs(const struct topology *t, const struct filter *f) {
        static const char *const headers[] = {"pci", ">node", "irqs", "kind", "set to", "served by"};
        _cleanup_table_ struct table *tab = table_new(headers, ELEMENTSOF(headers));
        const struct pci_device *lists[] = {t->accels, t->nics};
        size_t ns[] = {t->n_accels, t->n_nics}, rows = 0;

        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (size_t i = 0; i < ns[l]; i++)
                        if (lists[l][i].irqs.n && shown(f, &lists[l][i])) {
                                irq_row(tab, t, &lists[l][i]);
                                rows++;
                        }
        if (!rows)
                return;
        if (t->irqbalance > 0)
                printf("\ninterrupts (irqbalance runs, pid %d):\n", t->irqbalance);
        else
                printf("\ninterrupts (%s):\n",
                       t->irqbalance < 0 ? "irqbalance does not run" : "whether irqbalance runs is unknown");
        table_print(tab, stdout, "  ");
}

static void print_settings(const struct topology *t) {
        _cleanup_free_ char *thp = t->thp ? name_escape(t->thp) : NULL; /* the capture's word */
        printf("\nNUMA balancing: %s; transparent huge pages: %s\n",
               t->numa_balancing < 0     ? "unknown"
               : t->numa_balancing == 0  ? "off"
               : (t->numa_balancing & 1) ? "on"
                                         : "memory tiering only",
               thp ? thp : "unknown");
}

/* `nvidia-smi topo -m` for every vendor: compute accelerators and network adapters, each pair's
 * path, then each one's CPUs and node. */
static void print_matrix(const struct topology *t, const struct filter *f) {
        size_t n;
        const struct pci_device **v = matrix_devices(t, f, &n);
        bool by_node_only = false;

        if (n == 0) {
                printf("no compute accelerator or network adapter to relate\n");
                free(v);
                return;
        }

        const char **headers = xmalloc0((n + 3) * sizeof(char *));
        char **labels = xmalloc0((n + 1) * sizeof(char *));
        headers[0] = "";
        for (size_t i = 0; i < n; i++) {
                labels[i] = v[i]->kind == PCI_NIC ? xasprintf("NIC%zu", (size_t) (v[i] - t->nics))
                                                  : xasprintf("GPU%d", v[i]->index >= 0 ? v[i]->index : (int) i);
                headers[i + 1] = labels[i];
        }
        headers[n + 1] = "CPU affinity";
        headers[n + 2] = ">NUMA affinity";
        _cleanup_table_ struct table *tab = table_new(headers, n + 3);
        for (size_t i = 0; i < n; i++) {
                table_add(tab, labels[i]);
                for (size_t j = 0; j < n; j++) {
                        const char *l = pci_link(v[i], v[j]);
                        table_add(tab, l ? l : "?");
                        by_node_only = by_node_only || (!v[i]->path || !strstr(v[i]->path, "devices/pci"));
                }
                _cleanup_free_ char *lc = v[i]->local_cpus ? cpuset_format(v[i]->local_cpus) : xstrdup("-");
                table_add(tab, lc);
                if (v[i]->numa_node >= 0)
                        table_addf(tab, "%d", v[i]->numa_node);
                else
                        table_add(tab, "N/A");
        }
        table_print(tab, stdout, NULL);
        printf("\n");
        for (size_t i = 0; i < n; i++) {
                char buf[32];
                _cleanup_free_ char *name = text_escape(name_of(v[i], buf, sizeof(buf))),
                                    *iface = v[i]->iface ? name_escape(v[i]->iface) : NULL;
                printf("%s: %s %s%s%s\n", labels[i], v[i]->pci, name, iface ? " " : "", strempty(iface));
        }
        printf("\nLegend:\n"
               "  X    = self\n"
               "  SYS  = through PCIe and the interconnect between NUMA nodes\n"
               "  NODE = through PCIe and the interconnect between the host bridges of one NUMA node\n"
               "  PHB  = through PCIe and a PCIe host bridge (the root complex)\n"
               "  PXB  = through several PCIe bridges, not a host bridge\n"
               "  PIX  = through at most one PCIe bridge (one switch)\n");
        if (by_node_only)
                printf("  (this sysfs has no PCI device paths, a fixture or a trimmed capture: pairs are told\n"
                       "  apart by node only)\n");
        for (size_t i = 0; i < n; i++)
                free(labels[i]);
        free(labels);
        free(headers);
        free(v);
}

struct show_args {
        const char *config;
        bool json, matrix;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct show_args),
        VERB_FLAG("json", 0, struct show_args, json, "one JSON document on stdout (numaplan(8) lists its keys)"),
        VERB_FLAG("matrix", 0, struct show_args, matrix,
                  "how accelerators and network adapters reach each other (PIX, PXB,\n"
                  "PHB, NODE, SYS, as nvidia-smi topo -m says it), from sysfs's PCI paths"),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct show_args *a = args;
        _cleanup_config_ struct config *c = NULL;
        _cleanup_inputs_ struct inputs in = {0};

        _cleanup_strv_free_ char **pci = xmalloc0((size_t) (argc + 1) * sizeof(char *));
        struct filter f = {.pci = pci, .n = (size_t) argc};
        for (int i = 0; i < argc; i++) {
                struct pci_address addr;
                if (pci_address_parse(argv[i], true, &addr) < 0)
                        return verb_usage_error("show", "'%s' is not a PCI address (DDDD:BB:DD.F or BB:DD.F)", argv[i]);
                pci[i] = xmalloc0(PCI_ADDRESS_MAX);
                pci_address_format(&addr, pci[i]);
        }
        /* accelerator-nodes from the configuration: `show` is about the host, so a configuration
         * that does not load costs the overrides, with a warning, not the command. */
        if (config_load(a->config, &c) < 0)
                log_warning("configuration not used: accelerator-nodes left out");
        /* --json holds everything, the matrix too; the matrix alone needs neither tuning nor
         * interrupts. */
        int r = inputs_host(
                g,
                INPUTS_NAMES | INPUTS_DEVICES |
                        (a->matrix && !a->json ? 0 : INPUTS_TUNING | INPUTS_IRQS | INPUTS_CPU_KINDS | INPUTS_L3),
                c, &in);
        if (r == EXIT_ENV)
                return r;

        const struct topology *t = in.topology;
        const char *missing = unmatched(t, &f);
        if (missing) {
                log_error("no PCI device %s on this host (numaplan show lists them)", missing);
                return EXIT_USAGE;
        }
        _cleanup_free_ struct warning *about = xmalloc((in.warnings.n + 1) * sizeof(*about));
        struct warnings w = warnings_shown(&in.warnings, &f, about);
        bool verbose = log_get_max_level() >= LOG_INFO;
        if (a->json)
                print_json(t, &w, &f, a->matrix);
        else if (a->matrix)
                print_matrix(t, &f);
        else {
                print_nodes(t, verbose);
                print_kinds(t, verbose);
                print_distances(t, verbose);
                print_settings(t);
                host_tuning_print(t->tuning);
                print_devices("accelerators",
                              "none (no PCI display, 3D, processing accelerator or co-processor devices)", t->accels,
                              t->n_accels, &f);
                print_gpu_memory(t, &f);
                if (t->n_nics || f.n == 0)
                        print_devices("network adapters", "none", t->nics, t->n_nics, &f);
                print_nic_paths(t, &f);
                if (t->n_storage || f.n == 0)
                        print_devices("NVMe drives", "none", t->storage, t->n_storage, &f);
                print_irqs(t, &f);
                print_warnings(&w, "\nwarnings:\n", "  ");
        }
        return EXIT_OK;
}

const struct verb verb_show = {
        .name = "show",
        .rank = 10,
        .pages = true,
        .summary = "topology, accelerators, warnings",
        .options = options,
        .args_size = sizeof(struct show_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan show [-c FILE] [--json] [--matrix] [PCI...]",
        .description = "Print the NUMA nodes (CPUs, physical cores, memory, distances), the PCI accelerators\n"
                       "with the node that owns each and where that answer came from, their PCIe links, the\n"
                       "host's tuning (cpufreq, idle states, zone reclaim, swap, IOMMU), the accelerators' and\n"
                       "network adapters' interrupts and whether irqbalance runs, and warnings about what\n"
                       "hurts pinning on this host. The configuration's accelerator-nodes apply.",
        .epilogue = "PCI addresses limit the accelerators, adapters and drives shown, and the devices'\n"
                    "warnings, to those. -v lists every node, the whole distance table and each warning.",
        .epilogue_tight = true,
};
