/* SPDX-License-Identifier: MIT */
/* One replica over accelerators on two nodes, on a host made here: bound, not interleaved, its
 * memory booked by its ranks; each rank's node and share of the CPUs in the order of the visible
 * devices, and the drop-in's variables; which device file a mapping is, which accelerator a
 * process drives, a model's spread; and the rank-locality check, passing and failing. */

#include "basic/util.h"
#include "core/config.h"
#include "core/dropin.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"
#include "core/rank-locality.h"
#include "core/ranks.h"
#include "core/topology.h"
#include "core/verify-checks.h"
#include "core/warnings.h"
#include "tap.h"

/* Two nodes: CPUs 0-3 and 4-7, SMT siblings 8-11 and 12-15 (CPU c and c + 8 one core), 64 GiB
 * each. Accelerators in PCI order: NVIDIA 0000:10 and 0000:20 on node 0, an AMD GPU 0000:30 on
 * node 1, NVIDIA 0000:40 on node 1, a display controller 0000:50 on node 1. */
static struct topology *host(void) {
        static const struct {
                const char *pci;
                uint16_t vendor;
                bool compute;
                int node;
        } accels[] = {{"0000:10:00.0", 0x10de, true, 0},
                      {"0000:20:00.0", 0x10de, true, 0},
                      {"0000:30:00.0", 0x1002, true, 1},
                      {"0000:40:00.0", 0x10de, true, 1},
                      {"0000:50:00.0", 0x1234, false, 1}};
        struct topology *t = xmalloc0(sizeof(*t));
        t->has_node_dirs = true;
        t->n_nodes = 2;
        t->nodes = xmalloc0(2 * sizeof(*t->nodes));
        t->core_of = xmalloc0(17 * sizeof(int));
        t->max_cpu = 15;
        for (int i = 0; i < 2; i++) {
                struct node *n = &t->nodes[i];
                n->id = i;
                n->mem_total = n->mem_free = n->mem_available = UINT64_C(64) << 30;
                n->memory_known = true;
                n->kind = NODE_CPU_MEMORY;
                n->memory =
                        (struct node_memory){.kinds = MEMORY_DRAM, .accelerator = -1, .tier = -1, .kernel_tier = -1};
                for (int c = 0; c < 4; c++) {
                        cpuset_set(&n->cpus, (unsigned) (i * 4 + c));
                        cpuset_set(&n->cpus, (unsigned) (i * 4 + c + 8));
                }
                cpuset_or(&t->online_cpus, &n->cpus);
                n->cores = 4;
        }
        for (int c = 0; c < 16; c++)
                t->core_of[c] = c % 8;
        t->n_accels = ELEMENTSOF(accels);
        t->accels = xmalloc0((t->n_accels + 1) * sizeof(*t->accels));
        for (size_t i = 0; i < t->n_accels; i++) {
                struct pci_device *a = &t->accels[i];
                *a = (struct pci_device){.kind = PCI_ACCELERATOR,
                                         .ids_known = true,
                                         .vendor = accels[i].vendor,
                                         .compute = accels[i].compute,
                                         .numa_node = accels[i].node,
                                         .sysfs_numa_node = accels[i].node,
                                         .numa_source = NUMA_SOURCE_NUMA_NODE,
                                         .index = -1};
                snprintf(a->pci, sizeof(a->pci), "%s", accels[i].pci);
                pci_address_parse(a->pci, false, &a->address);
        }
        return t;
}

static struct plan *plan_of(const struct topology *t, const char *text, struct config **ret) {
        struct config *c = NULL;
        struct error_at err = {0};
        struct warnings w = {0};
        struct plan *p = NULL;
        if (config_parse_string(text, "test.conf", &c, &err) < 0 || plan_compute(t, c, &w, &p, &err) < 0) {
                printf("#   %s\n", strempty(err.message));
                free(err.message);
                p = NULL;
        }
        warnings_done(&w);
        *ret = c;
        return p;
}

static void ranks(void) {
        _cleanup_topology_ struct topology *t = host();
        _cleanup_config_ struct config *c = NULL;
        static const struct dropin_env env = {.marker = "/run/numaplan/unplaced", .marker_blocks = true};
        _cleanup_plan_ struct plan *p =
                plan_of(t,
                        "[replica tp]\nunit = tp.service\n"
                        "accelerators = 10:00.0 20:00.0 30:00.0 40:00.0 50:00.0\nmemory = 40G\n",
                        &c);
        if (!ok(p != NULL, "a replica over five accelerators on two nodes plans"))
                return;
        const struct placement *pl = &p->replicas[0];
        ok(pl->policy == POLICY_BIND, "bound over both nodes, not interleaved");
        is_int(plan_node(p, 0)->assigned, UINT64_C(16) << 30, "two of its five ranks on node 0: 2/5 of 40G");
        is_int(plan_node(p, 1)->assigned, UINT64_C(24) << 30, "three on node 1: 3/5");
        _cleanup_free_ char *nodes = ranks_nodes_text(pl), *cpus = ranks_cpus_text(pl);
        /* CUDA's devices in its order, then ROCm's, then the display controller. */
        is_str(nodes, "0,0,1,1,1", "each accelerator's node, NVIDIA's first, then AMD's, then the rest");
        is_str(t->accels[pl->ranks[2].accel].pci, "0000:40:00.0", "the third rank is CUDA's third device");
        is_str(cpus, "0-1,8-9;2-3,10-11;4-5,12-13;6,14;7,15",
               "each node's 4 cores split between its ranks, siblings together, the first one more");
        _cleanup_free_ char *d = dropin_render(t, c, p, pl, &env);
        ok(d && strstr(d, "\nEnvironment=NUMAPLAN_RANK_NODES=0,0,1,1,1 NUMAPLAN_RANK_CPUS=0-1,8-9;2-3,10-11;4-5,12-13;"
                          "6,14;7,15\n"),
           "the drop-in exports both, in that order");
        ok(ranks_span_nodes(pl) && ranks_on(pl, 1) == 3, "its ranks span nodes, three on node 1");
}

/* A node with fewer cores than ranks splits by CPU; fewer CPUs than ranks share them. */
static void crowded(void) {
        _cleanup_topology_ struct topology *t = host();
        _cleanup_config_ struct config *c = NULL;
        /* Node 0's two accelerators, given one core of it. */
        _cleanup_plan_ struct plan *p =
                plan_of(t, "[replica a]\nunit = a.service\naccelerators = 10:00.0 20:00.0\ncpus = cores:1\n", &c);
        if (ok(p != NULL, "two ranks on one core")) {
                _cleanup_free_ char *cpus = ranks_cpus_text(&p->replicas[0]);
                is_str(cpus, "0;8", "split by CPU: one thread each");
        }
}

static void device_paths(void) {
        struct device_path dp;
        ok(device_path_parse("/dev/nvidia3", &dp) == DEVICE_MAP_NVIDIA && dp.number == 3, "/dev/nvidia3: minor 3");
        ok(device_path_parse("/dev/nvidiactl", &dp) == DEVICE_MAP_NONE &&
                   device_path_parse("/dev/nvidia-uvm", &dp) == DEVICE_MAP_NONE &&
                   device_path_parse("/dev/nvidia03", &dp) == DEVICE_MAP_NONE,
           "nvidiactl and nvidia-uvm are no one device");
        ok(device_path_parse("/dev/dri/renderD129", &dp) == DEVICE_MAP_DRM && streq(dp.name, "renderD129"),
           "a DRM render node");
        ok(device_path_parse("/dev/dri/card1", &dp) == DEVICE_MAP_DRM, "a DRM card");
        ok(device_path_parse("/dev/accel/accel0", &dp) == DEVICE_MAP_ACCEL && streq(dp.name, "accel0"),
           "a compute accelerator");
        ok(device_path_parse("/sys/devices/pci0000:20/0000:20:00.0/0000:21:00.0/resource0", &dp) == DEVICE_MAP_BAR &&
                   streq(dp.pci, "0000:21:00.0"),
           "a BAR's resource file names its function");
        ok(device_path_parse("/sys/devices/pci0000:00/0000:00:02.0/resource2_wc", &dp) == DEVICE_MAP_BAR,
           "a write-combined BAR");
        ok(device_path_parse("/sys/devices/pci0000:00/0000:00:02.0/config", &dp) == DEVICE_MAP_NONE &&
                   device_path_parse("/srv/resource0", &dp) == DEVICE_MAP_NONE &&
                   device_path_parse("/sys/devices/pci0000:00/x/resource0", &dp) == DEVICE_MAP_NONE,
           "nothing else");

        const char line[] = "7f3e9fab4000-7f3e9fadc000 rw-s 00000000 00:05 1035   /dev/nvidia0";
        const char *path = maps_line_path(line, line + strlen(line));
        ok(path && streq(path, "/dev/nvidia0"), "the path of a maps line");
        const char anon[] = "7f3e9fab4000-7f3e9fadc000 rw-p 00000000 00:00 0 ";
        ok(!maps_line_path(anon, anon + strlen(anon)), "an anonymous mapping has none");
        unsigned minor = 0;
        ok(nvidia_device_minor("Model: \t NVIDIA H100\nIRQ:   150\nDevice Minor: \t 5\nBus Type: PCIe\n", &minor) ==
                           0 &&
                   minor == 5,
           "the driver's Device Minor");
        ok(nvidia_device_minor("Model: x\n", &minor) < 0, "none without it");

        uint64_t one[] = {0, 4096, 0}, most[] = {8192, 4096, 0}, tie[] = {4096, 4096, 0}, none[] = {0, 0, 0};
        is_int(rank_driven(one, 3), 1, "a process that maps one device drives it");
        is_int(rank_driven(most, 3), 0, "of several, the one it maps most of");
        is_int(rank_driven(tie, 3), -1, "several as much: none");
        is_int(rank_driven(none, 3), -1, "no device: none");
}

static void spread(void) {
        static uint64_t by[NUMA_NODES_MAX];
        struct cpuset both = {0};
        cpuset_set(&both, 0), cpuset_set(&both, 1);
        by[0] = 575, by[1] = 425;
        ok(spread_even(by, &both), "57.5%% and 42.5%% on two nodes: even enough");
        by[0] = 576, by[1] = 424;
        ok(!spread_even(by, &both), "57.6%%: not");
        by[0] = 1000, by[1] = 0;
        ok(!spread_even(by, &both), "all on one node: not");
        by[0] = 0;
        ok(spread_even(by, &both), "nothing mapped: nothing to judge");
}

/* The facts of a replica whose ranks 0 and 1 run as pids 100 and 200. */
struct rank_case {
        struct page_tally pages[2], unit;
        struct rank_process procs[2];
        struct rank_facts rf;
        struct task tasks[3];
        struct task_facts tf;
};

static void rank_case_init(struct rank_case *k, const struct placement *pl, int second_node) {
        *k = (struct rank_case){0};
        for (int i = 0; i < 2; i++) {
                page_tally_init(&k->pages[i], 4);
                k->procs[i] = (struct rank_process){
                        .pid = 100 * (i + 1), .rank = (size_t) i, .node = pl->ranks[i].node, .pages = &k->pages[i]};
                snprintf(k->procs[i].comm, sizeof(k->procs[i].comm), "worker");
                snprintf(k->procs[i].pci, sizeof(k->procs[i].pci), "0000:%d0:00.0", i == 0 ? 1 : 4);
        }
        k->pages[0].anon[0] = 2048;
        k->pages[1].anon[second_node] = 2000, k->pages[1].anon[1 - second_node] = 48;
        k->rf = (struct rank_facts){.v = k->procs, .n = 2, .looked = true};
        struct cpuset c0, c1;
        cpuset_parse_list("0-1,8-9", &c0);
        cpuset_parse_list(second_node ? "4-5,12-13" : "0-1,8-9", &c1);
        k->tasks[0] = (struct task){.pid = 100, .tid = 100, .cpus = c0};
        k->tasks[1] = (struct task){.pid = 200, .tid = 200, .cpus = c1};
        k->tasks[2] = (struct task){.pid = 200, .tid = 201, .cpus = c1};
        k->tf = (struct task_facts){.tasks = k->tasks, .n_tasks = 3, .readable = true};
        page_tally_init(&k->unit, 4);
}

static void rank_case_done(struct rank_case *k) {
        for (int i = 0; i < 2; i++)
                page_tally_done(&k->pages[i]);
        page_tally_done(&k->unit);
}

static void check(void) {
        _cleanup_topology_ struct topology *t = host();
        _cleanup_config_ struct config *c = NULL;
        _cleanup_plan_ struct plan *p =
                plan_of(t, "[replica tp]\nunit = tp.service\naccelerators = 10:00.0 40:00.0\nmin-local = 95%\n", &c);
        if (!ok(p != NULL, "a replica with one accelerator on each node"))
                return;
        const struct placement *pl = &p->replicas[0];
        struct rank_case k;
        struct check ch = {0};

        rank_case_init(&k, pl, 1);
        check_rank_locality(
                &(struct verify_facts){.pl = pl, .topology = t, .ranks = &k.rf, .tasks = &k.tf, .pages = &k.unit}, &ch);
        ok(ch.ok && streq(ch.got, "2 ranks on their nodes"), "each worker on its accelerator's node passes");
        ok(ch.detail && strstr(ch.detail, "pid 200 (worker) drives 0000:40:00.0, rank 1 on node 1: 2000 of its 2048"),
           "the detail says each");
        check_done(&ch);
        rank_case_done(&k);

        /* The second worker bound itself to the first one's node. */
        rank_case_init(&k, pl, 0);
        check_rank_locality(
                &(struct verify_facts){.pl = pl, .topology = t, .ranks = &k.rf, .tasks = &k.tf, .pages = &k.unit}, &ch);
        ok(!ch.ok && streq(ch.got, "1 of 2 ranks off their nodes"), "a worker on the other node fails");
        ok(ch.detail && strstr(ch.detail, "pid 200 (worker) drives 0000:40:00.0, rank 1 on node 1: 48 of its 2048 "
                                          "anonymous pages on node 1 (node 0: 2000, node 1: 48)"),
           "naming the process, its accelerator and where its memory is");
        ok(ch.detail && strstr(ch.detail, "its threads run on CPUs 0-1,8-9, not only node 1's 4-7,12-15") &&
                   strstr(ch.detail, "entry 1 of NUMAPLAN_RANK_CPUS (4-7,12-15)"),
           "and where it runs, with its rank's CPUs");
        if (ch.detail)
                printf("#   %s\n", ch.detail);
        check_done(&ch);
        rank_case_done(&k);

        check_rank_locality(
                &(struct verify_facts){.pl = pl, .topology = t, .ranks = &(struct rank_facts){.looked = true}}, &ch);
        ok(ch.ok && streq(ch.got, "no process maps its accelerators"), "no process maps a device: nothing to judge");
        check_done(&ch);
}

/* A model that the ranks' nodes should share evenly, judged through the unit's pages. */
static void model_spread(void) {
        _cleanup_topology_ struct topology *t = host();
        _cleanup_config_ struct config *c = NULL;
        _cleanup_plan_ struct plan *p = plan_of(
                t, "[replica tp]\nunit = tp.service\naccelerators = 10:00.0 40:00.0\nmemory = 1G\nmodel = /m/q.gguf\n",
                &c);
        if (!ok(p != NULL, "a spanning replica with a model"))
                return;
        const struct placement *pl = &p->replicas[0];
        struct page_tally unit;
        struct check ch = {0};
        page_tally_init(&unit, 4);
        (void) page_tally_add(&unit,
                              "7f0000000000 bind:0-1 file=/m/q.gguf mapped=1000 N0=900 N1=100 kernelpagesize_kB=4\n",
                              NULL, &pl->nodes);
        page_tally_split(&unit, NULL, pl->conf->models);
        check_rank_locality(
                &(struct verify_facts){
                        .pl = pl, .topology = t, .pages = &unit, .ranks = &(struct rank_facts){.looked = true}},
                &ch);
        ok(!ch.ok && strstr(ch.got, "the model not spread") && ch.detail &&
                   strstr(ch.detail, "node 0: 900, node 1: 100"),
           "a model 90%% on one node fails, its pages by node said");
        check_done(&ch);
        page_tally_done(&unit);
        page_tally_init(&unit, 4);
        (void) page_tally_add(&unit,
                              "7f0000000000 bind:0-1 file=/m/q.gguf mapped=1000 N0=520 N1=480 kernelpagesize_kB=4\n",
                              NULL, &pl->nodes);
        page_tally_split(&unit, NULL, pl->conf->models);
        check_rank_locality(
                &(struct verify_facts){
                        .pl = pl, .topology = t, .pages = &unit, .ranks = &(struct rank_facts){.looked = true}},
                &ch);
        ok(ch.ok, "52%% and 48%% passes");
        check_done(&ch);
        page_tally_done(&unit);
}

int main(void) {
        ranks();
        crowded();
        device_paths();
        spread();
        check();
        model_spread();
        return done_testing();
}
