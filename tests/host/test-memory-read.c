/* SPDX-License-Identifier: MIT */
/* What each node's memory is, read from the fixture hosts (a GB200-like tray, a host of tiered
 * memory) and from hand-made roots: GPU memory from numa_status, a coherent GPU whose memory is no
 * node (CDMM), DAX kmem nodes, HMAT's access classes, the kernel's tiers. */

#include "basic/log.h"
#include "basic/util.h"
#include "host/root.h"
#include "host/topology-read.h"
#include "tap.h"
#include "tmproot.h"

static const char *fixtures;

static struct topology *read_host(const char *dir) {
        _cleanup_root_ struct root *root = NULL;
        struct warnings w = {0};
        struct topology *t = NULL;

        if (root_open(dir, 0, &root) < 0 || topology_read(root, 0, &w, &t) < 0)
                t = NULL;
        warnings_done(&w);
        return t;
}

static const struct node_memory *mem(const struct topology *t, int id) {
        const struct node *n = topology_node(t, id);
        return n ? &n->memory : NULL;
}

static void test_gb200(void) {
        _cleanup_free_ char *dir = xasprintf("%s/hosts/gb200-tray", fixtures);
        _cleanup_topology_ struct topology *t = read_host(dir);

        if (!ok(t && t->n_nodes == 34 && t->n_accels == 4, "the tray: 34 nodes, 4 GPUs"))
                return;
        const struct node_memory *m = mem(t, 10);
        ok(m->kinds == MEMORY_GPU && m->owner_pci && streq(m->owner_pci, "0009:01:00.0") && m->accelerator == 1,
           "node 10 is the second GPU's memory, by its numa_status");
        is_int(m->tier, 1, "GPU memory in the tier after the CPUs'");
        ok(mem(t, 0)->kinds == 0 && mem(t, 0)->tier == 0, "Grace's memory: tier 0, no kind (nothing says DRAM)");
        ok(mem(t, 11)->kinds == 0 && mem(t, 11)->tier == -1 && !mem(t, 11)->owner_pci,
           "a node reserved for MIG without memory: nothing");
        is_int(t->n_driver_managed_gpus, 0, "no GPU's memory is left out of the nodes");
}

static void test_tiered(void) {
        _cleanup_free_ char *dir = xasprintf("%s/hosts/tiered-memory", fixtures);
        _cleanup_topology_ struct topology *t = read_host(dir);

        if (!ok(t && t->n_nodes == 6, "the tiered host: 6 nodes"))
                return;
        ok(mem(t, 0)->read_bandwidth == 100000 && mem(t, 0)->write_latency == 110, "access1 (CPUs) before access0");
        ok(mem(t, 2)->read_bandwidth == 400000 && mem(t, 2)->dax_device && streq(mem(t, 2)->dax_device, "dax0.0"),
           "access0 where there is no access1; the DAX device that made the node");
        is_str(memory_kind_name(mem(t, 2)->kinds), "HBM", "soft-reserved memory over twice DRAM's bandwidth: HBM");
        is_str(memory_kind_name(mem(t, 1)->kinds), "DRAM", "and the CPUs' memory DRAM");
        is_str(memory_kind_name(mem(t, 4)->kinds), "NVM", "a DAX device under an ndbus: NVM");
        is_str(memory_kind_name(mem(t, 5)->kinds), "CXL-DRAM", "one in a CXL region: CXL-DRAM");
        ok(mem(t, 2)->tier == 0 && mem(t, 0)->tier == 1 && mem(t, 5)->tier == 2 && mem(t, 4)->tier == 3,
           "tiers by bandwidth: HBM, DRAM, CXL, NVM");
        ok(mem(t, 2)->kernel_tier == 3 && mem(t, 0)->kernel_tier == 4 && mem(t, 4)->kernel_tier == 22,
           "the kernel's memory tiers");
        ok(mem(t, 0)->accelerator == -1 && !mem(t, 0)->owner_pci, "PCIe GPUs own no node");
}

static void two_nodes(const char *d) {
        write_file(d, "sys/devices/system/cpu/online", "0-1\n");
        write_file(d, "sys/devices/system/node/online", "0-1\n");
        write_file(d, "sys/devices/system/node/node0/cpulist", "0-1\n");
        write_file(d, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 1048576 kB\n");
        write_file(d, "sys/devices/system/node/node1/cpulist", "\n");
        write_file(d, "sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 1048576 kB\n");
}

static void test_cdmm(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        two_nodes(d);
        /* A coherent GPU whose driver onlined nothing: numa_status there, no node in it. */
        write_file(d, "proc/driver/nvidia/gpus/0009:01:00.0/numa_status", "Status:    offline\n");
        struct topology *t = read_host(d);
        if (ok(t && t->n_driver_managed_gpus == 1 && streq(t->driver_managed_gpus[0], "0009:01:00.0"),
               "a coherent GPU whose memory is no node: said"))
                ok(mem(t, 1)->kinds == 0, "and no node is named GPU memory");
        topology_free(t);

        write_file(d, "proc/driver/nvidia/gpus/0009:01:00.0/numa_status", "Node:      7\nStatus:    online\n");
        t = read_host(d);
        ok(t && t->n_driver_managed_gpus == 1, "a node that is not online: not a node either");
        topology_free(t);

        write_file(d, "proc/driver/nvidia/gpus/0009:01:00.0/numa_status", "Node:      1\nStatus:    online\n");
        t = read_host(d);
        ok(t && t->n_driver_managed_gpus == 0 && mem(t, 1)->kinds == MEMORY_GPU && mem(t, 1)->accelerator == -1,
           "an online node: GPU memory, its owner not in the PCI tree");
        topology_free(t);
}

/* The topology of `dir` and the message of its first warning of `code` (NULL: none). */
static struct topology *read_host_warning(const char *dir, enum warning_code code, char **ret_message) {
        _cleanup_root_ struct root *root = NULL;
        struct warnings w = {0};
        struct topology *t = NULL;

        *ret_message = NULL;
        if (root_open(dir, 0, &root) < 0 || topology_read(root, 0, &w, &t) < 0)
                t = NULL;
        for (size_t i = 0; i < w.n && !*ret_message; i++)
                if (w.v[i].code == code)
                        *ret_message = xstrdup(w.v[i].message);
        warnings_done(&w);
        return t;
}

/* A directory of the NVIDIA driver's that names no PCI address: left out, named escaped. */
static void test_nvidia_names(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *msg = NULL;
        two_nodes(d);
        write_file(d, "proc/driver/nvidia/gpus/gpu\x1b[31m\nA/numa_status", "Node:      1\nStatus:    online\n");
        write_file(d, "proc/driver/nvidia/gpus/0009:01:00.0/numa_status", "Status:    offline\n");
        struct topology *t = read_host_warning(d, WARNING_SYSFS_MALFORMED, &msg);
        ok(t && mem(t, 1)->kinds == 0 && !mem(t, 1)->owner_pci, "a GPU directory named ESC [ 31m, newline: no owner");
        ok(t && t->n_driver_managed_gpus == 1 && streq(t->driver_managed_gpus[0], "0009:01:00.0"),
           "the GPU named by its address as before");
        is_str(msg, "/proc/driver/nvidia/gpus/gpu\\x1b[31m\\nA: malformed: not a PCI address, left out",
               "the other named, escaped, as sysfs-malformed");
        topology_free(t);
}

/* A node that two tiers list: the lowest kept, whatever order readdir gives, and said. */
static void test_tier_overlap(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *msg = NULL;
        two_nodes(d);
        write_file(d, "sys/devices/virtual/memory_tiering/memory_tier4/nodelist", "0-1\n");
        write_file(d, "sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "1\n");
        write_file(d, "sys/devices/virtual/memory_tiering/memory_tier3/nodelist", "1\n");
        struct topology *t = read_host_warning(d, WARNING_OVERLAPPING_MEMORY_TIERS, &msg);
        ok(t && mem(t, 0)->kernel_tier == 4 && mem(t, 1)->kernel_tier == 3,
           "node 1, listed in tiers 3, 4 and 22: tier 3, the lowest");
        is_str(msg,
               "node 1 is listed in memory tiers 3, 4, 22 (/sys/devices/virtual/memory_tiering/memory_tierK/nodelist), "
               "where the kernel puts a node in one: its kernel tier is taken as the lowest, 3",
               "warned of as overlapping-memory-tiers, every tier named");
        topology_free(t);
        free(msg);
        write_file(d, "sys/devices/virtual/memory_tiering/memory_tier22/nodelist", "\n");
        write_file(d, "sys/devices/virtual/memory_tiering/memory_tier3/nodelist", "\n");
        t = read_host_warning(d, WARNING_OVERLAPPING_MEMORY_TIERS, &msg);
        ok(t && mem(t, 1)->kernel_tier == 4 && !msg, "each node in one tier: no warning");
        topology_free(t);
}

int main(int argc, char **argv) {
        if (argc < 2)
                return 1;
        fixtures = argv[1];
        log_set_max_level(LOG_ERR);
        test_gb200();
        test_tiered();
        test_cdmm();
        test_nvidia_names();
        test_tier_overlap();
        return done_testing();
}
