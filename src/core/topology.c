/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "core/config.h"
#include "core/topology.h"

struct topology *topology_free(struct topology *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_nodes; i++) {
                free(t->nodes[i].distances);
                free(t->nodes[i].hugepages);
                free(t->nodes[i].memory.owner_pci);
                free(t->nodes[i].memory.dax_device);
        }
        free(t->nodes);
        free(t->node_index);
        struct pci_device *lists[] = {t->accels, t->nics, t->storage};
        size_t ns[] = {t->n_accels, t->n_nics, t->n_storage};
        for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
                for (size_t i = 0; i < ns[l]; i++) {
                        free(lists[l][i].name);
                        free(lists[l][i].path);
                        free(lists[l][i].local_cpus);
                        free(lists[l][i].iface);
                        for (size_t k = 0; k < lists[l][i].n_ifaces; k++)
                                free(lists[l][i].ifaces[k].name);
                        free(lists[l][i].ifaces);
                        for (size_t k = 0; k < lists[l][i].n_rdma; k++) {
                                free(lists[l][i].rdma[k].name);
                                free(lists[l][i].rdma[k].ports);
                        }
                        free(lists[l][i].rdma);
                        pcie_link_done(&lists[l][i].pcie);
                        device_irqs_done(&lists[l][i].irqs);
                }
                free(lists[l]);
        }
        for (size_t i = 0; i < t->n_driver_managed_gpus; i++)
                free(t->driver_managed_gpus[i]);
        free(t->driver_managed_gpus);
        free(t->thp);
        free(t->hugepage_sizes_kb);
        free(t->core_of);
        free(t->socket_of);
        cpu_kinds_done(&t->kinds);
        free(t->kind_of);
        free(t->l3);
        free(t->l3_of);
        host_tuning_free(t->tuning);
        free(t);
        return NULL;
}

void topology_index_nodes(struct topology *t) {
        size_t n = 0;

        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].id >= 0 && (size_t) t->nodes[i].id >= n)
                        n = (size_t) t->nodes[i].id + 1;
        t->node_index = mfree(t->node_index);
        t->n_node_index = 0;
        if (n == 0)
                return;
        t->node_index = xmalloc(n * sizeof(int));
        for (size_t id = 0; id < n; id++)
                t->node_index[id] = -1;
        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].id >= 0)
                        t->node_index[t->nodes[i].id] = (int) i;
        t->n_node_index = n;
}

int topology_node_index(const struct topology *t, int id) {
        if (t->node_index)
                return id >= 0 && (size_t) id < t->n_node_index ? t->node_index[id] : -1;
        for (size_t i = 0; i < t->n_nodes; i++)
                if (t->nodes[i].id == id)
                        return (int) i;
        return -1;
}

const struct node *topology_node(const struct topology *t, int id) {
        int i = topology_node_index(t, id);
        return i < 0 ? NULL : &t->nodes[i];
}

int topology_distance(const struct topology *t, int from, int to) {
        int a = topology_node_index(t, from), b = topology_node_index(t, to);
        if (a >= 0 && b >= 0 && t->nodes[a].distances)
                return t->nodes[a].distances[b];
        /* No SLIT: the kernel's own defaults, LOCAL_DISTANCE and REMOTE_DISTANCE. */
        return from == to ? 10 : 20;
}

const struct pci_device *topology_accel(const struct topology *t, const char *pci) {
        for (size_t i = 0; i < t->n_accels; i++)
                if (streq(t->accels[i].pci, pci))
                        return &t->accels[i];
        return NULL;
}

const char *node_kind_to_string(enum node_kind k) {
        switch (k) {
        case NODE_CPU_MEMORY:
                return "cpu+memory";
        case NODE_MEMORY_ONLY:
                return "memory-only";
        case NODE_CPU_ONLY:
                return "cpu-only";
        case NODE_KIND_UNKNOWN:
                return "unknown";
        }
        return "?";
}

const char *numa_source_to_string(enum numa_source s) {
        switch (s) {
        case NUMA_SOURCE_NUMA_NODE:
                return "numa_node";
        case NUMA_SOURCE_LOCAL_CPUS:
                return "local_cpus";
        case NUMA_SOURCE_OVERRIDE:
                return "override";
        case NUMA_SOURCE_NONE:
                break;
        }
        return "none";
}

void pci_device_resolve_node(struct pci_device *a, int sysfs_numa_node, const struct topology *t) {
        if (sysfs_numa_node >= 0) {
                a->numa_node = sysfs_numa_node;
                a->numa_source = NUMA_SOURCE_NUMA_NODE;
                return;
        }

        a->numa_node = -1;
        a->numa_source = NUMA_SOURCE_NONE;
        if (!a->local_cpus)
                return;

        /* Only online CPUs count; an empty mask says nothing (it would fit every node). */
        struct cpuset local = *a->local_cpus;
        cpuset_and(&local, &t->online_cpus);
        if (cpuset_is_empty(&local))
                return;

        int found = -1;
        for (size_t i = 0; i < t->n_nodes; i++) {
                if (!cpuset_is_subset(&local, &t->nodes[i].cpus))
                        continue;
                if (found >= 0)
                        return; /* inside two nodes: firmware lists CPUs twice; no answer */
                found = t->nodes[i].id;
        }
        if (found >= 0) {
                a->numa_node = found;
                a->numa_source = NUMA_SOURCE_LOCAL_CPUS;
        }
}

char *topology_list_accelerators(const struct topology *t) {
        struct strbuf b = {0};
        for (size_t i = 0; i < t->n_accels; i++)
                strbuf_printf(&b, "%s%s", i ? ", " : "", t->accels[i].pci);
        if (!b.len)
                strbuf_append(&b, "none");
        return strbuf_steal(&b);
}

int topology_apply_overrides(struct topology *t, const struct config *c, struct error_at *err) {
        for (size_t i = 0; i < c->overrides.n; i++) {
                const struct accel_override *o = &c->overrides.v[i];
                struct pci_device *a = (struct pci_device *) topology_accel(t, o->pci);
                if (!a) {
                        _cleanup_free_ char *found = topology_list_accelerators(t);
                        return error_at_set(err, o->at, "accelerator-nodes: unknown accelerator %s; this host has: %s",
                                            o->pci, found);
                }
                if (topology_node_index(t, o->node) < 0)
                        return error_at_set(err, o->at, "accelerator-nodes: %s=%d names a node this host does not have",
                                            o->pci, o->node);
                a->numa_node = o->node;
                a->numa_source = NUMA_SOURCE_OVERRIDE;
        }
        return 0;
}

/* The bridges above a device: its path's components after "devices/" (the host bridge
 * "pci0000:17" first), the device itself left out. */
static size_t bridges(const char *path, const char **ret, size_t max) {
        const char *p = strstr(path, "devices/pci");
        size_t n = 0;

        if (!p)
                return 0;
        p += strlen("devices/");
        for (const char *s = p; *s && n < max;) {
                ret[n++] = s;
                s = strchrnul(s, '/');
                if (*s)
                        s++;
        }
        return n > 0 ? n - 1 : 0;
}

static size_t component_len(const char *s) {
        return strcspn(s, "/");
}

const char *pci_link(const struct pci_device *a, const struct pci_device *b) {
        const char *ca[64], *cb[64];

        if (a == b || pci_address_compare(&a->address, &b->address) == 0)
                return "X";
        size_t na = a->path ? bridges(a->path, ca, ELEMENTSOF(ca)) : 0,
               nb = b->path ? bridges(b->path, cb, ELEMENTSOF(cb)) : 0;
        if (na > 0 && nb > 0) {
                size_t common = 0;
                while (common < na && common < nb && component_len(ca[common]) == component_len(cb[common]) &&
                       strncmp(ca[common], cb[common], component_len(ca[common])) == 0)
                        common++;
                if (common == na && common == nb)
                        return "PIX"; /* the same parent bridge */
                if (common > 1)
                        return common + 1 >= na && common + 1 >= nb ? "PIX" : "PXB";
                if (common == 1)
                        return "PHB";
        }
        if (a->numa_node < 0 || b->numa_node < 0)
                return NULL;
        return a->numa_node == b->numa_node ? "NODE" : "SYS";
}

int pci_link_rank(const char *link) {
        static const char *const ranks[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
        for (size_t i = 0; link && i < ELEMENTSOF(ranks); i++)
                if (streq(link, ranks[i]))
                        return (int) i;
        return -1;
}
