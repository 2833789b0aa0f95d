/* SPDX-License-Identifier: MIT */
/* topology_read() on small hand-made roots: strict parsing, the documented fallbacks, and what a
 * trimmed PCI tree becomes. */

#include <sys/stat.h>

#include "basic/log.h"
#include "basic/util.h"
#include "host/root.h"
#include "host/topology-read.h"
#include "tap.h"
#include "tmproot.h"

static struct warnings warnings;

/* Whether the last read gave a warning of `code` whose message contains `text`. */
static bool has_warning(enum warning_code code, const char *text) {
        for (size_t i = 0; i < warnings.n; i++)
                if (warnings.v[i].code == code && strstr(warnings.v[i].message, text))
                        return true;
        return false;
}

static struct topology *read_root(const char *dir, int *ret) {
        _cleanup_root_ struct root *root = NULL;
        struct topology *t = NULL;

        warnings_done(&warnings);
        *ret = root_open(dir, 0, &root);
        if (*ret < 0)
                return NULL;
        *ret = topology_read(root, TOPOLOGY_NAMES, &warnings, &t);
        return t;
}

static void base_host(const char *d) {
        write_file(d, "sys/devices/system/cpu/online", "0-3\n");
        write_file(d, "sys/devices/system/cpu/present", "0-3\n");
        write_file(d, "sys/devices/system/node/online", "0-1\n");
        write_file(d, "sys/devices/system/node/node0/cpulist", "0-3\n");
        write_file(d, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 1024 kB\nNode 0 MemFree: 512 kB\n");
        write_file(d, "sys/devices/system/node/node0/distance", "10 20\n");
        write_file(d, "sys/devices/system/node/node1/cpulist", "\n");
        write_file(d, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 2048 kB\nNode 1 MemFree: 2048 kB\n");
        write_file(d, "sys/devices/system/node/node1/distance", "20 10\n");
}

static void test_read(void) {
        int r;
        _cleanup_tmpdir_ char *d = make_tmpdir();
        base_host(d);

        struct topology *t = read_root(d, &r);
        if (ok(r == 0 && t && t->n_nodes == 2, "two nodes read")) {
                ok(t->nodes[1].kind == NODE_MEMORY_ONLY && cpuset_is_empty(&t->nodes[1].cpus),
                   "an empty cpulist is no CPUs: memory-only");
                is_int(t->nodes[0].mem_total, 1024 * 1024, "MemTotal in bytes");
                is_int(t->nodes[0].cores, 4, "no topology files: each CPU is a core");
                is_int(topology_distance(t, 0, 1), 20, "distance 0->1");
        }
        topology_free(t);

        /* SMT: CPUs 0 and 2 are one core. */
        write_file(d, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,2\n");
        write_file(d, "sys/devices/system/cpu/cpu2/topology/thread_siblings_list", "0,2\n");
        t = read_root(d, &r);
        ok(r == 0 && t && t->nodes[0].cores == 3, "SMT siblings are one core");
        topology_free(t);

        /* A malformed file is never guessed at: it is reported, the rest is read, and what makes
         * a plan wrong has severity error. */
        write_file(d, "sys/devices/system/node/node0/cpulist", "0-3x\n");
        t = read_root(d, &r);
        ok(r == 0 && t && cpuset_is_empty(&t->nodes[0].cpus) && has_warning(WARNING_HOST_UNPLANNABLE, "node0/cpulist"),
           "a malformed cpulist: the node's CPUs unknown, a host-unplannable warning naming the file");
        topology_free(t);
        write_file(d, "sys/devices/system/node/node0/cpulist", "0-3\n");

        write_file(d, "sys/devices/system/node/node0/distance", "10\n");
        t = read_root(d, &r);
        ok(r == 0 && t && !t->nodes[0].distances && has_warning(WARNING_SYSFS_MALFORMED, "node0/distance") &&
                   warnings_count(&warnings, SEVERITY_ERROR) == 0,
           "a distance row of the wrong length: no distances for that node, a warning, still plannable");
        topology_free(t);
        write_file(d, "sys/devices/system/node/node0/distance", "10 20 30 40\n");
        write_file(d, "sys/devices/system/node/node1/distance", "20 10 30 40\n");
        t = read_root(d, &r);
        ok(r == 0 && t && t->nodes[1].distances && t->nodes[1].distances[0] == 20 &&
                   has_warning(WARNING_DISTANCE_ROW, ""),
           "one distance per possible node (older kernels): read by node id, with a notice");
        topology_free(t);
        write_file(d, "sys/devices/system/node/node0/distance", "10 20\n");
        write_file(d, "sys/devices/system/node/node1/distance", "20 10\n");

        write_file(d, "sys/devices/system/node/node0/meminfo", "Node 0 MemFree: 512 kB\n");
        t = read_root(d, &r);
        ok(r == 0 && t && t->nodes[0].mem_total == 0 && has_warning(WARNING_HOST_UNPLANNABLE, "node0/meminfo"),
           "meminfo without MemTotal: memory unknown, host-unplannable");
        topology_free(t);
        write_file(d, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 1024 kB\n");

        write_file(d, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "zz\n");
        t = read_root(d, &r);
        ok(r == 0 && t && has_warning(WARNING_HOST_UNPLANNABLE, "SMT siblings of CPU 0"),
           "unreadable SMT siblings: host-unplannable");
        topology_free(t);
        write_file(d, "sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "0,2\n");

        /* The online list wins over the directories; offline CPUs leave the node lists. */
        write_file(d, "sys/devices/system/cpu/online", "0-2\n");
        t = read_root(d, &r);
        if (ok(r == 0 && t, "offline CPU read")) {
                _cleanup_free_ char *s = cpuset_format(&t->nodes[0].cpus), *o = cpuset_format(&t->offline_cpus);
                is_str(s, "0-2", "node cpus restricted to online");
                is_str(o, "3", "CPU 3 is present but offline");
        }
        topology_free(t);
}

static void test_fallbacks(void) {
        int r;
        _cleanup_tmpdir_ char *d = make_tmpdir();

        /* A small board: no node directory and no /proc/meminfo. Reported, memory unknown. */
        _cleanup_tmpdir_ char *b = make_tmpdir();
        write_file(b, "sys/devices/system/cpu/online", "0-3\n");
        struct topology *t0 = read_root(b, &r);
        ok(r == 0 && t0 && t0->n_nodes == 1 && t0->nodes[0].mem_total == 0 && !t0->nodes[0].memory_known &&
                   has_warning(WARNING_SYSFS_MALFORMED, "proc/meminfo: absent"),
           "neither node directories nor /proc/meminfo: one node, memory unknown, said");
        topology_free(t0);

        /* No node directory: one node 0 with every online CPU and /proc/meminfo's MemTotal. */
        write_file(d, "sys/devices/system/cpu/online", "0-1\n");
        write_file(d, "proc/meminfo", "MemTotal: 4096 kB\nMemFree: 1024 kB\n");
        struct topology *t = read_root(d, &r);
        if (ok(r == 0 && t && t->n_nodes == 1 && !t->has_node_dirs, "no node directory: one node")) {
                _cleanup_free_ char *s = cpuset_format(&t->nodes[0].cpus);
                is_str(s, "0-1", "node 0 holds every online CPU");
                is_int(t->nodes[0].mem_total, 4096 * 1024, "node 0 holds MemTotal");
        }
        topology_free(t);

        /* No cpu/online, no node/online: cpuN directories and their online files, node directories. */
        _cleanup_tmpdir_ char *e = make_tmpdir();
        write_file(e, "sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
        write_file(e, "sys/devices/system/cpu/cpu1/online", "0\n");
        write_file(e, "sys/devices/system/cpu/cpu2/online", "1\n");
        write_file(e, "sys/devices/system/node/node4/cpumap", "00000007\n");
        write_file(e, "sys/devices/system/node/node4/meminfo", "Node 4 MemTotal: 8 kB\n");
        t = read_root(e, &r);
        if (ok(r == 0 && t && t->n_nodes == 1, "node directories without an online list")) {
                _cleanup_free_ char *s = cpuset_format(&t->nodes[0].cpus);
                is_int(t->nodes[0].id, 4, "node id from the directory name");
                is_str(s, "0,2", "cpumap restricted by each CPU's online file");
                ok(t->nodes[0].distances == NULL, "no distance file: none invented");
        }
        topology_free(t);
}

/* This machine's own root: its sysfs and procfs files read without the regular-file check, with
 * the same answers the check gives; a capture's FIFO is still refused by it. */
static void test_live_root(void) {
        _cleanup_root_ struct root *live = NULL;
        _cleanup_free_ char *status = NULL, *dir = NULL, *fifo = NULL;

        if (!ok(root_open("/", 0, &live) == 0 && root_is_live(live), "/ is the live root"))
                return;
        ok(root_read_file(live, "proc/self/status", &status, NULL) == 0 && strstr(status, "Cpus_allowed_list:"),
           "a procfs file reads whole");
        is_int(root_read_file(live, "sys/devices/system/cpu", &dir, NULL), -EISDIR, "a sysfs directory: -EISDIR");
        is_int(root_read_file(live, "proc/self", &dir, NULL), -EISDIR, "a procfs directory: -EISDIR");

        _cleanup_tmpdir_ char *c = make_tmpdir();
        _cleanup_free_ char *path = xasprintf("%s/sys", c);
        _cleanup_root_ struct root *capture = NULL;
        if (mkdir(path, 0755) < 0 || !(fifo = xasprintf("%s/fifo", path)) || mkfifo(fifo, 0644) < 0)
                abort();
        ok(root_open(c, 0, &capture) == 0, "a capture opens");
        is_int(root_read_file(capture, "sys/fifo", &dir, NULL), -EBADFD, "a capture's FIFO under sys/: -EBADFD");
}

int main(void) {
        log_set_max_level(LOG_ERR - 1); /* the failures below are expected */
        test_read();
        test_fallbacks();
        test_live_root();
        warnings_done(&warnings);
        return done_testing();
}
