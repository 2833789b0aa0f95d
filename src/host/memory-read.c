/* SPDX-License-Identifier: MIT */
/* Reads what a node's memory is where Linux says it, in the places hwloc's Linux backend looks
 * (topology-linux.c), so that numaplan names a host's nodes as lstopo does. */

#include <ctype.h>
#include <sys/stat.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/memory-tiers.h"
#include "core/pci.h"
#include "host/memory-read.h"
#include "host/root.h"

#define NVIDIA_GPUS "proc/driver/nvidia/gpus"
#define DAX_DEVICES "sys/bus/dax/devices"
#define MEMORY_TIERING "sys/devices/virtual/memory_tiering"

static struct node *node_by_id(struct topology *t, int id) {
        int i = topology_node_index(t, id);
        return i < 0 ? NULL : &t->nodes[i];
}

static void malformed(struct warnings *w, const char *path, const char *consequence) {
        warnings_add(w, WARNING_SYSFS_MALFORMED, NULL, "/%s: malformed: %s", path, consequence);
}

/* The node a numa_status names ("Node: 2"), -1 for none: the driver writes the line only once it
 * has onlined the GPU's memory as that node. As hwloc does, the first "Node:" counts. */
static int numa_status_node(const char *s) {
        const char *p = strstr(s, "Node:");
        char *end;

        if (!p)
                return -1;
        p += strlen("Node:");
        p += strspn(p, " \t");
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v >= CPUSET_MAX || (*end && !isspace((unsigned char) *end)))
                return -1;
        return (int) v;
}

static void add_driver_managed(struct topology *t, const char *pci) {
        t->driver_managed_gpus = xrealloc(t->driver_managed_gpus, (t->n_driver_managed_gpus + 1) * sizeof(char *));
        t->driver_managed_gpus[t->n_driver_managed_gpus++] = xstrdup(pci);
}

/* A coherent NVIDIA GPU (GH200, GB200) whose driver onlined its memory names the node in
 * numa_status; a GPU on PCIe has no such file. One with the file and no online node is a coherent
 * GPU whose memory the driver keeps to itself (CDMM, driver 580 and later): no node to name. The
 * directories are named by PCI address; any other name (a capture's bytes) is left out, named
 * escaped, since show, plan's warnings and verify's details print what is kept. */
static void read_nvidia_gpus(struct root *root, struct topology *t, struct warnings *w) {
        _cleanup_closedir_ DIR *d = NULL;

        if (root_opendir(root, NVIDIA_GPUS, &d) < 0)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                struct pci_address addr;
                char pci[PCI_ADDRESS_MAX];
                if (de->d_name[0] == '.')
                        continue;
                if (pci_address_parse(de->d_name, false, &addr) < 0) {
                        _cleanup_free_ char *shown = name_escape(de->d_name);
                        warnings_add(w, WARNING_SYSFS_MALFORMED, NULL,
                                     "/" NVIDIA_GPUS "/%s: malformed: not a PCI address, left out", shown);
                        continue;
                }
                pci_address_format(&addr, pci);
                _cleanup_free_ char *p = xasprintf(NVIDIA_GPUS "/%s/numa_status", de->d_name), *s = NULL;
                if (root_read_file(root, p, &s, NULL) < 0)
                        continue;
                int id = numa_status_node(s);
                struct node *n = id >= 0 ? node_by_id(t, id) : NULL;
                if (!n) {
                        add_driver_managed(t, pci);
                        continue;
                }
                const struct pci_device *a = topology_accel(t, pci);
                n->memory.kinds |= MEMORY_GPU;
                free(n->memory.owner_pci);
                n->memory.owner_pci = xstrdup(pci);
                n->memory.accelerator = a ? (int) (a - t->accels) : -1;
        }
}

/* Whether `path` is there, recorded as it is (a link, in sysfs) so that a snapshot holds it. */
static bool present(struct root *root, const char *path, char **ret_link) {
        _cleanup_free_ char *link = NULL;
        struct stat st;

        if (root_lstat(root, path, &st, &link) < 0)
                return false;
        if (link)
                root_record_link(root, path, link);
        else
                root_record_dir(root, path);
        if (ret_link)
                *ret_link = TAKE_PTR(link);
        return true;
}

/* hwloc's reading of a DAX device's link: an NVDIMM's sits under an ndbus, anything else
 * (soft-reserved memory, hmem.N) is specific-purpose; one in a CXL region whose first target is
 * there is CXL memory, which keeps only its NVM bit. */
static unsigned dax_kinds(struct root *root, const char *link) {
        unsigned kinds = strstr(link, "ndbus") ? MEMORY_NVM : MEMORY_SPM;
        const char *region = strstr(link, "/region");
        char *end;

        if (!region)
                return kinds;
        unsigned long r = strtoul(region + strlen("/region"), &end, 10);
        if (end == region + strlen("/region"))
                return kinds;
        _cleanup_free_ char *target = xasprintf("sys/bus/cxl/devices/region%lu/target0", r), *s = NULL;
        if (root_read_string(root, target, &s) < 0)
                return kinds;
        return (kinds & MEMORY_NVM) | MEMORY_CXL;
}

/* A relative link in directory `dir`, resolved to the path under the root it names
 * ("../../../devices/platform/hmem.0/dax0.0" in sys/bus/dax/devices); NULL for one that leaves
 * the root or is absolute. */
static char *resolve_link(const char *dir, const char *link) {
        _cleanup_free_ char *copy = xasprintf("%s/%s", dir, link);
        char *parts[64];
        size_t n = 0;

        if (link[0] == '/')
                return NULL;
        for (char *c = strtok(copy, "/"); c; c = strtok(NULL, "/")) {
                if (streq(c, "..")) {
                        if (n == 0)
                                return NULL;
                        n--;
                } else if (!streq(c, ".") && n < ELEMENTSOF(parts))
                        parts[n++] = c;
        }
        struct strbuf b = {0};
        for (size_t i = 0; i < n; i++)
                strbuf_printf(&b, "%s%s", i ? "/" : "", parts[i]);
        return strbuf_steal(&b);
}

/* One DAX device bound to kmem: the node it made, and what that node's memory is. Its files are
 * read where its link leads, so that a snapshot holds the link and the device both. */
static void read_dax_device(struct root *root, struct topology *t, const char *name, struct warnings *w) {
        _cleanup_free_ char *dev = xasprintf(DAX_DEVICES "/%s", name), *link = NULL, *dir = NULL;
        _cleanup_free_ char *tn = NULL, *s = NULL;
        int id;

        if (!present(root, dev, &link))
                return;
        dir = link ? resolve_link(DAX_DEVICES, link) : xstrdup(dev);
        if (!dir)
                return;
        tn = xasprintf("%s/target_node", dir);
        if (root_read_string(root, tn, &s) < 0)
                return;
        if (parse_int(s, &id) < 0) {
                malformed(w, tn, "the node it made is not named");
                return;
        }
        struct node *n = id >= 0 ? node_by_id(t, id) : NULL;
        if (!n)
                return;
        free(n->memory.dax_device);
        n->memory.dax_device = xstrdup(name);
        /* Not a link: nothing says what memory it is (hwloc too leaves it unnamed). */
        if (link)
                n->memory.kinds |= dax_kinds(root, link);
}

static void read_dax(struct root *root, struct topology *t, struct warnings *w) {
        _cleanup_closedir_ DIR *d = NULL;

        if (root_opendir(root, DAX_DEVICES, &d) < 0)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                if (de->d_name[0] == '.')
                        continue;
                _cleanup_free_ char *kmem = xasprintf("sys/bus/dax/drivers/kmem/%s", de->d_name);
                /* Only kmem makes a DAX device's memory a node; device DAX is a character device. */
                if (present(root, kmem, NULL))
                        read_dax_device(root, t, de->d_name, w);
        }
}

/* 0 when absent or 0 (unknown), as hwloc counts them. */
static uint64_t read_figure(struct root *root, const char *dir, const char *name, struct warnings *w) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name), *s = NULL;
        uint64_t v;

        if (root_read_string(root, p, &s) < 0)
                return 0;
        if (parse_uint64(s, 10, &v) < 0) {
                malformed(w, p, "taken as unknown");
                return 0;
        }
        return v;
}

/* ACPI HMAT's figures from a node's nearest initiators: access1 (CPUs only) when there, else
 * access0 (which may be a generic initiator's, a GPU's, not a CPU's), as hwloc prefers. */
static void read_hmat(struct root *root, struct node *n, struct warnings *w) {
        _cleanup_free_ char *a1 = xasprintf("sys/devices/system/node/node%d/access1/initiators", n->id);
        _cleanup_free_ char *a0 = xasprintf("sys/devices/system/node/node%d/access0/initiators", n->id);
        struct stat st;
        const char *dir = root_lstat(root, a1, &st, NULL) >= 0 ? a1 : root_lstat(root, a0, &st, NULL) >= 0 ? a0 : NULL;

        if (!dir)
                return;
        root_record_dir(root, dir);
        n->memory.read_bandwidth = read_figure(root, dir, "read_bandwidth", w);
        n->memory.write_bandwidth = read_figure(root, dir, "write_bandwidth", w);
        n->memory.read_latency = read_figure(root, dir, "read_latency", w);
        n->memory.write_latency = read_figure(root, dir, "write_latency", w);
}

struct kernel_tier {
        int k;
        struct cpuset nodes;
};

static int kernel_tier_compare(const void *a, const void *b) {
        const struct kernel_tier *x = a, *y = b;
        return x->k < y->k ? -1 : x->k > y->k;
}

/* The kernel puts a node in one tier. One listed in several (a capture made by hand, a read
 * across a change of tiers) keeps the lowest, whatever order the directory lists them in, and is
 * warned of with every tier that lists it. */
static void assign_kernel_tiers(struct topology *t, struct kernel_tier *v, size_t n, struct warnings *w) {
        if (n > 1)
                qsort(v, n, sizeof(*v), kernel_tier_compare);
        for (size_t i = 0; i < t->n_nodes; i++) {
                struct node *node = &t->nodes[i];
                struct strbuf tiers = {0};
                unsigned listed = 0;
                int last = -1;
                for (size_t j = 0; j < n; j++) {
                        /* memory_tier4 and memory_tier04 (by hand) are one tier */
                        if (!cpuset_isset(&v[j].nodes, (unsigned) node->id) || (listed && v[j].k == last))
                                continue;
                        if (!listed++)
                                node->memory.kernel_tier = v[j].k;
                        last = v[j].k;
                        strbuf_printf(&tiers, "%s%d", tiers.len ? ", " : "", v[j].k);
                }
                if (listed > 1) {
                        char subject[16];
                        snprintf(subject, sizeof(subject), "%d", node->id);
                        warnings_add(w, WARNING_OVERLAPPING_MEMORY_TIERS, subject,
                                     "node %d is listed in memory tiers %s (/" MEMORY_TIERING
                                     "/memory_tierK/nodelist), "
                                     "where the kernel puts a node in one: its kernel tier is taken as the lowest, %d",
                                     node->id, tiers.s, node->memory.kernel_tier);
                }
                strbuf_done(&tiers);
        }
}

/* The kernel's own tiers (memory_tiering/memory_tierK/nodelist), numbered by abstract distance:
 * not hwloc's numbering, shown beside it. */
static void read_kernel_tiers(struct root *root, struct topology *t, struct warnings *w) {
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ struct kernel_tier *v = NULL;
        size_t n = 0;

        if (root_opendir(root, MEMORY_TIERING, &d) < 0)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                const char *num = startswith(de->d_name, "memory_tier");
                int k;
                if (!num || !isdigit((unsigned char) *num) || parse_int(num, &k) < 0)
                        continue;
                _cleanup_free_ char *p = xasprintf(MEMORY_TIERING "/%s/nodelist", de->d_name), *s = NULL;
                struct cpuset nodes;
                if (root_read_string(root, p, &s) < 0)
                        continue;
                if (cpuset_parse_list(s, &nodes) < 0) {
                        malformed(w, p, "the tier's nodes are not named");
                        continue;
                }
                v = xgrow(v, n, sizeof(*v));
                v[n++] = (struct kernel_tier){.k = k, .nodes = nodes};
        }
        assign_kernel_tiers(t, v, n, w);
}

void memory_read(struct root *root, struct topology *t, struct warnings *w) {
        if (!t->has_node_dirs)
                return;
        read_nvidia_gpus(root, t, w);
        read_dax(root, t, w);
        for (size_t i = 0; i < t->n_nodes; i++)
                read_hmat(root, &t->nodes[i], w);
        read_kernel_tiers(root, t, w);
        memory_tiers_assign(t->nodes, t->n_nodes);
}
