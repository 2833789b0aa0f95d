/* SPDX-License-Identifier: MIT */
/* Reads nodes and CPUs from sysfs under a root. Kernel files are parsed strictly: a file that is
 * there but malformed is an error naming it; a file that is absent means the kernel (or the
 * capture) did not provide it, and the documented fallback applies. */

#include <ctype.h>
#include <inttypes.h>

#include "basic/log.h"
#include "basic/util.h"
#include "host/pci-read.h"
#include "host/root.h"
#include "host/sysfs-parse.h"
#include "host/topology-read.h"

#define SYS_CPU "sys/devices/system/cpu"
#define SYS_NODE "sys/devices/system/node"

static int malformed(struct root *root, const char *path, int r, const char *what) {
        _cleanup_free_ char *p = root_join(root, path);
        if (r == -ERANGE)
                return log_error_errno(r, "%s: %s out of range", p, what);
        if (r == -EBADFD || r == -EISDIR)
                return log_error_errno(r, "%s: not a regular file (a FIFO, device or directory where the kernel puts "
                                          "a %s)",
                                       p, what);
        if (r == -EFBIG)
                return log_error_errno(r, "%s: larger than any %s", p, what);
        return log_error_errno(r == -ENOENT ? -EINVAL : r, "%s: malformed %s", p, what);
}

/* Reads a CPU set from a list file or, failing that, a mask file. *ret_found is false when
 * neither exists. */
static int read_cpuset(struct root *root, const char *list_path, const char *mask_path, struct cpuset *ret,
                       bool *ret_found) {
        _cleanup_free_ char *s = NULL;
        int r;

        *ret_found = false;
        if (list_path) {
                r = root_read_file(root, list_path, &s, NULL);
                if (r >= 0) {
                        r = cpuset_parse_list(s, ret);
                        if (r < 0)
                                return malformed(root, list_path, r, "CPU list");
                        *ret_found = true;
                        return 0;
                }
                if (r != -ENOENT)
                        return malformed(root, list_path, r, "CPU list");
        }
        if (mask_path) {
                r = root_read_file(root, mask_path, &s, NULL);
                if (r >= 0) {
                        r = cpuset_parse_mask(s, ret);
                        if (r < 0)
                                return malformed(root, mask_path, r, "CPU mask");
                        *ret_found = true;
                        return 0;
                }
                if (r != -ENOENT)
                        return malformed(root, mask_path, r, "CPU mask");
        }
        cpuset_clear(ret);
        return 0;
}

/* The ids of a directory's "<prefix><number>" entries, e.g. cpu0 or node3. */
static int for_each_numbered(struct root *root, const char *dir, const char *prefix, struct cpuset *ret) {
        DIR *d;
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
        closedir(d);
        return 0;
}

static int read_cpus(struct root *root, struct topology *t, struct cpuset *ret_present, bool *ret_known) {
        struct cpuset dirs;
        bool found;
        int r;

        r = read_cpuset(root, SYS_CPU "/online", NULL, &t->online_cpus, &found);
        if (r < 0)
                return r;
        bool online_found = found;

        r = read_cpuset(root, SYS_CPU "/present", NULL, ret_present, &found);
        if (r < 0)
                return r;
        if (online_found && found) {
                *ret_known = true;
                return 0;
        }

        /* Without those lists, the cpuN directories say which CPUs exist. */
        bool have_dirs = for_each_numbered(root, SYS_CPU, "cpu", &dirs) >= 0 && !cpuset_is_empty(&dirs);
        if (!found)
                *ret_present = have_dirs ? dirs : t->online_cpus;
        if (!online_found) {
                /* Older kernels and some captures: each cpuN/online says "0" when offline; the boot
                 * CPU often has no such file and is always online. */
                cpuset_clear(&t->online_cpus);
                CPUSET_FOREACH(c, &dirs) {
                        _cleanup_free_ char *path = xasprintf(SYS_CPU "/cpu%d/online", c), *s = NULL;
                        if (root_read_string(root, path, &s) >= 0 && streq(s, "0"))
                                continue;
                        cpuset_set(&t->online_cpus, (unsigned) c);
                }
        }

        *ret_known = online_found || have_dirs;
        return 0;
}

/* SMT siblings and packages, read once per core and once per package rather than per CPU. */
static int read_cpu_topology(struct root *root, struct topology *t) {
        int n = t->max_cpu + 1;
        int r;

        t->core_of = xmalloc0((size_t) (n > 0 ? n : 1) * sizeof(int));
        t->socket_of = xmalloc0((size_t) (n > 0 ? n : 1) * sizeof(int));
        for (int c = 0; c < n; c++)
                t->core_of[c] = t->socket_of[c] = -1;
        bool *socket_done = xmalloc0((size_t) (n > 0 ? n : 1));

        CPUSET_FOREACH(c, &t->online_cpus) {
                if (t->core_of[c] < 0) {
                        _cleanup_free_ char *l = xasprintf(SYS_CPU "/cpu%d/topology/thread_siblings_list", c),
                                            *m = xasprintf(SYS_CPU "/cpu%d/topology/thread_siblings", c);
                        struct cpuset sib;
                        bool found;

                        r = read_cpuset(root, l, m, &sib, &found);
                        if (r < 0)
                                goto out;
                        cpuset_and(&sib, &t->online_cpus);
                        cpuset_set(&sib, (unsigned) c);
                        int leader = cpuset_next(&sib, 0);
                        CPUSET_FOREACH(s, &sib)
                                if (t->core_of[s] < 0)
                                        t->core_of[s] = leader;
                }
                if (!socket_done[c]) {
                        _cleanup_free_ char *idp = xasprintf(SYS_CPU "/cpu%d/topology/physical_package_id", c),
                                            *pl = xasprintf(SYS_CPU "/cpu%d/topology/package_cpus_list", c),
                                            *cl = xasprintf(SYS_CPU "/cpu%d/topology/core_siblings_list", c),
                                            *cm = xasprintf(SYS_CPU "/cpu%d/topology/core_siblings", c),
                                            *s = NULL;
                        int id = -1;
                        struct cpuset pkg;
                        bool found;

                        r = root_read_string(root, idp, &s);
                        if (r >= 0 && parse_int(s, &id) < 0) {
                                r = malformed(root, idp, -EINVAL, "package id");
                                goto out;
                        }
                        r = read_cpuset(root, pl, NULL, &pkg, &found);
                        if (r >= 0 && !found)
                                r = read_cpuset(root, cl, cm, &pkg, &found); /* before Linux 5.10 */
                        if (r < 0)
                                goto out;
                        cpuset_and(&pkg, &t->online_cpus);
                        cpuset_set(&pkg, (unsigned) c);
                        CPUSET_FOREACH(s2, &pkg)
                                if (!socket_done[s2]) {
                                        socket_done[s2] = true;
                                        t->socket_of[s2] = id;
                                }
                }
        }
        r = 0;
out:
        free(socket_done);
        return r;
}

/* /proc/meminfo's Hugetlb counts the pages of every pool of every size: when it says 0, the
 * per-node pools need not be read one file at a time. Older kernels lack it: read them. */
static bool any_hugepages(struct root *root) {
        _cleanup_free_ char *s = NULL;
        uint64_t v;
        return root_read_file(root, "proc/meminfo", &s, NULL) < 0 || meminfo_get(s, "Hugetlb", &v) < 0 || v > 0;
}

static int read_hugepages(struct root *root, struct node *n) {
        _cleanup_free_ char *dir = xasprintf(SYS_NODE "/node%d/hugepages", n->id);
        DIR *d;
        struct dirent *de;

        if (root_opendir(root, dir, &d) < 0)
                return 0;
        while ((de = readdir(d))) {
                const char *sz = startswith(de->d_name, "hugepages-");
                uint64_t kb;
                char *end;

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
                        if (root_read_string(root, p, &s) < 0)
                                continue;
                        if (parse_uint64(s, 10, dst[i]) < 0) {
                                closedir(d);
                                return malformed(root, p, -EINVAL, "page count");
                        }
                }
                n->hugepages = xrealloc(n->hugepages, (n->n_hugepages + 1) * sizeof(*n->hugepages));
                n->hugepages[n->n_hugepages++] = pool;
        }
        closedir(d);
        /* readdir order is arbitrary: smallest page size first. */
        for (size_t i = 1; i < n->n_hugepages; i++)
                for (size_t j = i; j > 0 && n->hugepages[j - 1].page_kb > n->hugepages[j].page_kb; j--) {
                        struct hugepage_pool tmp = n->hugepages[j];
                        n->hugepages[j] = n->hugepages[j - 1];
                        n->hugepages[j - 1] = tmp;
                }
        return 0;
}

/* MemTotal and MemFree of a node's meminfo, or of /proc/meminfo for a kernel without NUMA. An
 * absent file reads as 0 bytes unless `required`. */
static int read_meminfo(struct root *root, const char *path, bool required, struct node *n) {
        _cleanup_free_ char *s = NULL;

        int r = root_read_file(root, path, &s, NULL);
        if (r == -ENOENT && !required)
                return 0;
        if (r == -ENOENT) {
                _cleanup_free_ char *p = root_join(root, path);
                return log_error_errno(r, "%s: %m", p);
        }
        if (r < 0)
                return malformed(root, path, r, "meminfo");
        r = meminfo_get(s, "MemTotal", &n->mem_total);
        if (r < 0)
                return malformed(root, path, r, "meminfo (MemTotal)");
        r = meminfo_get(s, "MemFree", &n->mem_free);
        if (r < 0 && r != -ENOENT)
                return malformed(root, path, r, "meminfo (MemFree)");
        return 0;
}

static int read_node(struct root *root, struct topology *t, struct node *n, size_t n_nodes, bool cpus_known,
                     bool hugepages) {
        _cleanup_free_ char *cl = xasprintf(SYS_NODE "/node%d/cpulist", n->id),
                            *cm = xasprintf(SYS_NODE "/node%d/cpumap", n->id),
                            *mi = xasprintf(SYS_NODE "/node%d/meminfo", n->id),
                            *dp = xasprintf(SYS_NODE "/node%d/distance", n->id), *s = NULL;
        bool found;
        int r;

        r = read_cpuset(root, cl, cm, &n->cpus, &found);
        if (r < 0)
                return r;
        if (cpus_known)
                cpuset_and(&n->cpus, &t->online_cpus);

        r = read_meminfo(root, mi, false, n);
        if (r < 0)
                return r;

        r = root_read_file(root, dp, &s, NULL);
        if (r >= 0) {
                size_t count;
                r = distance_parse(s, &n->distances, &count);
                if (r < 0)
                        return malformed(root, dp, r, "distance row");
                if (count != n_nodes) {
                        _cleanup_free_ char *p = root_join(root, dp);
                        return log_error_errno(-EINVAL, "%s: %zu distances for %zu online nodes", p, count,
                                               n_nodes);
                }
        } else if (r != -ENOENT)
                return malformed(root, dp, r, "distance row");

        return hugepages ? read_hugepages(root, n) : 0;
}

static void finish_node(struct topology *t, struct node *n) {
        if (cpuset_is_empty(&n->cpus))
                n->kind = NODE_MEMORY_ONLY;
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

static int read_nodes(struct root *root, struct topology *t, bool cpus_known) {
        struct cpuset ids;
        bool found;
        int r;

        r = read_cpuset(root, SYS_NODE "/online", NULL, &ids, &found);
        if (r < 0)
                return r;
        if (!found)
                (void) for_each_numbered(root, SYS_NODE, "node", &ids);

        if (cpuset_is_empty(&ids)) {
                /* No NUMA in this kernel: one node 0 with every online CPU and all of memory. */
                t->has_node_dirs = false;
                t->nodes = xmalloc0(sizeof(struct node));
                t->n_nodes = 1;
                struct node *n = &t->nodes[0];
                n->cpus = t->online_cpus;
                r = read_meminfo(root, "proc/meminfo", true, n);
                if (r < 0)
                        return r;
                n->distances = xmalloc0(sizeof(int));
                n->distances[0] = 10;
                return 0;
        }

        t->has_node_dirs = true;
        bool hugepages = any_hugepages(root);
        t->n_nodes = cpuset_count(&ids);
        t->nodes = xmalloc0(t->n_nodes * sizeof(struct node));
        size_t i = 0;
        CPUSET_FOREACH(id, &ids) {
                t->nodes[i].id = id;
                r = read_node(root, t, &t->nodes[i], t->n_nodes, cpus_known, hugepages);
                if (r < 0)
                        return r;
                i++;
        }
        return 0;
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

int topology_read(struct root *root, unsigned flags, struct warnings *w, struct topology **ret) {
        _cleanup_topology_ struct topology *t = xmalloc0(sizeof(*t));
        struct cpuset present;
        bool cpus_known;
        DIR *d;
        int r;

        /* Without it there is no host here at all, not a host without CPUs: planning nothing would
         * remove every drop-in. */
        r = root_opendir(root, "sys/devices/system", &d);
        if (r < 0) {
                _cleanup_free_ char *p = root_join(root, "sys/devices/system");
                return log_error_errno(r, "%s: %m: not a host's sysfs", p);
        }
        closedir(d);
        r = read_cpus(root, t, &present, &cpus_known);
        if (r < 0)
                return r;
        r = read_nodes(root, t, cpus_known);
        if (r < 0)
                return r;
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

        r = read_cpu_topology(root, t);
        if (r < 0)
                return r;
        for (size_t i = 0; i < t->n_nodes; i++)
                finish_node(t, &t->nodes[i]);
        if (cpuset_is_empty(&t->online_cpus)) {
                _cleanup_free_ char *p = root_join(root, SYS_CPU);
                return log_error_errno(-ENOENT, "%s: no online CPU found: not a host's sysfs", p);
        }
        check_node_facts(t, w);

        r = pci_read_accelerators(root, flags & TOPOLOGY_NAMES, w, t);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(t);
        return 0;
}
