/* SPDX-License-Identifier: MIT */
/* Reads nodes and CPUs from sysfs under a root. What the kernel shows is reported as far as it can
 * be read: a file that is there but malformed is parsed strictly, never guessed at, and becomes a
 * warning naming it; the documented fallback then applies as if it were absent. Only what makes a
 * plan impossible or wrong (a node's CPUs or memory unknown, SMT siblings unknown) is a warning of
 * severity error, on which plan and apply refuse while show still shows the rest. */

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>

#include "basic/log.h"
#include "basic/util.h"
#include "host/cpu-kinds-read.h"
#include "host/host-tuning.h"
#include "host/irq-read.h"
#include "host/memory-read.h"
#include "host/pci-read.h"
#include "host/root.h"
#include "core/sysfs-parse.h"
#include "host/topology-read.h"

#define SYS_CPU "sys/devices/system/cpu"
#define SYS_NODE "sys/devices/system/node"

struct reader {
        struct root *root;
        struct topology *t;
        struct warnings *w;
        bool meminfo_read; /* /proc/meminfo, read once for the huge page facts */
        char *meminfo;
};

static const char *proc_meminfo(struct reader *x) {
        if (!x->meminfo_read) {
                x->meminfo_read = true;
                (void) root_read_file(x->root, "proc/meminfo", &x->meminfo, NULL);
        }
        return x->meminfo;
}

/* Why a file could not be used, in words. */
static const char *why(int r) {
        switch (r) {
        case -ERANGE:
                return "a number out of range";
        case -EBADFD:
        case -EISDIR:
                return "not a regular file";
        case -EFBIG:
                return "larger than any such file";
        case -EINVAL:
        case -ENOENT:
                return "malformed";
        default:
                return strerror(-r);
        }
}

/* A file that could not be used: a warning naming it (as the host names it, /sys/...) and the
 * consequence. `code` is WARNING_SYSFS_MALFORMED when the rest still plans right, else
 * WARNING_HOST_UNPLANNABLE. */
_printf_(5, 0) static void unusable_v(struct reader *x, enum warning_code code, const char *path, int r,
                                      const char *fmt, va_list ap) {
        _cleanup_free_ char *consequence = xvasprintf(fmt, ap);
        warnings_add(x->w, code, NULL, "/%s: %s: %s", path, why(r), consequence);
}

_printf_(5, 6) static void unusable(struct reader *x, enum warning_code code, const char *path, int r, const char *fmt,
                                    ...) {
        va_list ap;

        va_start(ap, fmt);
        unusable_v(x, code, path, r, fmt, ap);
        va_end(ap);
}

/* Reads a CPU set from the list file `dir`/`list` or, failing that, the mask file `dir`/`mask`
 * (when there is one). *ret_found is false when neither could be read: absent, or unusable (then
 * said with `code` and the consequence that `fmt` words, formatted only then). */
_printf_(8, 9) static void read_cpuset(struct reader *x, const char *dir, const char *list, const char *mask,
                                       enum warning_code code, struct cpuset *ret, bool *ret_found, const char *fmt,
                                       ...) {
        const char *names[] = {list, mask};
        char paths[ELEMENTSOF(names)][128]; /* a CPU's or node's directory and an attribute name */
        int bad = 0;
        size_t bad_i = 0;

        *ret_found = false;
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *s = NULL;
                if (!names[i])
                        continue;
                /* Once per core of every CPU: joined by hand rather than with snprintf(). */
                size_t dl = strlen(dir), nl = strlen(names[i]);
                if (dl + 1 + nl >= sizeof(paths[i])) /* no caller's */
                        continue;
                memcpy(mempcpy(mempcpy(paths[i], dir, dl), "/", 1), names[i], nl + 1);
                int r = root_read_file(x->root, paths[i], &s, NULL);
                if (r >= 0)
                        r = i == 0 ? cpuset_parse_list(s, ret) : cpuset_parse_mask(s, ret);
                if (r >= 0) {
                        *ret_found = true;
                        if (bad) /* the kernel writes both alike: one of them is not the kernel's */
                                unusable(x, WARNING_SYSFS_MALFORMED, paths[bad_i], bad, "read from /%s instead",
                                         paths[i]);
                        return;
                }
                if (r != -ENOENT && !bad) {
                        bad = r;
                        bad_i = i;
                }
        }
        /* Cleared here, not before: a list parses into it cleared, and this runs once a core. */
        cpuset_clear(ret);
        if (bad) {
                va_list ap;
                va_start(ap, fmt);
                unusable_v(x, code, paths[bad_i], bad, fmt, ap);
                va_end(ap);
        }
}

/* The ids of a directory's "<prefix><number>" entries, e.g. cpu0 or node3. */
static int for_each_numbered(struct root *root, const char *dir, const char *prefix, struct cpuset *ret) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        cpuset_clear(ret);
        int r = root_opendir(root, dir, &d);
        if (r < 0)
                return r;
        while ((de = readdir(d))) {
                const char *num = startswith(de->d_name, prefix);
                int id;
                if (!num || !isdigit((unsigned char) *num) || parse_int(num, &id) < 0 || id >= CPUSET_MAX)
                        continue;
                cpuset_set(ret, (unsigned) id);
        }
        return 0;
}

static void read_cpus(struct reader *x, struct cpuset *ret_present, bool *ret_known) {
        struct topology *t = x->t;
        struct cpuset dirs;
        bool online_found, found;

        read_cpuset(x, SYS_CPU, "online", NULL, WARNING_SYSFS_MALFORMED, &t->online_cpus, &online_found,
                    "online CPUs taken from each cpuN/online");
        read_cpuset(x, SYS_CPU, "present", NULL, WARNING_SYSFS_MALFORMED, ret_present, &found,
                    "present CPUs taken from the cpuN directories");
        if (online_found && found) {
                *ret_known = true;
                return;
        }

        /* Without those lists, the cpuN directories say which CPUs exist. */
        bool have_dirs = for_each_numbered(x->root, SYS_CPU, "cpu", &dirs) >= 0 && !cpuset_is_empty(&dirs);
        if (!found)
                *ret_present = have_dirs ? dirs : t->online_cpus;
        if (!online_found) {
                /* Older kernels and some captures: each cpuN/online says "0" when offline; the boot
                 * CPU often has no such file and is always online. */
                cpuset_clear(&t->online_cpus);
                CPUSET_FOREACH(c, &dirs) {
                        _cleanup_free_ char *path = xasprintf(SYS_CPU "/cpu%d/online", c), *s = NULL;
                        if (root_read_string(x->root, path, &s) >= 0 && streq(s, "0"))
                                continue;
                        cpuset_set(&t->online_cpus, (unsigned) c);
                }
        }
        *ret_known = online_found || have_dirs;
}

/* SYS_CPU "/cpuN/topology", written without printf(): it is made once per core (512 times on a
 * 1,024-CPU host). */
static void cpu_topology_dir(char buf[static 64], int cpu) {
        char digits[12], *end = digits + sizeof(digits), *d = put_decimal(end, (unsigned) cpu);
        char *p = mempcpy(buf, SYS_CPU "/cpu", strlen(SYS_CPU "/cpu"));

        memcpy(mempcpy(p, d, (size_t) (end - d)), "/topology", sizeof("/topology"));
}

/* SMT siblings and packages, read once per core and once per package rather than per CPU. */
static void read_cpu_topology(struct reader *x) {
        struct topology *t = x->t;
        int n = t->max_cpu + 1;

        t->core_of = xmalloc0((size_t) (n > 0 ? n : 1) * sizeof(int));
        t->socket_of = xmalloc0((size_t) (n > 0 ? n : 1) * sizeof(int));
        for (int c = 0; c < n; c++)
                t->core_of[c] = t->socket_of[c] = -1;
        _cleanup_free_ bool *socket_done = xmalloc0((size_t) (n > 0 ? n : 1));

        CPUSET_FOREACH(c, &t->online_cpus) {
                if (t->core_of[c] >= 0 && socket_done[c]) /* a sibling of a CPU read already */
                        continue;
                char dir[64];
                cpu_topology_dir(dir, c);
                if (t->core_of[c] < 0) {
                        struct cpuset sib;
                        bool found;

                        read_cpuset(x, dir, "thread_siblings_list", "thread_siblings", WARNING_HOST_UNPLANNABLE, &sib,
                                    &found,
                                    "the SMT siblings of CPU %d are unknown, so cores cannot be split between "
                                    "replicas",
                                    c);
                        cpuset_and(&sib, &t->online_cpus);
                        cpuset_set(&sib, (unsigned) c);
                        int leader = cpuset_next(&sib, 0);
                        CPUSET_FOREACH(s, &sib)
                                if (t->core_of[s] < 0)
                                        t->core_of[s] = leader;
                }
                if (!socket_done[c]) {
                        _cleanup_free_ char *idp = xasprintf("%s/physical_package_id", dir), *s = NULL;
                        int id = -1;
                        struct cpuset pkg;
                        bool found;

                        int r = root_read_string(x->root, idp, &s);
                        if (r >= 0 && parse_int(s, &id) < 0) {
                                unusable(x, WARNING_SYSFS_MALFORMED, idp, -EINVAL, "CPU %d's socket is unknown", c);
                                id = -1;
                        }
                        read_cpuset(x, dir, "package_cpus_list", NULL, WARNING_SYSFS_MALFORMED, &pkg, &found,
                                    "sockets are shown as unknown");
                        if (!found) /* before Linux 5.10 */
                                read_cpuset(x, dir, "core_siblings_list", "core_siblings", WARNING_SYSFS_MALFORMED,
                                            &pkg, &found, "sockets are shown as unknown");
                        cpuset_and(&pkg, &t->online_cpus);
                        cpuset_set(&pkg, (unsigned) c);
                        CPUSET_FOREACH(s2, &pkg)
                                if (!socket_done[s2]) {
                                        socket_done[s2] = true;
                                        t->socket_of[s2] = id;
                                }
                }
        }
}

/* /proc/meminfo's Hugetlb counts the pages of every pool of every size: when it says 0, the
 * per-node pools need not be read one file at a time. Older kernels lack it: read them. */
static bool any_hugepages(struct reader *x) {
        const char *s = proc_meminfo(x);
        uint64_t v;
        return !s || meminfo_get(s, "Hugetlb", &v) < 0 || v > 0;
}

static void read_hugepages(struct reader *x, struct node *n) {
        _cleanup_free_ char *dir = xasprintf(SYS_NODE "/node%d/hugepages", n->id);
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        if (root_opendir(x->root, dir, &d) < 0)
                return;
        while ((de = readdir(d))) {
                const char *sz = startswith(de->d_name, "hugepages-");
                uint64_t kb;
                char *end;
                bool ok = true;

                if (!sz)
                        continue;
                kb = strtoull(sz, &end, 10);
                if (end == sz || !streq(end, "kB"))
                        continue;

                struct hugepage_pool pool = {.page_kb = kb};
                static const char *const files[] = {"nr_hugepages", "free_hugepages"};
                uint64_t *dst[] = {&pool.total, &pool.free};
                for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                        _cleanup_free_ char *p = xasprintf("%s/%s/%s", dir, de->d_name, files[i]), *s = NULL;
                        int r = root_read_string(x->root, p, &s);
                        if (r == -ENOENT)
                                continue;
                        if (r >= 0)
                                r = parse_uint64(s, 10, dst[i]);
                        if (r < 0) {
                                unusable(x, WARNING_SYSFS_MALFORMED, p, r, "node %d's %s kB pool is left out", n->id,
                                         sz);
                                ok = false;
                        }
                }
                if (!ok)
                        continue;
                n->hugepages = xrealloc(n->hugepages, (n->n_hugepages + 1) * sizeof(*n->hugepages));
                n->hugepages[n->n_hugepages++] = pool;
        }
        /* readdir order is arbitrary: smallest page size first. */
        for (size_t i = 1; i < n->n_hugepages; i++)
                for (size_t j = i; j > 0 && n->hugepages[j - 1].page_kb > n->hugepages[j].page_kb; j--) {
                        struct hugepage_pool tmp = n->hugepages[j];
                        n->hugepages[j] = n->hugepages[j - 1];
                        n->hugepages[j - 1] = tmp;
                }
}

/* A node's meminfo, or /proc/meminfo for a kernel without NUMA: total, free and available memory.
 * Available is what the kernel could hand out now: /proc/meminfo's MemAvailable, or for a node
 * (whose meminfo has none) free plus reclaimable: MemFree + FilePages - Shmem + SReclaimable. */
static void read_meminfo(struct reader *x, const char *path, struct node *n) {
        _cleanup_free_ char *s = NULL;
        uint64_t file = 0, shmem = 0, slab = 0;

        n->memory_known = false;
        int r = root_read_file(x->root, path, &s, NULL);
        if (r == -ENOENT) {
                warnings_add(x->w, WARNING_SYSFS_MALFORMED, NULL, "/%s: absent: node %d's memory is unknown", path,
                             n->id);
                return;
        }
        if (r >= 0)
                r = meminfo_get(s, "MemTotal", &n->mem_total);
        if (r < 0) {
                n->mem_total = 0;
                unusable(x, WARNING_HOST_UNPLANNABLE, path, r,
                         "node %d's memory is unknown, so no replica can be sized "
                         "against it",
                         n->id);
                return;
        }
        n->memory_known = true;
        r = meminfo_get(s, "MemFree", &n->mem_free);
        if (r < 0 && r != -ENOENT)
                unusable(x, WARNING_SYSFS_MALFORMED, path, r, "node %d's free memory is unknown", n->id);
        if (meminfo_get(s, "MemAvailable", &n->mem_available) >= 0)
                return;
        if (meminfo_get(s, "FilePages", &file) < 0 || meminfo_get(s, "Shmem", &shmem) < 0)
                file = shmem = 0; /* counted as not reclaimable */
        (void) meminfo_get(s, "SReclaimable", &slab);
        n->mem_available = n->mem_free + (file > shmem ? file - shmem : 0) + slab;
}

/* A node's distance row: one entry per online node, in node order. Older kernels (and captures of
 * them) list one per possible node: then the entry of node id k is the k-th. */
static void read_distances(struct reader *x, struct node *n, const struct cpuset *online) {
        _cleanup_free_ char *dp = xasprintf(SYS_NODE "/node%d/distance", n->id), *s = NULL;
        _cleanup_free_ int *row = NULL;
        size_t count, n_nodes = cpuset_count(online);
        int max_id = -1;

        CPUSET_FOREACH(id, online)
                max_id = id;
        int r = root_read_file(x->root, dp, &s, NULL);
        if (r == -ENOENT)
                return;
        if (r >= 0)
                r = distance_parse(s, &row, &count);
        if (r < 0) {
                unusable(x, WARNING_SYSFS_MALFORMED, dp, r,
                         "node %d's distances are unknown (10 local, 20 remote "
                         "assumed, as the kernel does without a table)",
                         n->id);
                return;
        }
        if (count == n_nodes) {
                n->distances = TAKE_PTR(row);
                return;
        }
        if (count > (size_t) max_id) {
                n->distances = xmalloc0(n_nodes * sizeof(int));
                size_t i = 0;
                CPUSET_FOREACH(id, online)
                        n->distances[i++] = row[id];
                warnings_add(x->w, WARNING_DISTANCE_ROW, NULL,
                             "/%s lists %zu distances for %zu online nodes (one per possible node, as older kernels "
                             "write it): read by node id",
                             dp, count, n_nodes);
                return;
        }
        warnings_add(x->w, WARNING_SYSFS_MALFORMED, NULL,
                     "/%s: %zu distances for %zu online nodes, and not one per possible node either: node %d's "
                     "distances are unknown (10 local, 20 remote assumed)",
                     dp, count, n_nodes, n->id);
}

static void read_node(struct reader *x, struct node *n, const struct cpuset *online, bool cpus_known, bool hugepages) {
        char dir[64], mi[80];
        bool found;

        snprintf(dir, sizeof(dir), SYS_NODE "/node%d", n->id);
        snprintf(mi, sizeof(mi), "%s/meminfo", dir);
        read_cpuset(x, dir, "cpulist", "cpumap", WARNING_HOST_UNPLANNABLE, &n->cpus, &found,
                    "node %d's CPUs are unknown", n->id);
        if (cpus_known)
                cpuset_and(&n->cpus, &x->t->online_cpus);
        read_meminfo(x, mi, n);
        read_distances(x, n, online);
        if (hugepages)
                read_hugepages(x, n);
}

static void finish_node(struct topology *t, struct node *n) {
        n->memory.accelerator = n->memory.tier = n->memory.kernel_tier = -1;
        if (cpuset_is_empty(&n->cpus))
                n->kind = NODE_MEMORY_ONLY;
        else if (!n->memory_known)
                n->kind = NODE_KIND_UNKNOWN;
        else if (n->mem_total == 0)
                n->kind = NODE_CPU_ONLY;
        else
                n->kind = NODE_CPU_MEMORY;

        /* A core is counted at the first of its threads seen in this node. */
        struct cpuset seen = {0};
        n->cores = 0;
        CPUSET_FOREACH(c, &n->cpus) {
                int core = t->core_of[c] >= 0 ? t->core_of[c] : c;
                if (!cpuset_isset(&seen, core)) {
                        cpuset_set(&seen, (unsigned) core);
                        n->cores++;
                }
        }
}

static void read_nodes(struct reader *x, bool cpus_known) {
        struct topology *t = x->t;
        struct cpuset ids;
        bool found;

        read_cpuset(x, SYS_NODE, "online", NULL, WARNING_SYSFS_MALFORMED, &ids, &found,
                    "nodes taken from the nodeN directories");
        if (found && cpuset_is_empty(&ids)) {
                /* A kernel with NUMA always has a node online: an empty list is not the kernel's. */
                warnings_add(x->w, WARNING_SYSFS_MALFORMED, NULL,
                             "/" SYS_NODE "/online is empty: nodes taken from the nodeN directories");
                found = false;
        }
        if (!found) {
                int r = for_each_numbered(x->root, SYS_NODE, "node", &ids);
                /* There and unreadable (a loop of links, a file): not a kernel without NUMA. */
                t->nodes_unreadable = r < 0 && r != -ENOENT;
                if (t->nodes_unreadable)
                        unusable(x, WARNING_HOST_UNPLANNABLE, SYS_NODE, r,
                                 "the NUMA nodes are unknown (shown as one node 0, which no plan can trust)");
        }

        if (cpuset_is_empty(&ids)) {
                /* No NUMA in this kernel: one node 0 with every online CPU and all of memory. */
                t->has_node_dirs = false;
                t->nodes = xmalloc0(sizeof(struct node));
                t->n_nodes = 1;
                struct node *n = &t->nodes[0];
                n->cpus = t->online_cpus;
                read_meminfo(x, "proc/meminfo", n);
                n->distances = xmalloc0(sizeof(int));
                n->distances[0] = 10;
                return;
        }

        t->has_node_dirs = true;
        bool hugepages = any_hugepages(x);
        t->n_nodes = cpuset_count(&ids);
        t->nodes = xmalloc0(t->n_nodes * sizeof(struct node));
        size_t i = 0;
        CPUSET_FOREACH(id, &ids) {
                t->nodes[i].id = id;
                read_node(x, &t->nodes[i], &ids, cpus_known, hugepages);
                i++;
        }
}

/* What the kernel itself would never write: a distance of 0 (the SLIT's 10 is local), a node
 * farther from itself than from another, a table that differs one way and the other; and more
 * memory free than there is. Reported, not refused: the plan still works, nearest-first may not. */
static void check_node_facts(const struct topology *t, struct warnings *w) {
        static const char *const what[] = {
                "hold a distance of 0 (the local distance is 10)",
                "list another node no farther than the node itself",
                "disagree with each other's (asymmetric distances)",
        };
        struct cpuset odd[ELEMENTSOF(what)] = {0};

        for (size_t i = 0; i < t->n_nodes; i++) {
                const struct node *n = &t->nodes[i];
                for (size_t j = 0; n->distances && j < t->n_nodes; j++) {
                        int d = n->distances[j];
                        if (d == 0)
                                cpuset_set(&odd[0], (unsigned) n->id);
                        else if (j != i && d <= n->distances[i])
                                cpuset_set(&odd[1], (unsigned) n->id);
                        else if (t->nodes[j].distances && d != t->nodes[j].distances[i])
                                cpuset_set(&odd[2], (unsigned) n->id);
                }
                if (n->mem_free > n->mem_total) {
                        char subject[16];
                        snprintf(subject, sizeof(subject), "%d", n->id);
                        warnings_add(w, WARNING_MEMINFO_INVALID, subject,
                                     "node %d's meminfo says more memory free (%" PRIu64 " bytes) than it has (%" PRIu64
                                     " bytes)",
                                     n->id, n->mem_free, n->mem_total);
                }
        }
        /* One warning a kind of fault, naming every node it touches: firmware gets a table wrong
         * all at once. */
        for (size_t k = 0; k < ELEMENTSOF(what); k++)
                if (!cpuset_is_empty(&odd[k])) {
                        _cleanup_free_ char *nodes = cpuset_format(&odd[k]);
                        warnings_add(w, WARNING_DISTANCES_INVALID, NULL,
                                     "the distance rows of node%s %s %s (the firmware's table is wrong, or the "
                                     "capture is corrupt): nearest-first placement follows the table as it is",
                                     cpuset_count(&odd[k]) > 1 ? "s" : "", nodes, what[k]);
                }
}

/* The huge page sizes the kernel offers (each has a pool per node), and its default: what
 * hugepages = is planned in. */
static void read_hugepage_sizes(struct reader *x) {
        const char *meminfo = proc_meminfo(x);
        uint64_t kb;
        _cleanup_closedir_ DIR *d = NULL;

        if (meminfo && meminfo_get(meminfo, "Hugepagesize", &kb) >= 0)
                x->t->hugepage_default_kb = kb / 1024; /* meminfo_get gives bytes */
        if (root_opendir(x->root, "sys/kernel/mm/hugepages", &d) < 0)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                const char *sz = startswith(de->d_name, "hugepages-");
                char *end;
                if (!sz)
                        continue;
                kb = strtoull(sz, &end, 10);
                if (end == sz || !streq(end, "kB") || kb == 0)
                        continue;
                size_t i = x->t->n_hugepage_sizes++;
                x->t->hugepage_sizes_kb = xrealloc(x->t->hugepage_sizes_kb, x->t->n_hugepage_sizes * sizeof(uint64_t));
                for (; i > 0 && x->t->hugepage_sizes_kb[i - 1] > kb; i--)
                        x->t->hugepage_sizes_kb[i] = x->t->hugepage_sizes_kb[i - 1];
                x->t->hugepage_sizes_kb[i] = kb;
        }
}

/* NUMA balancing and transparent huge pages: what moves pages behind a pinned replica's back, or
 * keeps them from being huge. */
static void read_host_settings(struct reader *x) {
        _cleanup_free_ char *nb = NULL, *thp = NULL;

        x->t->numa_balancing = -1;
        if (root_read_string(x->root, "proc/sys/kernel/numa_balancing", &nb) >= 0 &&
            parse_int(nb, &x->t->numa_balancing) < 0)
                x->t->numa_balancing = -1;
        /* "always [madvise] never": the bracketed one is in effect. */
        if (root_read_string(x->root, "sys/kernel/mm/transparent_hugepage/enabled", &thp) >= 0) {
                char *open = strchr(thp, '['), *close = open ? strchr(open, ']') : NULL;
                if (close)
                        x->t->thp = xstrndup(open + 1, (size_t) (close - open - 1));
        }
        read_hugepage_sizes(x);
}

int topology_read(struct root *root, unsigned flags, struct warnings *w, struct topology **ret) {
        _cleanup_topology_ struct topology *t = xmalloc0(sizeof(*t));
        struct reader x = {.root = root, .t = t, .w = w};
        struct cpuset present;
        bool cpus_known;
        int r;

        /* Without it there is no host here at all, not a host without CPUs: planning nothing would
         * remove every drop-in. */
        r = root_keep_dir(root, "sys/devices/system");
        if (r < 0) {
                _cleanup_free_ char *p = root_join(root, "sys/devices/system");
                return log_error_errno(r, "%s: %m: not a host's sysfs", p);
        }
        /* Each CPU's and node's files are opened from these, not walked to from the root. */
        (void) root_keep_dir(root, SYS_CPU);
        (void) root_keep_dir(root, SYS_NODE);

        read_cpus(&x, &present, &cpus_known);
        read_nodes(&x, cpus_known);
        topology_index_nodes(t);
        if (!cpus_known) {
                /* Nothing under cpu/: the nodes' own lists are all we know. */
                for (size_t i = 0; i < t->n_nodes; i++)
                        cpuset_or(&t->online_cpus, &t->nodes[i].cpus);
                present = t->online_cpus;
        }

        t->offline_cpus = present;
        cpuset_andnot(&t->offline_cpus, &t->online_cpus);
        t->max_cpu = -1;
        CPUSET_FOREACH(c, &t->online_cpus)
                t->max_cpu = c;

        read_cpu_topology(&x);
        if (flags & TOPOLOGY_KINDS)
                cpu_kinds_read(root, t);
        if (flags & TOPOLOGY_L3)
                l3_read(root, t);
        for (size_t i = 0; i < t->n_nodes; i++)
                finish_node(t, &t->nodes[i]);
        if (cpuset_is_empty(&t->online_cpus))
                warnings_add(w, WARNING_HOST_UNPLANNABLE, NULL,
                             "no online CPU found under /" SYS_CPU " nor in any node: nothing to place replicas on");
        check_node_facts(t, w);

        read_host_settings(&x);
        x.meminfo = mfree(x.meminfo);
        unsigned pci = (flags & TOPOLOGY_NAMES ? PCI_NAMES : 0) | (flags & TOPOLOGY_DEVICES ? PCI_DEVICES_TOO : 0) |
                       (flags & TOPOLOGY_TUNING ? PCI_CONFIG : 0) | (flags & TOPOLOGY_NICS ? PCI_NICS : 0);
        r = pci_read_devices(root, pci, w, t);
        if (r < 0)
                return r;
        memory_read(root, t, w);
        if (flags & TOPOLOGY_TUNING)
                host_tuning_read(root, t, w);
        if (flags & TOPOLOGY_IRQS)
                irqs_read(root, t, w);
        if (flags & TOPOLOGY_IRQS && flags & TOPOLOGY_TUNING)
                t->irqbalance = irqbalance_find(root);

        *ret = TAKE_PTR(t);
        return 0;
}

void topology_read_node_ids(struct root *root, struct cpuset *ret) {
        _cleanup_free_ char *s = NULL;

        if (root_read_file(root, SYS_NODE "/online", &s, NULL) < 0 || cpuset_parse_list(s, ret) < 0 ||
            cpuset_is_empty(ret))
                (void) for_each_numbered(root, SYS_NODE, "node", ret);
        if (cpuset_is_empty(ret))
                cpuset_set(ret, 0);
}

void topology_read_tuning(struct root *root, struct topology *t, struct warnings *w) {
        pci_read_config(root, t);
        host_tuning_read(root, t, w);
}
