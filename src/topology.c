/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "topology.h"
#include "util.h"

struct topology *topology_free(struct topology *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_nodes; i++) {
                free(t->nodes[i].distances);
                free(t->nodes[i].hugepages);
        }
        free(t->nodes);
        for (size_t i = 0; i < t->n_accels; i++)
                free(t->accels[i].name);
        free(t->accels);
        for (size_t i = 0; i < t->n_warnings; i++)
                free(t->warnings[i].message);
        free(t->warnings);
        free(t->core_of);
        free(t->socket_of);
        free(t);
        return NULL;
}

int topology_node_index(const struct topology *t, int id) {
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

const struct accelerator *topology_accel(const struct topology *t, const char *pci) {
        for (size_t i = 0; i < t->n_accels; i++)
                if (streq(t->accels[i].pci, pci))
                        return &t->accels[i];
        return NULL;
}

void warning_list_add(struct warning **v, size_t *n, const char *code, const char *fmt, va_list ap) {
        char *msg;

        if (vasprintf(&msg, fmt, ap) < 0)
                msg = xstrdup(code);
        *v = xrealloc(*v, (*n + 1) * sizeof(**v));
        (*v)[(*n)++] = (struct warning){.code = code, .message = msg};
}

void topology_add_warning(struct topology *t, const char *code, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        warning_list_add(&t->warnings, &t->n_warnings, code, fmt, ap);
        va_end(ap);
}

const char *node_kind_to_string(enum node_kind k) {
        switch (k) {
        case NODE_CPU_MEMORY:
                return "cpu+memory";
        case NODE_MEMORY_ONLY:
                return "memory-only";
        case NODE_CPU_ONLY:
                return "cpu-only";
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

void accelerator_resolve_node(struct accelerator *a, int sysfs_numa_node, const struct topology *t) {
        if (sysfs_numa_node >= 0) {
                a->numa_node = sysfs_numa_node;
                a->numa_source = NUMA_SOURCE_NUMA_NODE;
                return;
        }

        a->numa_node = -1;
        a->numa_source = NUMA_SOURCE_NONE;
        if (!a->has_local_cpus)
                return;

        /* Only online CPUs count; an empty mask says nothing (it would fit every node). */
        struct cpuset local = a->local_cpus;
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

bool pci_class_is_accelerator(uint32_t class24) {
        unsigned base = (class24 >> 16) & 0xff, sub = (class24 >> 8) & 0xff;
        return base == 0x03 || base == 0x12 || (base == 0x0b && sub == 0x40);
}

bool pci_is_compute(uint16_t vendor, uint32_t class24) {
        static const uint16_t display_only_vendors[] = {
                0x1a03, /* ASPEED (BMC) */
                0x102b, /* Matrox */
                0x1013, /* Cirrus Logic */
                0x126f, /* Silicon Motion */
                0x1234, /* QEMU/Bochs */
                0x1af4, /* Red Hat (virtio-gpu) */
                0x15ad, /* VMware */
        };
        unsigned class16 = (class24 >> 8) & 0xffff;

        if (class16 != 0x0300 && class16 != 0x0380)
                return true;
        for (size_t i = 0; i < ELEMENTSOF(display_only_vendors); i++)
                if (vendor == display_only_vendors[i])
                        return false;
        return true;
}
