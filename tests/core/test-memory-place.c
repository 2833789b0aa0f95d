/* SPDX-License-Identifier: MIT */
/* Where a replica's memory may go by what each node's memory is: never GPU memory or NVM, CXL and
 * HBM only when memory-tiers = asks, on hosts made here: Grace Hopper and GB200-like superchips
 * (the GPUs' numa_node is their own memory's node, eight memory nodes a GPU) and a host with DRAM,
 * HBM, NVM and CXL. Also memory-tiers = as the configuration parses it. */

#include "basic/util.h"
#include "core/config.h"
#include "core/memory-kind.h"
#include "core/memory-place.h"
#include "core/pci.h"
#include "core/planner.h"
#include "core/topology.h"
#include "core/warnings.h"
#include "tap.h"

#define CPUS_PER_NODE 4

/* A node as a test describes it: its CPUs (0 or CPUS_PER_NODE), its memory, its kinds, the GPU
 * owning it (an index into the accelerators, -1) and its "socket", for distances. */
struct node_spec {
        bool cpus;
        uint64_t gib;
        unsigned kinds;
        int owner;
        int socket;
};

/* Distances as superchips and two-socket hosts have them: 10 to itself; the CPU nodes of two
 * sockets 40 apart; memory-only nodes 80 from their socket's CPUs, 120 from the rest. */
static int spec_distance(const struct node_spec *a, const struct node_spec *b, bool same) {
        if (same)
                return 10;
        if (a->cpus && b->cpus)
                return 40;
        return a->socket == b->socket ? 80 : 120;
}

static struct topology *make_host(const struct node_spec *v, size_t n, const int *accel_node, size_t n_accels) {
        struct topology *t = xmalloc0(sizeof(*t));
        int cpu = 0;

        t->has_node_dirs = true;
        t->n_nodes = n;
        t->nodes = xmalloc0(n * sizeof(*t->nodes));
        t->core_of = xmalloc0((n * CPUS_PER_NODE + 1) * sizeof(int));
        t->socket_of = xmalloc0((n * CPUS_PER_NODE + 1) * sizeof(int));
        for (size_t i = 0; i < n; i++) {
                struct node *nd = &t->nodes[i];
                nd->id = (int) i;
                nd->mem_total = nd->mem_free = nd->mem_available = v[i].gib << 30;
                nd->memory_known = true;
                nd->kind = v[i].cpus ? NODE_CPU_MEMORY : NODE_MEMORY_ONLY;
                nd->memory = (struct node_memory){
                        .kinds = v[i].kinds, .accelerator = v[i].owner, .tier = -1, .kernel_tier = -1};
                if (v[i].owner >= 0)
                        nd->memory.owner_pci = xasprintf("0009:%02x:00.0", v[i].owner + 1);
                nd->distances = xmalloc0(n * sizeof(int));
                for (size_t j = 0; j < n; j++)
                        nd->distances[j] = spec_distance(&v[i], &v[j], i == j);
                for (int k = 0; v[i].cpus && k < CPUS_PER_NODE; k++, cpu++) {
                        cpuset_set(&nd->cpus, (unsigned) cpu);
                        cpuset_set(&t->online_cpus, (unsigned) cpu);
                        t->core_of[cpu] = cpu;
                        t->socket_of[cpu] = v[i].socket;
                        nd->cores++;
                }
        }
        t->max_cpu = cpu - 1;
        t->accels = xmalloc0((n_accels + 1) * sizeof(*t->accels));
        t->n_accels = n_accels;
        for (size_t i = 0; i < n_accels; i++) {
                struct pci_device *a = &t->accels[i];
                *a = (struct pci_device){.kind = PCI_ACCELERATOR,
                                         .ids_known = true,
                                         .vendor = 0x10de,
                                         .compute = true,
                                         .numa_node = accel_node[i],
                                         .sysfs_numa_node = accel_node[i],
                                         .numa_source = NUMA_SOURCE_NUMA_NODE,
                                         .index = (int) i};
                snprintf(a->pci, sizeof(a->pci), "0009:%02zx:00.0", i + 1);
                pci_address_parse(a->pci, true, &a->address);
        }
        t->hugepage_default_kb = 2048;
        t->hugepage_sizes_kb = xmalloc0(sizeof(uint64_t));
        t->hugepage_sizes_kb[0] = 2048;
        t->n_hugepage_sizes = 1;
        return t;
}

/* GB200-like: two Grace nodes of 480 GiB (CPUs), four GPUs, each with eight memory nodes of 23 GiB
 * (its HBM, split as the driver splits it), the first of them its numa_node; GPUs 0-1 beside
 * Grace 0, 2-3 beside Grace 1. `graces` 1 makes a GH200 with one GPU. */
static struct topology *superchip(unsigned graces, unsigned gpus) {
        struct node_spec v[2 + 4 * 8];
        int accel_node[4];
        size_t n = 0;

        for (unsigned g = 0; g < graces; g++)
                v[n++] = (struct node_spec){
                        .cpus = true, .gib = 480, .kinds = MEMORY_DRAM, .owner = -1, .socket = (int) g};
        for (unsigned a = 0; a < gpus; a++) {
                accel_node[a] = (int) n;
                for (int k = 0; k < 8; k++)
                        v[n++] = (struct node_spec){
                                .gib = 23, .kinds = MEMORY_GPU, .owner = (int) a, .socket = (int) (a * graces / gpus)};
        }
        return make_host(v, n, accel_node, gpus);
}

/* Two sockets of DRAM (nodes 0-1, 64 GiB), an HBM node beside each (2-3, 16 GiB, the second SPM),
 * an NVM node beside socket 0 (4), a CXL expander beside each (5-6, 128 GiB); one GPU a socket. */
static struct topology *tiered(void) {
        static const struct node_spec v[] = {
                {true, 64, MEMORY_DRAM, -1, 0},
                {true, 64, MEMORY_DRAM, -1, 1},
                {false, 16, MEMORY_HBM, -1, 0},
                {false, 16, MEMORY_SPM, -1, 1},
                {false, 512, MEMORY_NVM, -1, 0},
                {false, 128, MEMORY_CXL, -1, 0},
                {false, 128, MEMORY_CXL | MEMORY_DRAM, -1, 1},
        };
        static const int accel_node[] = {0, 1};
        return make_host(v, ELEMENTSOF(v), accel_node, ELEMENTSOF(accel_node));
}

static struct config *conf;
static struct warnings warnings;
static char *error;

/* Plans `text` on `t`: the plan, or NULL with `error` as "file:line: message". */
static struct plan *plan_of(const struct topology *t, const char *text) {
        struct error_at err = {0};
        struct plan *p = NULL;

        conf = config_free(conf);
        warnings_done(&warnings);
        error = mfree(error);
        int r = config_parse_string(text, "test.conf", &conf, &err);
        if (r >= 0)
                r = plan_compute(t, conf, &warnings, &p, &err);
        if (r < 0)
                error = xasprintf("%s:%u: %s", strempty(err.at.file), err.at.line, strempty(err.message));
        error_at_done(&err);
        return p;
}

static bool said(const struct placement *pl, const char *text) {
        for (size_t i = 0; i < pl->n_why; i++)
                if (strstr(pl->why[i], text))
                        return true;
        return false;
}

#define is_nodes(set, want, ...) \
        do { \
                _cleanup_free_ char *s_ = cpuset_format(set); \
                is_str(s_, want, __VA_ARGS__); \
        } while (0)

/* Whether any replica of `p` has a node of GPU memory or NVM in its mask or its huge pages. */
static bool any_forbidden(const struct topology *t, const struct plan *p) {
        struct cpuset bad = memory_forbidden_nodes(t);
        for (size_t i = 0; i < p->n_replicas; i++) {
                if (cpuset_intersects(&p->replicas[i].nodes, &bad))
                        return true;
                for (size_t j = 0; j < p->replicas[i].n_hugepages; j++)
                        if (cpuset_isset(&bad, (unsigned) p->replicas[i].hugepages[j].node))
                                return true;
        }
        return false;
}

static void kinds_rule(void) {
        ok(!memory_kind_allowed(MEMORY_GPU, TIERS_CXL | TIERS_HBM), "GPU memory: never, whatever the tiers");
        ok(!memory_kind_allowed(MEMORY_NVM, TIERS_CXL | TIERS_HBM), "NVM: never");
        ok(!memory_kind_allowed(MEMORY_CXL | MEMORY_NVM, TIERS_CXL), "CXL-NVM: never");
        ok(memory_kind_allowed(0, 0) && memory_kind_allowed(MEMORY_DRAM, 0), "DRAM, or nothing said: always");
        ok(!memory_kind_allowed(MEMORY_CXL, 0) && memory_kind_allowed(MEMORY_CXL | MEMORY_DRAM, TIERS_CXL),
           "CXL only with local+cxl");
        ok(!memory_kind_allowed(MEMORY_HBM, TIERS_CXL) && memory_kind_allowed(MEMORY_SPM, TIERS_HBM),
           "HBM and SPM only with local+hbm");
        ok(!memory_kind_allowed(MEMORY_CXL | MEMORY_HBM, TIERS_HBM) &&
                   memory_kind_allowed(MEMORY_CXL | MEMORY_HBM, TIERS_CXL | TIERS_HBM),
           "CXL-HBM needs both");

        _cleanup_topology_ struct topology *t = superchip(1, 1);
        _cleanup_free_ char *gpu = memory_forbidden_where(t, 1);
        is_str(gpu, "GPU memory on node 1, owned by 0009:01:00.0", "GPU memory is named with its owner");
        struct cpuset s = {0};
        cpuset_set(&s, 0);
        cpuset_set(&s, 3);
        struct cpuset dropped = memory_drop_forbidden(t, &s);
        is_nodes(&s, "0", "dropping the forbidden nodes keeps the Grace node");
        is_nodes(&dropped, "3", "and says which it dropped");
}

static void tiers_key(void) {
        static const char *const good[][2] = {
                {"local", "local"},
                {"local+cxl", "local+cxl"},
                {"local+hbm", "local+hbm"},
                {"local+cxl+hbm", "local+cxl+hbm"},
                {"local+hbm+cxl", "local+cxl+hbm"},
        };
        static const char *const bad[] = {"cxl", "local+", "local+cxl+cxl", "local+nvm", "local+gpu", "Local", ""};
        struct error_at err = {0};

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *text = xasprintf("[numaplan]\nmemory-tiers = %s\n", good[i][0]);
                _cleanup_config_ struct config *c = NULL;
                if (ok(config_parse_string(text, "t.conf", &c, &err) >= 0, "memory-tiers = %s parses", good[i][0]))
                        is_str(memory_tiers_to_string(c->memory_tiers), good[i][1], "as %s", good[i][1]);
                error_at_done(&err);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *text = xasprintf("[numaplan]\nmemory-tiers = %s\n", bad[i]);
                _cleanup_config_ struct config *c = NULL;
                ok(config_parse_string(text, "t.conf", &c, &err) < 0 && err.at.line == 2 &&
                           strstr(err.message, "expected local, local+cxl, local+hbm or local+cxl+hbm"),
                   "memory-tiers = '%s' is refused at its line", bad[i]);
                error_at_done(&err);
        }
        _cleanup_config_ struct config *c = NULL;
        ok(config_parse_string("[numaplan]\nmemory-tiers = local+cxl\n[replica a]\nunit = a.service\n"
                               "memory-tiers = local\n[replica b]\nunit = b.service\n",
                               "t.conf", &c, &err) >= 0 &&
                   replica_memory_tiers(c, &c->replicas[0]) == 0 &&
                   replica_memory_tiers(c, &c->replicas[1]) == TIERS_CXL,
           "a replica's memory-tiers replaces [numaplan]'s, which the others take");
        error_at_done(&err);
}

/* GB200: four GPUs whose numa_node is their own memory; every replica on a Grace node. */
static void gb200(void) {
        _cleanup_topology_ struct topology *t = superchip(2, 4);
        static const char *const homes[] = {"0", "0", "1", "1"};

        struct plan *p = plan_of(t, "");
        if (ok(p && p->n_replicas == 4, "gb200 built-in default: one replica per GPU")) {
                for (size_t i = 0; i < 4; i++) {
                        is_nodes(&p->replicas[i].nodes, homes[i], "%s: on the Grace nearest its GPU's memory",
                                 p->replicas[i].name);
                        ok(p->replicas[i].policy == POLICY_BIND, "%s: bind, as it fits", p->replicas[i].name);
                }
                ok(said(&p->replicas[2], "node 18 is its own GPU memory, never a replica's: home node 1"),
                   "the plan says why it is not on its GPU's node");
                is_int(plan_node(p, 2)->usable, 0, "GPU memory counts no usable memory");
                is_int(plan_node(p, 0)->usable, (UINT64_C(480) << 30) * 9 / 10, "Grace's does, less headroom");
                ok(warnings.n == 0 || !warnings_has(&warnings, WARNING_MEMORY_ONLY_HOME, NULL),
                   "no memory-only-home warning: that is what a superchip is");
        }
        plan_free(p);

        p = plan_of(t, "[replicas g]\nunit = g@%i.service\nper = node\nmemory = 100G\n");
        if (ok(p && p->n_replicas == 2, "per = node: one replica per Grace node, none on GPU memory")) {
                ok(p->replicas[0].n_accels == 2 && p->replicas[1].n_accels == 2,
                   "each takes the GPUs whose memory is nearest it");
                is_nodes(&p->replicas[1].nodes, "1", "the second on Grace 1");
        }
        plan_free(p);

        p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = count:2\nmemory = 100G\n");
        ok(p && p->replicas[0].n_accels == 2 && t->accels[p->replicas[0].accels[1]].numa_node == 10,
           "count:2 takes the two GPUs of one Grace");
        plan_free(p);

        static const char *const policies[] = {"bind", "interleave", "auto"};
        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                _cleanup_free_ char *text = xasprintf("[replica a]\nunit = a.service\naccelerators = 0009:01:00.0, "
                                                      "0009:03:00.0\nmemory = 400G\npolicy = %s\nhugepages = 2G\n",
                                                      policies[i]);
                p = plan_of(t, text);
                if (!ok(p != NULL, "policy %s over both Graces: planned", policies[i]))
                        tap_diag("error", error);
                else {
                        is_nodes(&p->replicas[0].nodes, "0-1", "policy %s: both Graces, no GPU memory", policies[i]);
                        ok(!any_forbidden(t, p), "policy %s: no GPU memory in its mask or huge pages", policies[i]);
                }
                plan_free(p);
        }
        p = plan_of(t,
                    "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\npolicy = preferred\nmemory = 10G\n");
        ok(p && p->replicas[0].policy == POLICY_PREFERRED && !any_forbidden(t, p), "preferred: its Grace only");
        plan_free(p);
}

/* GH200: one Grace, one GPU. No room on the Grace is a failure, never GPU memory. */
static void gh200(void) {
        _cleanup_topology_ struct topology *t = superchip(1, 1);

        struct plan *p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\nmemory = 500G\n");
        ok(!p && error && strstr(error, "test.conf:4: replica a needs 500.0 GiB") &&
                   strstr(error, "nodes 0 (node 0: ") &&
                   strstr(error, "GPU memory and NVM never hold a replica's memory (nodes 1-8)"),
           "a replica its Grace cannot hold fails, naming it, its node and why");
        p = plan_of(t,
                    "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\nmemory = 500G\npolicy = preferred\n");
        ok(!p && error && strstr(error, "test.conf:5:") && strstr(error, "may be GPU memory or NVM (nodes 1-8)"),
           "preferred that does not fit fails too: the kernel would spill into GPU memory");
        p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\nmemory = 500G\npolicy = bind\n");
        ok(!p && error && strstr(error, "no set of nodes holds it"), "bind: the same");
        p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\nmemory-nodes = 1\n");
        ok(!p && error &&
                   strstr(error, "test.conf:4: replica a: memory-nodes names node 1, which is GPU memory on "
                                 "node 1, owned by 0009:01:00.0: a replica's memory never goes there"),
           "memory-nodes naming GPU memory: an error at its line");
        p = plan_of(t, "[replica a]\nunit = a.service\nmemory = 100G\n");
        ok(p && !any_forbidden(t, p), "a CPU-only replica: its Grace");
        plan_free(p);
        p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\nmemory-tiers = local+cxl+hbm\n");
        ok(p && !any_forbidden(t, p), "local+cxl+hbm adds nothing here: GPU memory is neither");
        plan_free(p);
}

static void tiers_planned(void) {
        _cleanup_topology_ struct topology *t = tiered();
        static const char *const tiers[][2] = {
                {"local", "0"},
                {"local+cxl", "0,5"},
                {"local+hbm", "0,2"},
                {"local+cxl+hbm", "0,2,5"},
        };

        for (size_t i = 0; i < ELEMENTSOF(tiers); i++) {
                _cleanup_free_ char *text = xasprintf("[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\n"
                                                      "memory = 32G\nmemory-tiers = %s\n",
                                                      tiers[i][0]);
                struct plan *p = plan_of(t, text);
                if (ok(p != NULL, "memory-tiers = %s: planned", tiers[i][0])) {
                        is_nodes(&p->replicas[0].nodes, tiers[i][1], "memory-tiers = %s: nodes %s", tiers[i][0],
                                 tiers[i][1]);
                        ok(p->replicas[0].policy == POLICY_BIND, "bind, the home's DRAM first");
                }
                if (i == 1)
                        ok(said(&p->replicas[0], "memory-tiers = local+cxl: adds node 5, the CXL memory nearest its "
                                                 "home node 0 by node distance"),
                           "the plan says which CXL node and why");
                plan_free(p);
        }
        struct plan *p = plan_of(t, "[numaplan]\nmemory-tiers = local+cxl+hbm\n[replica a]\nunit = a.service\n"
                                    "accelerators = 0009:01:00.0, 0009:02:00.0\nmemory = 32G\n");
        if (ok(p != NULL, "both sockets, every tier"))
                is_nodes(&p->replicas[0].nodes, "0-3,5-6", "each home's nearest HBM (SPM too) and CXL, never NVM");
        ok(p && p->replicas[0].policy == POLICY_BIND, "bound over them, not interleaved, though its GPUs span nodes");
        plan_free(p);

        p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = 0009:01:00.0\nmemory = 100G\n");
        ok(p && p->replicas[0].extended && !any_forbidden(t, p), "extended beyond its node, never onto NVM");
        if (p)
                is_nodes(&p->replicas[0].nodes, "0-1", "nor onto CXL or HBM unasked");
        plan_free(p);

        p = plan_of(t, "[replica a]\nunit = a.service\npolicy = preferred\nmemory-tiers = local+cxl\n");
        ok(!p && error && strstr(error, "test.conf:3:") && strstr(error, "memory-nodes or memory-tiers"),
           "preferred names one node: a tier cannot be added");
        p = plan_of(t, "[replica a]\nunit = a.service\nmemory-nodes = 5\n");
        ok(!p && error && strstr(error, "test.conf:3:") &&
                   strstr(error,
                          "CXL memory (CXL-DRAM), which memory-tiers = local leaves out: set memory-tiers = local+cxl"),
           "memory-nodes naming CXL under local: an error saying what to set");
        p = plan_of(t, "[replica a]\nunit = a.service\nmemory-nodes = 4\nmemory-tiers = local+cxl+hbm\n");
        ok(!p && error && strstr(error, "test.conf:3:") && strstr(error, "persistent memory (NVM) on node 4"),
           "memory-nodes naming NVM: an error, whatever the tiers");
        p = plan_of(t, "[replica a]\nunit = a.service\nmemory-nodes = 5\nmemory-tiers = local+cxl\npolicy = bind\n");
        ok(p && !any_forbidden(t, p), "memory-nodes naming CXL under local+cxl: planned");
        plan_free(p);
}

/* prepare and migrate: the targets never hold GPU memory or NVM, and what was dropped is said. */
/* Nodes of CPUs without memory, their memory in memory-only nodes (hwloc's
 * fakememinitiators): a replica homed on a CPU-only node gets the nearest node with DRAM, never
 * the NVM one as near, and its CPUs stay its home's, named since the mask has none. */
static void cpuless_homes(void) {
        static const struct node_spec v[] = {
                {true, 0, 0, -1, 0},
                {true, 0, 0, -1, 1},
                {false, 96, 0, -1, 0},
                {false, 96, 0, -1, 1},
                {false, 700, MEMORY_NVM, -1, 0},
        };
        struct topology *t = make_host(v, ELEMENTSOF(v), NULL, 0);
        for (size_t i = 0; i < 2; i++)
                t->nodes[i].kind = NODE_CPU_ONLY;
        struct plan *p = plan_of(t, "[replicas cpu]\nunit = cpu@%i.service\nper = node\nmemory = 8G\n");
        if (ok(p && p->n_replicas == 2, "per = node on two CPU-only nodes: two replicas")) {
                _cleanup_free_ char *m0 = cpuset_format(&p->replicas[0].nodes),
                                    *m1 = cpuset_format(&p->replicas[1].nodes),
                                    *c0 = cpuset_format(&p->replicas[0].cpus);
                is_str(m0, "2", "node 0's replica: its memory on node 2, its socket's DRAM, not NVM node 4 as near");
                is_str(m1, "3", "node 1's replica: node 3");
                is_str(c0, "0-3", "its CPUs are node 0's");
                ok(!p->replicas[0].cpu_affinity_numa, "CPUAffinity= names them: the mask's nodes have no CPUs");
                ok(said(&p->replicas[0], "home node 0 has no memory: its memory goes to node 2"),
                   "and the plan says why");
        }
        plan_free(p);
        topology_free(t);
}

static void targets(void) {
        _cleanup_topology_ struct topology *t = tiered();
        struct cpuset s = {0};

        cpuset_set(&s, 0);
        cpuset_set(&s, 5);
        _cleanup_free_ char *none = memory_targets_check(t, &s);
        ok(!none && cpuset_count(&s) == 2, "DRAM and CXL targets are kept, nothing said");
        cpuset_set(&s, 4);
        _cleanup_free_ char *nvm = memory_targets_check(t, &s);
        is_nodes(&s, "0,5", "NVM is dropped from the targets");
        is_str(nvm,
               "persistent memory (NVM) on node 4: dropped from the targets, since a replica's pages never go "
               "there; moving them to nodes 0,5",
               "and said");

        _cleanup_topology_ struct topology *g = superchip(1, 1);
        struct cpuset only = {0};
        cpuset_set(&only, 2);
        _cleanup_free_ char *gpu = memory_targets_check(g, &only);
        ok(cpuset_is_empty(&only) && gpu && strstr(gpu, "GPU memory on node 2, owned by 0009:01:00.0") &&
                   strstr(gpu, "no node is left to move them to"),
           "GPU memory alone: no target left, said with its owner");
}

int main(void) {
        cpuless_homes();
        kinds_rule();
        tiers_key();
        gb200();
        gh200();
        tiers_planned();
        targets();
        conf = config_free(conf);
        warnings_done(&warnings);
        free(error);
        return done_testing();
}
