/* SPDX-License-Identifier: MIT */
/* The planner on every fixture host as libhost reads it (so here, not among the core's tests,
 * which make their hosts themselves): worked examples with exact expectations, then property
 * tests: random replica sets on each host, the placement rules of numaplan.conf(5) checked as
 * invariants on every plan, and determinism. Usage: test-planner FIXTURES_DIR */

#include <dirent.h>

#include "basic/log.h"
#include "basic/util.h"
#include "core/config.h"
#include "core/dropin.h"
#include "core/memory-place.h"
#include "core/nic-choice.h"
#include "core/planner.h"
#include "core/ranks.h"
#include "core/topology.h"
#include "host/root.h"
#include "host/topology-read.h"
#include "tap.h"

#define MARKER \
        (&(struct dropin_env){.marker = "/run/numaplan/unplaced", \
                              .marker_blocks = true, \
                              .exe = "/usr/sbin/numaplan", \
                              .models = "/run/numaplan/models", \
                              .nics = "/run/numaplan/nics"})

static const char *fixtures;
/* The size plan_text() gives every replica's model = files. */
static uint64_t model_bytes;

static struct topology *host(const char *name) {
        _cleanup_free_ char *path = xasprintf("%s/hosts/%s", fixtures, name);
        _cleanup_root_ struct root *root = NULL;
        struct topology *t = NULL;
        struct warnings w = {0};
        int r = root_open(path, 0, &root);
        if (r >= 0)
                /* as plan reads it: nics = auto, and the kinds and L3 caches rule 5 splits by */
                r = topology_read(root, TOPOLOGY_NICS | TOPOLOGY_KINDS | TOPOLOGY_L3, &w, &t);
        warnings_done(&w);
        if (r < 0) {
                printf("Bail out! cannot read fixture host %s\n", path);
                exit(1);
        }
        return t;
}

/* The configuration of the last plan_text(): placements point into it, so it lives until the
 * next call; so do the warnings it gave. */
static struct config *cur;
static struct warnings warnings;

/* Plans `conf` on `t`; *ret_err gets the error message (caller frees) when planning fails. */
static struct plan *plan_text(struct topology *t, const char *conf, char **ret_err) {
        struct plan *p = NULL;
        struct error_at err = {0};

        cur = config_free(cur);
        warnings_done(&warnings);
        if (ret_err)
                *ret_err = NULL;
        struct config *c = NULL;
        if (config_parse_string(conf, "test.conf", &c, &err) < 0) {
                error_at_done(&err);
                if (ret_err)
                        *ret_err = xstrdup("config did not parse");
                return NULL;
        }
        cur = c;
        for (size_t i = 0; i < c->n_replicas; i++)
                if (c->replicas[i].models) {
                        /* What host/config-files.c measures of the files. */
                        c->replicas[i].model_bytes = model_bytes;
                        if (!replica_has(&c->replicas[i], REPLICA_MEMORY))
                                c->replicas[i].memory = model_bytes;
                }
        if (topology_apply_overrides(t, c, &err) < 0 || plan_compute(t, c, &warnings, &p, &err) < 0) {
                if (ret_err)
                        *ret_err = err.message ? xasprintf("%s:%u: %s", err.at.file, err.at.line, err.message) : NULL;
                free(err.message);
                return NULL;
        }
        return p;
}

static char *set_str(const struct cpuset *s) {
        return cpuset_format(s);
}

static const struct placement *replica(const struct plan *p, const char *name) {
        for (size_t i = 0; p && i < p->n_replicas; i++)
                if (streq(p->replicas[i].name, name))
                        return &p->replicas[i];
        return NULL;
}

#define is_set(s, want, ...) \
        do { \
                _cleanup_free_ char *s_ = set_str(s); \
                is_str(s_, want, __VA_ARGS__); \
        } while (0)

/* ---- worked examples ---- */

/* Whether the last plan_text() warned with `code` in words containing `text`. */
static bool has(enum warning_code code, const char *text) {
        for (size_t i = 0; i < warnings.n; i++)
                if (warnings.v[i].code == code && strstr(warnings.v[i].message, text))
                        return true;
        return false;
}

static void examples_dgx(void) {
        struct topology *t = host("dgx-2s-8gpu");
        char *err;

        struct plan *p = plan_text(t, "", &err);
        if (ok(p && p->n_replicas == 8, "dgx default: one replica per GPU")) {
                const struct placement *r = replica(p, "inference-5");
                is_str(r->unit, "inference@5.service", "template unit %%i");
                is_set(&r->nodes, "1", "GPU 5 is on node 1");
                ok(r->policy == POLICY_BIND, "fits its node: bind");
                is_set(&r->cpus, "20-23,52-55", "4 GPUs share node 1: the second quarter of its cores, siblings kept");
                ok(!r->cpu_affinity_numa, "shared node: explicit CPUAffinity");
                bool said = false;
                for (size_t j = 0; j < r->n_why; j++)
                        said = said || strstr(r->why[j], "takes cores 4-7, counted from 0 (CPUs 20-23,52-55)");
                ok(said, "its why counts cores from 0, as CPUs are: the second quarter of node 1's 16 is 4-7");
                is_str(r->environment, "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=5",
                       "CUDA index in PCI order");
        }
        plan_free(p);

        p = plan_text(t, "[replica big]\nunit = big.service\naccelerators = 0000:18:00.0\nmemory = 1200G\n", &err);
        if (ok(p != NULL, "a replica larger than its node is extended")) {
                const struct placement *r = replica(p, "big");
                is_set(&r->nodes, "0-1", "to the nearest node");
                ok(r->extended && r->policy == POLICY_BIND, "bound across the extended set, not interleaved");
                is_set(&r->cpus, "0-63", "with the CPUs of every node of the set");
                is_int(plan_node(p, 0)->assigned, plan_node(p, 0)->usable,
                       "its accelerator's node first, as the kernel allocates near the CPU that asks");
                is_int(plan_node(p, 1)->assigned, (UINT64_C(1200) << 30) - plan_node(p, 0)->usable,
                       "the rest on the nearest node with room");
        }
        plan_free(p);

        p = plan_text(t, "[replica big]\nunit = big.service\naccelerators = 18:00.0\nmemory = 1200G\npolicy = bind\n",
                      &err);
        if (ok(p != NULL, "explicit bind that does not fit its node")) {
                ok(replica(p, "big")->policy == POLICY_BIND, "stays bind");
                is_int(plan_node(p, 0)->assigned, plan_node(p, 0)->usable, "fills node 0 first");
                ok(warnings.n == 1 && warnings.v[0].code == WARNING_BIND_EXTENDED, "with a warning");
        }
        plan_free(p);

        p = plan_text(t, "[replica big]\nunit = big.service\naccelerators = 18:00.0\nmemory = 1200G\n", &err);
        ok(p && has(WARNING_REPLICA_EXTENDED, "extended to nodes 0-1, bound over them"),
           "an extension under auto is said");
        plan_free(p);
        p = plan_text(t,
                      "[replica pb]\nunit = pb.service\naccelerators = 18:00.0\nmemory = 1000G\npolicy = preferred\n",
                      &err);
        if (ok(p != NULL, "preferred beyond its node is planned, not refused")) {
                ok(replica(p, "pb")->policy == POLICY_PREFERRED, "preferred on its home node");
                is_int(plan_node(p, 0)->assigned, UINT64_C(1000) << 30, "counted there in full");
                ok(has(WARNING_PREFERRED_SPILLS, "the kernel will spill the rest to the nearest nodes"),
                   "with a warning that the kernel spills the rest");
        }
        plan_free(p);
        p = plan_text(t, "[replica bmc]\nunit = bmc.service\naccelerators = 03:00.0\n", &err);
        ok(p && has(WARNING_ACCELERATOR_NOT_COMPUTE, "0000:03:00.0, a display controller"),
           "pinning a BMC's display by address is said");
        plan_free(p);
        p = plan_text(t, "", &err);
        ok(p && has(WARNING_MEMORY_UNSET, "set memory = SIZE"), "the built-in default says once that it sizes nothing");
        plan_free(p);
        p = plan_text(t,
                      "[replica a]\nunit = a.service\naccelerators = 18:00.0\n[replica b]\nunit = b.service\n"
                      "accelerators = 2a:00.0\ncpus = cores:30\n",
                      &err);
        ok(!p && err && strstr(err, "test.conf:7:"), "too few cores: the error names the cpus = line that asked");
        free(err);
        p = plan_text(t, "[replica huge]\nunit = huge.service\naccelerators = 18:00.0\nmemory = 3T\n", &err);
        ok(!p && err && strstr(err, "test.conf:4:") && strstr(err, "replica huge needs 3.0 TiB"),
           "too big for the host: error at the memory line, in numbers");
        if (err)
                printf("#   %s\n", err);
        free(err);

        p = plan_text(t, "[replica x]\nunit = x.service\naccelerators = 0000:99:00.0\n", &err);
        ok(!p && err && strstr(err, "unknown accelerator 0000:99:00.0") && strstr(err, "0000:18:00.0, 0000:2a:00.0"),
           "an unknown accelerator lists those found");
        free(err);

        p = plan_text(t,
                      "[replica a]\nunit = a.service\naccelerators = 18:00.0\n[replica b]\nunit = b.service\n"
                      "accelerators = 0000:18:00.0\n",
                      &err);
        ok(!p && err && strstr(err, "test.conf:6:") && strstr(err, "already belongs to replica a"),
           "an accelerator in two replicas names both");
        free(err);

        p = plan_text(t, "[replica tp]\nunit = tp.service\naccelerators = 18:00.0 9a:00.0\n", &err);
        if (ok(p != NULL, "accelerators on two nodes")) {
                const struct placement *r = replica(p, "tp");
                is_set(&r->nodes, "0-1", "get both nodes");
                ok(r->policy == POLICY_BIND, "bound by default, not interleaved");
                ok(r->cpu_affinity_numa, "alone on them: CPUAffinity=numa");
                bool said = false;
                for (size_t j = 0; j < r->n_why; j++)
                        said = said || (strstr(r->why[j], "not interleave") && strstr(r->why[j], "ten times slower"));
                ok(said, "plan -v says why not interleave");
        }
        plan_free(p);

        /* One replica on every GPU: tensor parallelism 8 over both sockets. */
        p = plan_text(t, "[replica tp8]\nunit = tp8.service\naccelerators = count:8\nmemory = 200G\nmodel = /m\n",
                      &err);
        if (ok(p != NULL, "TP=8 over both sockets")) {
                const struct placement *r = replica(p, "tp8");
                ok(r->policy == POLICY_BIND, "bound over nodes 0-1, not interleaved");
                is_int(plan_node(p, 0)->assigned, UINT64_C(100) << 30, "half its memory on node 0: 4 of its 8 ranks");
                is_int(plan_node(p, 1)->assigned, UINT64_C(100) << 30, "half on node 1");
                _cleanup_free_ char *d = dropin_render(t, cur, p, r, MARKER);
                ok(d && strstr(d, "NUMAPolicy=bind\n"), "the drop-in binds");
                ok(d && strstr(d, "\nEnvironment=NUMAPLAN_RANK_NODES=0,0,0,0,1,1,1,1 NUMAPLAN_RANK_CPUS="
                                  "0-3,32-35;4-7,36-39;8-11,40-43;12-15,44-47;16-19,48-51;20-23,52-55;24-27,56-59;"
                                  "28-31,60-63\n"),
                   "each rank's node and a quarter of its node's cores, siblings together, in CUDA's order");
                ok(d && strstr(d, "prepare --nodes 0-1 --spread --"), "prepare spreads the model over both nodes");
                _cleanup_free_ char *nodes = ranks_nodes_text(r);
                is_str(nodes, "0,0,0,0,1,1,1,1", "ranks_nodes_text");
        }
        plan_free(p);
        p = plan_text(t,
                      "[replica a]\nunit = a.service\naccelerators = 9a:00.0 18:00.0 2a:00.0 3a:00.0\n"
                      "memory = 400G\n",
                      &err);
        if (ok(p != NULL, "three ranks on node 0, one on node 1")) {
                const struct placement *r = replica(p, "a");
                is_int(plan_node(p, 0)->assigned, UINT64_C(300) << 30, "memory split by ranks: 3/4 on node 0");
                is_int(plan_node(p, 1)->assigned, UINT64_C(100) << 30, "1/4 on node 1");
                _cleanup_free_ char *nodes = ranks_nodes_text(r), *cpus = ranks_cpus_text(r);
                is_str(nodes, "0,0,0,1", "ranks in PCI order, as the listed order does not count");
                is_str(cpus, "0-5,32-37;6-10,38-42;11-15,43-47;16-31,48-63",
                       "16 cores split 6, 5, 5; the rank alone on node 1 takes all of it");
        }
        plan_free(p);
        p = plan_text(t,
                      "[replica a]\nunit = a.service\naccelerators = 18:00.0 9a:00.0\nmemory = 10G\n"
                      "[replica b]\nunit = b.service\naccelerators = 2a:00.0\nmemory = 10G\n",
                      &err);
        if (ok(p != NULL, "a spanning replica sharing node 0")) {
                const struct placement *r = replica(p, "a");
                _cleanup_free_ char *cpus = ranks_cpus_text(r);
                is_str(cpus, "0-7,32-39;16-31,48-63", "each rank takes the replica's share of its node");
                is_int(plan_node(p, 0)->assigned, UINT64_C(15) << 30, "5G of a's and b's 10G on node 0");
        }
        plan_free(p);
        p = plan_text(t, "[replica one]\nunit = one.service\naccelerators = 18:00.0\nmemory = 1G\nmodel = /m\n", &err);
        if (ok(p != NULL, "one accelerator")) {
                _cleanup_free_ char *d = dropin_render(t, cur, p, replica(p, "one"), MARKER);
                ok(d && !strstr(d, "NUMAPLAN_RANK") && !strstr(d, "--spread"), "no rank variables, no spread");
        }
        plan_free(p);
        p = plan_text(t, "[replica tp]\nunit = tp.service\naccelerators = count:8\npolicy = interleave\n", &err);
        ok(p && replica(p, "tp")->policy == POLICY_INTERLEAVE, "interleave only for who asks by name");
        plan_free(p);

        p = plan_text(t, "[replica tp]\nunit = tp.service\naccelerators = 18:00.0 9a:00.0\npolicy = preferred\n", &err);
        ok(!p && err && strstr(err, "exactly one node"), "preferred across two nodes is an error");
        free(err);

        p = plan_text(t, "[replica p]\nunit = p.service\naccelerators = db:00.0\npolicy = preferred\nmemory = 1G\n",
                      &err);
        if (ok(p != NULL, "preferred on one node")) {
                _cleanup_free_ char *d = dropin_render(t, cur, p, replica(p, "p"), MARKER);
                ok(d && strstr(d, "NUMAPolicy=preferred\nNUMAMask=1\n") && !strstr(d, "AllowedMemoryNodes"),
                   "preferred: one node in NUMAMask, no AllowedMemoryNodes");
        }
        plan_free(p);

        p = plan_text(t,
                      "[numaplan]\nreserve-cpus = 0,32\n[replica a]\nunit = a.service\naccelerators = 18:00.0\n"
                      "[replica b]\nunit = b.service\naccelerators = 2a:00.0\ncpus = cores:3\n",
                      &err);
        if (ok(p != NULL, "cores:N beside an even share, with reserved CPUs")) {
                is_set(&replica(p, "a")->cpus, "1-12,33-44", "a takes what b leaves, reserved core left out");
                is_set(&replica(p, "b")->cpus, "13-15,45-47", "b takes 3 cores with their siblings");
        }
        plan_free(p);

        p = plan_text(t, "[replica a]\nunit = a.service\naccelerators = 18:00.0\ncpus = cores:20\n", &err);
        ok(!p && err && strstr(err, "physical cores"), "more cores than the node has is an error");
        free(err);

        p = plan_text(t, "[numaplan]\nvisible-devices = no\n[replicas g]\nunit = g@%i.service\n", &err);
        ok(p && p->n_replicas == 8 && !p->replicas[0].environment, "visible-devices = no: no Environment=");
        plan_free(p);

        p = plan_text(t,
                      "[replicas cpu]\nunit = c@%i.service\nper = node\n[replica x]\nunit = x.service\n"
                      "accelerators = ab:00.0\n",
                      &err);
        if (ok(p && p->n_replicas == 3, "per node next to a listed replica")) {
                is_int(replica(p, "cpu-0")->n_accels, 4, "node 0's replica takes node 0's GPUs");
                is_int(replica(p, "cpu-1")->n_accels, 3, "node 1's replica takes those not listed elsewhere");
                is_str(p->replicas[0].name, "cpu-0", "config order, template expanded in place");
        }
        plan_free(p);
        topology_free(t);
}

static void examples_others(void) {
        char *err;
        struct topology *t = host("nps4-2s-8gpu");
        struct plan *p = plan_text(t, "[replica tp]\nunit = tp.service\naccelerators = count:4\nmemory = 100G\n", &err);
        if (ok(p != NULL, "nps4: count:4")) {
                is_set(&replica(p, "tp")->nodes, "0-3", "four nodes of one socket, nearest first");
                is_str(replica(p, "tp")->environment, "ROCR_VISIBLE_DEVICES=0,1,2,3", "AMD: ROCR_VISIBLE_DEVICES");
        }
        plan_free(p);
        /* Nodes chosen in another order than the addresses (node 0 holds the higher one): device 0
         * in the process is still the lowest address. */
        p = plan_text(t,
                      "[numaplan]\naccelerator-nodes = 05:00.0=1 15:00.0=0\n[replica tp]\nunit = tp.service\n"
                      "accelerators = count:2\n",
                      &err);
        if (ok(p != NULL, "nps4: count:2 over swapped nodes")) {
                is_str(replica(p, "tp")->environment, "ROCR_VISIBLE_DEVICES=0,1",
                       "visible devices in PCI-address order");
                ok(replica(p, "tp")->n_accels == 2 && replica(p, "tp")->accels[0] < replica(p, "tp")->accels[1],
                   "and so are the replica's accelerators");
        }
        plan_free(p);
        p = plan_text(t,
                      "[replicas c]\nunit = c@%i.service\nper = node\nvisible-devices = no\n[replica solo]\n"
                      "unit = s.service\nmemory = 1G\n",
                      &err);
        ok(p && replica(p, "solo") && cpuset_count(&replica(p, "solo")->nodes) == 1,
           "a CPU-only replica gets one node");
        plan_free(p);
        /* A template left nothing to place says so, naming itself and its line; one that placed
         * some does not. */
        p = plan_text(t,
                      "[replica all]\nunit = all.service\naccelerators = count:8\n[replicas g]\nunit = g@%i\n"
                      "per = accelerator\n[replicas n]\nunit = n@%i\nper = node\n",
                      &err);
        ok(p && p->n_replicas == 9 && warnings_count(&warnings, SEVERITY_WARNING) == 1 &&
                   has(WARNING_PLACES_NOTHING,
                       "test.conf:6: [replicas g] places no replica: per = accelerator, and every "
                       "compute accelerator of this host is another section's"),
           "nps4: a per-accelerator template with every accelerator taken places nothing, and says so at its line");
        plan_free(p);
        topology_free(t);

        t = host("no-numa-kernel");
        p = plan_text(t, "[replica a]\nunit = a.service\nmemory = 1G\n[replicas gpu]\nunit = gpu@%i\n", &err);
        ok(p && p->n_replicas == 1 &&
                   has(WARNING_PLACES_NOTHING,
                       "test.conf:4: [replicas gpu] places no replica: per = accelerator, and this "
                       "host shows no compute accelerator"),
           "no accelerators: a per-accelerator template places nothing, at its header's line without per =");
        plan_free(p);
        p = plan_text(t, "", &err);
        ok(p && p->n_replicas == 1 && !has(WARNING_PLACES_NOTHING, ""), "the built-in default is not warned of");
        plan_free(p);
        topology_free(t);

        t = host("gh200-memonly");
        p = plan_text(t, "[replica g]\nunit = g.service\naccelerators = 0009:01:00.0\nmemory = 400G\n", &err);
        if (ok(p != NULL, "gh200: a replica beside a memory-only node")) {
                is_set(&replica(p, "g")->nodes, "0", "the memory-only node is not added unasked");
        }
        plan_free(p);
        p = plan_text(t, "[replica g]\nunit = g.service\naccelerators = 0009:01:00.0\nmemory = 500G\n", &err);
        ok(!p && err && strstr(err, "no set of nodes holds it"), "not extended onto a memory-only node either");
        free(err);
        p = plan_text(t,
                      "[replica g]\nunit = g.service\naccelerators = 0009:01:00.0\nmemory = 500G\nmemory-nodes = 1\n",
                      &err);
        if (ok(p != NULL, "memory-nodes = 1 asks for the HBM node")) {
                is_set(&replica(p, "g")->nodes, "0-1", "added to the mask");
                ok(replica(p, "g")->policy == POLICY_BIND, "bound, filled lowest node first");
                is_set(&replica(p, "g")->cpus, "0-71", "CPUs of the CPU node only");
        }
        plan_free(p);
        topology_free(t);

        t = host("gpus-numa-minus1");
        p = plan_text(
                t, "[numaplan]\naccelerator-nodes = e1:00.0=1\n[replica x]\nunit = x.service\naccelerators = e1:00.0\n",
                &err);
        if (ok(p != NULL, "accelerator-nodes gives a node to a GPU without one")) {
                is_set(&replica(p, "x")->nodes, "1", "the configured node");
                ok(t->accels[2].numa_source == NUMA_SOURCE_OVERRIDE, "numa_source is override");
        }
        plan_free(p);
        topology_free(t);

        t = host("gpus-numa-minus1"); /* afresh: the override above moved e1:00.0 */
        p = plan_text(t, "[replica x]\nunit = x.service\naccelerators = e1:00.0\n", &err);
        size_t no_node = 0;
        for (size_t i = 0; p && i < warnings.n; i++)
                no_node += warnings.v[i].code == WARNING_ACCELERATOR_NO_NODE;
        ok(p && no_node == 1 && strstr(warnings.v[0].message, "replica x is placed as a CPU-only replica") &&
                   strstr(warnings.v[0].message, "set accelerator-nodes = 0000:e1:00.0=NODE"),
           "a GPU without a node: one warning, with the consequence and one piece of advice");
        plan_free(p);
        p = plan_text(t, "[replica big]\nunit = big.service\naccelerators = 41:00.0\nmemory = 100G\n", &err);
        ok(p && has(WARNING_NODE_MEMORY_LOW, "needs 100.0 GiB bound to node 0, which has 20.0 GiB available now"),
           "a bind replica beyond what its node has available now: node-memory-low, in numbers");
        plan_free(p);
        topology_free(t);

        t = host("single-node");
        p = plan_text(t, "[replicas c]\nunit = c@%i.service\nper = node\n[replica d]\nunit = d.service\n", &err);
        if (ok(p && p->n_replicas == 2, "single node, two replicas")) {
                is_set(&replica(p, "c-0")->cpus, "0-3,8-11", "the first takes the extra core of an odd split");
                is_set(&replica(p, "d")->cpus, "4-7,12-13", "offline CPUs are in nobody's list");
        }
        plan_free(p);
        topology_free(t);
}

/* ---- invariants ---- */

static uint64_t rnd_state;
static uint64_t rnd(void) {
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return rnd_state;
}

/* Checks the placement rules (numaplan.conf(5), PLACEMENT) on a plan; returns the first violation, or NULL. */
/* nics = auto (numaplan.conf(5), NETWORK ADAPTERS): no virtual function, none of another node,
 * and for each accelerator the nearest adapters it has, by pci_link(). */
static char *nic_violation(const struct topology *t, const struct config *c, const struct placement *r) {
        if (replica_nics(c, r->conf)->mode != NICS_AUTO)
                return NULL;
        bool with_node = false;
        for (size_t j = 0; j < r->n_accels; j++)
                with_node = with_node || t->accels[r->accels[j]].numa_node >= 0;
        for (size_t k = 0; k < r->n_nics; k++) {
                const struct pci_device *n = &t->nics[r->nics[k].nic];
                int best = -1;
                for (size_t j = 0; j < r->n_accels; j++) {
                        int rank = pci_link_rank(pci_link(&t->accels[r->accels[j]], n));
                        best = rank >= 0 && (best < 0 || rank < best) ? rank : best;
                }
                if (n->virtual_function)
                        return xasprintf("nics: %s got virtual function %s", r->name, n->pci);
                if (with_node ? best < 0 || best > 3
                              : n->numa_node < 0 || !cpuset_isset(&r->home, (unsigned) n->numa_node))
                        return xasprintf("nics: %s got %s, another node's", r->name, n->pci);
        }
        for (size_t j = 0; with_node && j < r->n_accels; j++) {
                const struct pci_device *a = &t->accels[r->accels[j]];
                int best = -1, got = -1;
                for (size_t i = 0; i < t->n_nics; i++) {
                        int rank = t->nics[i].virtual_function ? -1 : pci_link_rank(pci_link(a, &t->nics[i]));
                        if (rank < 0 || rank > 3)
                                continue;
                        best = best < 0 || rank < best ? rank : best;
                        for (size_t k = 0; k < r->n_nics; k++)
                                if (r->nics[k].nic == i)
                                        got = got < 0 || rank < got ? rank : got;
                }
                if (best != got)
                        return xasprintf("nics: %s's accelerator %s has an adapter at rank %d, and got %d", r->name,
                                         a->pci, best, got);
        }
        return NULL;
}

/* Rule 2 for bind, independently of the planner: each node of the set takes the share of the
 * replica's ranks on it (its home's when none is, else the first node's), cumulative shares
 * rounded down; what a node cannot hold goes to the node of the set with room nearest a weighted
 * one, then the lower id. Returns what found no room. */
static uint64_t book_bound(const struct topology *t, const struct plan *p, const struct placement *r, uint64_t *share) {
        uint64_t mem = r->memory, w[1024] = {0}, total = 0, before = 0, excess = 0;
        /* A rank whose accelerator has no node weighs nothing: it is placed after the memory. */
        for (size_t k = 0; k < r->n_ranks; k++)
                if (topology_node(t, t->accels[r->ranks[k].accel].numa_node) &&
                    cpuset_isset(&r->nodes, r->ranks[k].node) && r->ranks[k].node < 1024) {
                        w[r->ranks[k].node]++;
                        total++;
                }
        CPUSET_FOREACH(n, &r->nodes)
                if (total == 0 && cpuset_isset(&r->home, n) && n < 1024)
                        total += w[n] = 1;
        if (total == 0)
                total = w[cpuset_next(&r->nodes, 0)] = 1;
#define ROOM(n) \
        (plan_node(p, n) && plan_node(p, n)->usable > share[topology_node_index(t, n)] \
                 ? plan_node(p, n)->usable - share[topology_node_index(t, n)] \
                 : 0)
        CPUSET_FOREACH(n, &r->nodes) {
                if (n >= 1024 || !w[n])
                        continue;
                uint64_t lo = (uint64_t) ((unsigned __int128) mem * before / total);
                before += w[n];
                uint64_t want = (uint64_t) ((unsigned __int128) mem * before / total) - lo,
                         take = want < ROOM(n) ? want : ROOM(n);
                share[topology_node_index(t, n)] += take;
                excess += want - take;
        }
        while (excess > 0) {
                int best = -1, best_d = 0;
                CPUSET_FOREACH(n, &r->nodes) {
                        int d = -1;
                        if (ROOM(n) == 0)
                                continue;
                        CPUSET_FOREACH(m, &r->nodes)
                                if (m < 1024 && w[m] && (d < 0 || topology_distance(t, m, n) < d))
                                        d = topology_distance(t, m, n);
                        if (best < 0 || d < best_d)
                                best = n, best_d = d;
                }
                if (best < 0)
                        break;
                uint64_t take = excess < ROOM(best) ? excess : ROOM(best);
                share[topology_node_index(t, best)] += take;
                excess -= take;
        }
#undef ROOM
        return excess;
}

/* Physical cores among `cpus`: SMT siblings one. */
static unsigned cores_in(const struct topology *t, const struct cpuset *cpus) {
        struct cpuset cores = {0};
        CPUSET_FOREACH(c, cpus)
                cpuset_set(&cores, c <= t->max_cpu && t->core_of[c] >= 0 ? (unsigned) t->core_of[c] : (unsigned) c);
        return cpuset_count(&cores);
}

/* The node a rank of accelerator `a` belongs on: its own when that has CPUs and DRAM. */
static bool rank_node_ok(const struct topology *t, const struct pci_device *a, int node) {
        const struct node *own = a->numa_node >= 0 ? topology_node(t, a->numa_node) : NULL;
        if (own && !cpuset_is_empty(&own->cpus) && memory_kind_allowed(own->memory.kinds, 0))
                return node == a->numa_node;
        const struct node *n = topology_node(t, node);
        return n && !cpuset_is_empty(&n->cpus);
}

/* Each accelerator one rank, in the order of the visible devices (PCI order, NVIDIA's before
 * AMD's before the rest when visible-devices sets them), each on its accelerator's node, taking
 * together all of the replica's CPUs on their nodes, split by core within one, no CPU twice. */
static char *rank_violation(const struct topology *t, const struct placement *r) {
        struct cpuset seen = {0}, all = {0}, nodes = {0};
        if (r->n_ranks != r->n_accels)
                return xasprintf("ranks: %s has %zu ranks for %zu accelerators", r->name, r->n_ranks, r->n_accels);
        for (size_t k = 0; k < r->n_ranks; k++) {
                const struct placement_rank *a = &r->ranks[k];
                const struct pci_device *d = &t->accels[a->accel];
                int g = !r->visible_devices || !d->compute || !d->ids_known ? 2
                        : d->vendor == 0x10de                               ? 0
                        : d->vendor == 0x1002                               ? 1
                                                                            : 2;
                for (size_t m = k + 1; m < r->n_ranks; m++) {
                        const struct pci_device *e = &t->accels[r->ranks[m].accel];
                        int h = !r->visible_devices || !e->compute || !e->ids_known ? 2
                                : e->vendor == 0x10de                               ? 0
                                : e->vendor == 0x1002                               ? 1
                                                                                    : 2;
                        if (r->ranks[m].accel == a->accel || h < g || (h == g && r->ranks[m].accel < a->accel))
                                return xasprintf("ranks: %s's rank %zu (%s) is out of the visible devices' order",
                                                 r->name, k, d->pci);
                }
                if (!rank_node_ok(t, d, a->node))
                        return xasprintf("ranks: %s's rank %zu (%s, node %d) is on node %d", r->name, k, d->pci,
                                         d->numa_node, a->node);
                if (!cpuset_is_subset(&a->cpus, &r->cpus) || cpuset_is_empty(&a->cpus))
                        return xasprintf("ranks: %s's rank %zu has CPUs outside the replica's, or none", r->name, k);
                struct cpuset on = topology_node(t, a->node)->cpus;
                if (!cpuset_is_subset(&a->cpus, &on))
                        return xasprintf("ranks: %s's rank %zu has CPUs off its node %d", r->name, k, a->node);
                struct cpuset mine = on;
                cpuset_and(&mine, &r->cpus);
                if (cpuset_intersects(&a->cpus, &seen) && cpuset_count(&mine) >= ranks_on(r, a->node))
                        return xasprintf("ranks: %s's rank %zu shares a CPU with another rank", r->name, k);
                cpuset_or(&seen, &a->cpus);
                cpuset_set(&nodes, (unsigned) a->node);
        }
        CPUSET_FOREACH(n, &nodes)
                cpuset_or(&all, &topology_node(t, n)->cpus);
        cpuset_and(&all, &r->cpus);
        if (!cpuset_equal(&all, &seen))
                return xasprintf("ranks: %s's ranks do not take all of its CPUs on their nodes", r->name);
        for (size_t k = 0; k < r->n_ranks; k++)
                for (size_t m = 0; m < r->n_ranks; m++) {
                        unsigned ck = cores_in(t, &r->ranks[k].cpus), cm = cores_in(t, &r->ranks[m].cpus);
                        if (r->ranks[k].node == r->ranks[m].node && ck > cm + 1)
                                return xasprintf("ranks: %s's ranks %zu and %zu on node %d have %u and %u cores",
                                                 r->name, k, m, r->ranks[k].node, ck, cm);
                }
        return NULL;
}

static char *violation(const struct topology *t, const struct config *c, const struct plan *p) {
        size_t nn = t->n_nodes;
        uint64_t *share = xmalloc0((nn + 1) * sizeof(uint64_t));
        bool *spilled = xmalloc0(nn + 1);
        char *v = NULL;
        struct cpuset all_cpus = {0};

#define FAIL(...) \
        do { \
                if (!v) \
                        v = xasprintf(__VA_ARGS__); \
        } while (0)

        for (size_t i = 0; i < p->n_replicas; i++) {
                const struct placement *r = &p->replicas[i];
                struct cpuset accel_nodes = {0}, cpu_nodes = {0}, node_cpus = {0};
                for (size_t j = 0; j < r->n_accels; j++) {
                        int n = t->accels[r->accels[j]].numa_node;
                        /* A node of CPUs whose memory is NVM homes no replica: it is planned elsewhere. */
                        if (n >= 0 && !cpuset_is_empty(&topology_node(t, n)->cpus) &&
                            memory_kind_allowed(topology_node(t, n)->memory.kinds, 0))
                                cpuset_set(&accel_nodes, (unsigned) n);
                        for (size_t k = 0; k < i; k++)
                                for (size_t m = 0; m < p->replicas[k].n_accels; m++)
                                        if (p->replicas[k].accels[m] == r->accels[j])
                                                FAIL("rule 7: accelerator %s in %s and %s", t->accels[r->accels[j]].pci,
                                                     p->replicas[k].name, r->name);
                }
                CPUSET_FOREACH(n, &r->nodes) {
                        const struct node *nd = topology_node(t, n);
                        if (!nd)
                                FAIL("%s: mask names node %d, which does not exist", r->name, n);
                        else if (!cpuset_is_empty(&nd->cpus)) {
                                cpuset_set(&cpu_nodes, (unsigned) n);
                                cpuset_or(&node_cpus, &nd->cpus);
                        } else if (!cpuset_isset(&r->conf->memory_nodes, n) &&
                                   !(memory_kind_tiers(nd->memory.kinds) & replica_memory_tiers(c, r->conf)))
                                FAIL("rule 6: %s has memory-only node %d in its mask unasked", r->name, n);
                        if (nd && memory_kind_forbidden(nd->memory.kinds))
                                FAIL("memory kinds: %s has node %d, %s, in its mask", r->name, n,
                                     memory_kind_words(nd->memory.kinds));
                        else if (nd && !memory_kind_allowed(nd->memory.kinds, replica_memory_tiers(c, r->conf)))
                                FAIL("memory kinds: %s has node %d, %s, under memory-tiers = %s", r->name, n,
                                     memory_kind_words(nd->memory.kinds),
                                     memory_tiers_to_string(replica_memory_tiers(c, r->conf)));
                }
                for (size_t j = 0; j < r->n_hugepages; j++)
                        if (!cpuset_isset(&r->nodes, (unsigned) r->hugepages[j].node))
                                FAIL("memory kinds: %s has huge pages on node %d, outside its mask", r->name,
                                     r->hugepages[j].node);
                if (!cpuset_is_subset(&accel_nodes, &r->nodes))
                        FAIL("rule 1/4: %s's mask lacks a node of its accelerators", r->name);
                if (r->n_accels == 0 && cpuset_is_empty(&cpu_nodes))
                        FAIL("rule 1: CPU-only %s has no node with CPUs", r->name);
                enum policy asked = replica_policy(c, r->conf);
                if (r->policy == POLICY_AUTO)
                        FAIL("%s: policy auto left in the plan", r->name);
                if (r->policy == POLICY_PREFERRED && cpuset_count(&r->nodes) != 1)
                        FAIL("rule 3: preferred %s with %u nodes", r->name, cpuset_count(&r->nodes));
                if (r->policy == POLICY_PREFERRED && asked != POLICY_PREFERRED)
                        FAIL("rule 3: %s preferred unasked", r->name);
                if (asked == POLICY_AUTO && !r->extended && cpuset_count(&accel_nodes) <= 1 &&
                    cpuset_count(&r->home) <= 1 && cpuset_is_empty(&r->conf->memory_nodes) && r->policy != POLICY_BIND)
                        FAIL("rule 2: %s fits its home but is not bind", r->name);
                if (asked == POLICY_AUTO && r->policy != POLICY_BIND)
                        FAIL("rules 2-4: %s is %s under policy auto: never interleaved unasked", r->name,
                             policy_to_string(r->policy));
                if (asked == POLICY_INTERLEAVE && r->policy != POLICY_INTERLEAVE)
                        FAIL("rule 3: %s asked interleave and got %s", r->name, policy_to_string(r->policy));
                _cleanup_free_ char *rv = rank_violation(t, r);
                if (rv)
                        FAIL("%s", rv);
                if (r->policy == POLICY_INTERLEAVE && cpuset_count(&r->nodes) > 1 && cpuset_count(&cpu_nodes) < 2)
                        FAIL("rule 4: %s interleaves with the CPUs of one node", r->name);

                /* Rule 5. */
                struct cpuset allowed = node_cpus;
                cpuset_andnot(&allowed, &c->reserve_cpus);
                if (!cpuset_is_subset(&r->cpus, &allowed))
                        FAIL("rule 5: %s has CPUs outside its nodes or reserved", r->name);
                if (cpuset_intersects(&r->cpus, &all_cpus))
                        FAIL("rule 5: %s shares CPUs with another replica", r->name);
                cpuset_or(&all_cpus, &r->cpus);
                if (r->cpu_affinity_numa && !cpuset_equal(&r->cpus, &allowed))
                        FAIL("rule 5: %s has CPUAffinity=numa but not all of its nodes' CPUs", r->name);
                if (r->cpu_affinity_numa && r->conf->cores)
                        FAIL("rule 5: %s asked cores:%u and got whole nodes", r->name, r->conf->cores);
                CPUSET_FOREACH(cpu, &r->cpus)
                        CPUSET_FOREACH(s, &t->online_cpus)
                                if (t->core_of[s] == t->core_of[cpu] && cpuset_isset(&allowed, s) &&
                                    !cpuset_isset(&r->cpus, s))
                                        FAIL("rule 5: %s has CPU %d but not its sibling %d", r->name, cpu, s);
                if (r->conf->cores && cpuset_count(&r->cpus) < r->conf->cores)
                        FAIL("rule 5: %s asked %u cores", r->name, r->conf->cores);

                _cleanup_free_ char *nv = nic_violation(t, c, r);
                if (nv)
                        FAIL("%s", nv);

                /* Rule 9. */
                bool nvidia = false;
                for (size_t m = 0; m < r->n_accels; m++)
                        nvidia =
                                nvidia || (t->accels[r->accels[m]].vendor == 0x10de && t->accels[r->accels[m]].compute);
                if (replica_visible_devices(c, r->conf) &&
                    nvidia != (r->environment && strstr(r->environment, "CUDA_VISIBLE")))
                        FAIL("rule 9: %s's CUDA_VISIBLE_DEVICES", r->name);
        }

        /* Rule 2: book memory as the kernel fills it (bound near its ranks, interleave evenly),
         * independently of the planner, in its order: replicas with a home, then CPU-only ones. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < p->n_replicas; i++) {
                        const struct placement *r = &p->replicas[i];
                        bool homed = r->n_accels > 0 ||
                                     (r->conf->is_template && (r->conf->per == PER_NODE || c->builtin_default));
                        if (homed != (pass == 0))
                                continue;
                        uint64_t mem = r->memory, k = cpuset_count(&r->nodes), j = 0;
                        CPUSET_FOREACH(n, &r->nodes) {
                                int x = topology_node_index(t, n);
                                if (r->policy == POLICY_PREFERRED) {
                                        /* Counted in full on its node; beyond usable, the kernel spills. */
                                        const struct plan_node *pn = plan_node(p, n);
                                        share[x] += mem;
                                        spilled[x] = spilled[x] || (pn && share[x] > pn->usable);
                                        mem = 0;
                                } else if (r->policy == POLICY_INTERLEAVE)
                                        share[x] += mem / k + (j++ < mem % k);
                        }
                        if (r->policy == POLICY_BIND)
                                mem = book_bound(t, p, r, share);
                        if (r->policy != POLICY_INTERLEAVE && mem > 0)
                                FAIL("rule 2: %s bound to nodes that cannot hold it", r->name);
                        /* Its huge pages, on its nodes, right after its memory. */
                        uint64_t pages = 0;
                        for (size_t h = 0; h < r->n_hugepages; h++) {
                                int x = topology_node_index(t, r->hugepages[h].node);
                                if (x < 0 || !cpuset_isset(&r->nodes, r->hugepages[h].node))
                                        FAIL("%s: huge pages on node %d, off its nodes", r->name, r->hugepages[h].node);
                                else
                                        share[x] += r->hugepages[h].pages * r->hugepage_kb * 1024;
                                pages += r->hugepages[h].pages;
                        }
                        if (pages * r->hugepage_kb * 1024 < r->conf->hugepages.bytes)
                                FAIL("%s: %" PRIu64 " huge pages hold less than its hugepages =", r->name, pages);
                }

        for (size_t x = 0; x < nn; x++) {
                const struct plan_node *pn = plan_node(p, t->nodes[x].id);
                uint64_t usable = pn ? pn->usable : 0, assigned = pn ? pn->assigned : 0;
                if (share[x] > usable && !spilled[x])
                        FAIL("rule 2: node %d holds %" PRIu64 " > usable %" PRIu64, t->nodes[x].id, share[x], usable);
                if (share[x] != assigned)
                        FAIL("node %d assigned %" PRIu64 ", replicas add up to %" PRIu64, t->nodes[x].id, assigned,
                             share[x]);
        }

        /* Rule 5: cpus = node replicas sharing a node's cores get counts within one of each other. */
        for (size_t x = 0; x < nn; x++) {
                unsigned lo = ~0u, hi = 0, users = 0;
                for (size_t i = 0; i < p->n_replicas; i++) {
                        const struct placement *r = &p->replicas[i];
                        struct cpuset on = r->cpus;
                        cpuset_and(&on, &t->nodes[x].cpus);
                        if (r->conf->cores || cpuset_is_empty(&on))
                                continue;
                        unsigned cores = 0;
                        CPUSET_FOREACH(cpu, &on)
                                cores += t->core_of[cpu] == cpu || t->core_of[cpu] < 0 ||
                                         !cpuset_isset(&on, t->core_of[cpu]);
                        lo = cores < lo ? cores : lo;
                        hi = cores > hi ? cores : hi;
                        users++;
                }
                if (users > 1 && hi > lo + 1)
                        FAIL("rule 5: uneven split on node %d (%u..%u cores)", t->nodes[x].id, lo, hi);
        }
#undef FAIL
        free(share);
        free(spilled);
        return v;
}

static void random_config(const struct topology *t, struct strbuf *b) {
        static const char *const policies[] = {"auto", "auto", "auto", "bind", "interleave", "preferred"};
        unsigned n = 1 + (unsigned) (rnd() % 5);
        uint64_t max_node = 0;
        for (size_t i = 0; i < t->n_nodes; i++)
                max_node = t->nodes[i].mem_total > max_node ? t->nodes[i].mem_total : max_node;

        if (rnd() % 3 == 0)
                strbuf_printf(b, "[numaplan]\nheadroom = %u%%\n", (unsigned) (rnd() % 30));
        if (rnd() % 4 == 0 && t->n_nodes && !cpuset_is_empty(&t->nodes[0].cpus))
                strbuf_printf(b, "%sreserve-cpus = %d\n", b->len ? "" : "[numaplan]\n",
                              cpuset_next(&t->nodes[0].cpus, 0));
        for (unsigned i = 0; i < n; i++) {
                unsigned kind = (unsigned) (rnd() % 6);
                /* Mostly sizes that fit somewhere, sometimes ones that must be extended or refused. */
                uint64_t scale = rnd() % 5 == 0 ? max_node / (1 << 20) * 3 / 2 : max_node / (1 << 20) / 4;
                uint64_t mem = rnd() % 4 == 0 ? 0 : (rnd() % (scale + 1)) << 20;
                if (kind == 0)
                        strbuf_printf(b, "[replicas t%u]\nunit = t%u@%%i.service\nper = %s\n", i, i,
                                      rnd() % 2 ? "node" : "accelerator");
                else {
                        strbuf_printf(b, "[replica r%u]\nunit = r%u.service\n", i, i);
                        if (kind <= 2 && t->n_accels) {
                                size_t first = rnd() % t->n_accels, second = rnd() % t->n_accels;
                                strbuf_printf(b, "accelerators = %s", t->accels[first].pci);
                                if (rnd() % 3 == 0 && second != first)
                                        strbuf_printf(b, ",%s", t->accels[second].pci);
                                strbuf_append(b, "\n");
                        } else if (kind == 3)
                                strbuf_printf(b, "accelerators = count:%u\n", 1 + (unsigned) (rnd() % 3));
                }
                strbuf_printf(b, "memory = %" PRIu64 "\npolicy = %s\n", mem, policies[rnd() % ELEMENTSOF(policies)]);
                if (rnd() % 5 == 0)
                        strbuf_printf(b, "cpus = cores:%u\n", 1 + (unsigned) (rnd() % 4));
                if (rnd() % 5 == 0)
                        strbuf_printf(b, "hugepages = %" PRIu64 "M\n", 2 * (1 + rnd() % (scale / 16 + 1)));
                if (rnd() % 3 == 0)
                        strbuf_printf(b, "memory-tiers = %s\n", memory_tiers_to_string((unsigned) (rnd() % 4)));
                if (rnd() % 6 == 0 && t->n_nodes)
                        strbuf_printf(b, "memory-nodes = %d\n", t->nodes[rnd() % t->n_nodes].id);
        }
}

/* Memory of every kind on a host read from a fixture: its memory-only nodes in turn GPU memory,
 * NVM, CXL and HBM, and, on a host of four nodes or more, its second node NVM, CPUs and all. */
static void give_kinds(struct topology *t) {
        static const unsigned kinds[] = {MEMORY_GPU, MEMORY_NVM, MEMORY_CXL, MEMORY_HBM};
        unsigned k = 0;
        for (size_t i = 0; i < t->n_nodes; i++)
                if (cpuset_is_empty(&t->nodes[i].cpus) && t->nodes[i].mem_total)
                        t->nodes[i].memory.kinds = kinds[k++ % ELEMENTSOF(kinds)];
                else
                        t->nodes[i].memory.kinds = MEMORY_DRAM;
        if (t->n_nodes >= 4)
                t->nodes[1].memory.kinds = MEMORY_NVM;
}

static void properties(const char *name, bool kinds) {
        struct topology *t = host(name);
        unsigned planned = 0, refused = 0, broken = 0, unstable = 0;
        _cleanup_free_ char *first_violation = NULL;

        rnd_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t) strlen(name) * 7919 ^ kinds;
        if (kinds)
                give_kinds(t);
        for (unsigned trial = 0; trial < (kinds ? 150u : 300u); trial++) {
                struct strbuf conf = {0};
                random_config(t, &conf);
                _cleanup_config_ struct config *c = NULL;
                struct plan *p = NULL, *q = NULL;
                struct error_at err = {0};
                struct warnings w = {0};
                if (config_parse_string(conf.s, "random.conf", &c, &err) < 0) {
                        error_at_done(&err);
                        strbuf_done(&conf);
                        continue;
                }
                if (plan_compute(t, c, &w, &p, &err) < 0) {
                        refused++;
                        if (!err.message || !err.at.file) {
                                broken++;
                                if (!first_violation)
                                        first_violation = xasprintf("an error without a message:\n%s", conf.s);
                        }
                        free(err.message);
                        warnings_done(&w);
                        strbuf_done(&conf);
                        continue;
                }
                planned++;
                char *v = violation(t, c, p);
                if (v) {
                        broken++;
                        if (!first_violation)
                                first_violation = xasprintf("%s\n%s", v, conf.s);
                        free(v);
                }
                /* Rule 8: the same input, the same bytes. */
                if (plan_compute(t, c, &w, &q, &err) == 0) {
                        for (size_t i = 0; i < p->n_replicas; i++) {
                                _cleanup_free_ char *a = dropin_render(t, c, p, &p->replicas[i], MARKER),
                                                    *b = dropin_render(t, c, q, &q->replicas[i], MARKER);
                                unstable += !streq(a, b);
                        }
                        plan_free(q);
                } else
                        unstable++;
                plan_free(p);
                warnings_done(&w);
                strbuf_done(&conf);
        }
        ok(broken == 0, "%s%s: %u random plans keep every placement rule (%u refused with a reason)", name,
           kinds ? " with GPU memory, NVM, CXL and HBM" : "", planned, refused);
        if (first_violation)
                printf("#   %s\n", first_violation);
        ok(unstable == 0 && planned > 0, "%s: planning twice gives byte-identical drop-ins", name);
        topology_free(t);
}

/* model = and hugepages =: what the model's page cache and the pools take of a node. */
static void examples_memory(void) {
        struct topology *t = host("dgx-2s-8gpu");
        char *err;

        ok(t->hugepage_default_kb == 2048 && t->n_hugepage_sizes == 2 && t->hugepage_sizes_kb[1] == 1048576,
           "the host's huge page sizes: 2 MiB by default, and 1 GiB");
        struct plan *p = plan_text(
                t, "[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 100G\nhugepages = 64G\n", &err);
        if (ok(p != NULL, "hugepages = 64G of the default size")) {
                const struct placement *r = replica(p, "a");
                ok(r->hugepage_kb == 2048 && r->n_hugepages == 1 && r->hugepages[0].node == 0 &&
                           r->hugepages[0].pages == 32768,
                   "32768 pages of 2 MiB on its node 0");
                is_int(plan_node(p, 0)->assigned, UINT64_C(164) << 30, "counted on node 0 beside its memory");
        }
        plan_free(p);
        p = plan_text(t, "[replica tp]\nunit = tp.service\naccelerators = 18:00.0 9a:00.0\nhugepages = 3G:1G\n", &err);
        if (ok(p != NULL, "hugepages = 3G:1G over two nodes")) {
                const struct placement *r = replica(p, "tp");
                ok(r->hugepage_kb == 1048576 && r->n_hugepages == 2 && r->hugepages[0].pages == 2 &&
                           r->hugepages[1].pages == 1,
                   "split evenly, the first node taking the remainder");
        }
        plan_free(p);
        p = plan_text(t, "[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 900G\nhugepages = 64G\n",
                      &err);
        ok(!p && err && strstr(err, "test.conf:5:") && strstr(err, "do not fit node 0 beside its memory"),
           "a pool that does not fit beside the replica: error at the hugepages line");
        if (err)
                printf("#   %s\n", err);
        free(err);
        p = plan_text(t, "[replica a]\nunit = a.service\nhugepages = 1G:16M\n", &err);
        ok(!p && err && strstr(err, "test.conf:3:") && strstr(err, "offers no 16.0 MiB huge pages"),
           "a page size the kernel does not offer");
        free(err);
        uint64_t dflt = t->hugepage_default_kb;
        t->hugepage_default_kb = 0;
        p = plan_text(t, "[replica a]\nunit = a.service\nhugepages = 1G\n", &err);
        ok(!p && err && strstr(err, "default huge page size is unknown"), "no default size known: name one");
        free(err);
        t->hugepage_default_kb = dflt;

        model_bytes = UINT64_C(2) << 40;
        p = plan_text(t, "[replica m]\nunit = m.service\naccelerators = 18:00.0\nmemory = 64G\nmodel = /srv/m\n", &err);
        ok(!p && err && strstr(err, "test.conf:5:") &&
                   strstr(err, "its model (2.0 TiB in files) is larger than its node 0"),
           "a model larger than its nodes can hold: error at the model line");
        free(err);
        p = plan_text(t, "[replica m]\nunit = m.service\naccelerators = 18:00.0\nmodel = /srv/m\n", &err);
        ok(!p && err && strstr(err, "test.conf:4:"), "sized by its model and too big: the error names the model line");
        free(err);
        model_bytes = UINT64_C(40) << 30;
        p = plan_text(t, "[replica m]\nunit = m.service\naccelerators = 18:00.0\nmodel = /srv/100%, /srv/$HOME\n",
                      &err);
        if (ok(p != NULL, "a model that fits")) {
                _cleanup_free_ char *d = dropin_render(t, cur, p, replica(p, "m"), MARKER);
                ok(d && strstr(d, "ExecStartPre=-+\"/usr/sbin/numaplan\" prepare --nodes 0 --nics \"0000:17:00.0\" "
                                  "--nics-env "
                                  "\"/run/numaplan/nics/%n\" -- \"/srv/100%%\" \"/srv/$$HOME\"\n"),
                   "its drop-in prepares the page cache before the start, specifiers and variables escaped");
                is_int(replica(p, "m")->memory, UINT64_C(40) << 30, "memory: the model's size");
        }
        plan_free(p);
        p = plan_text(t,
                      "[numaplan]\nnics = none\n[replica a]\nunit = a.service\naccelerators = 18:00.0\nmodel = /srv/m\n"
                      "[replica b]\nunit = b.service\naccelerators = 9a:00.0\nmodel = /srv/m\n"
                      "[replica c]\nunit = c.service\naccelerators = 2a:00.0\nmodel = /srv/m\n",
                      &err);
        ok(p && has(WARNING_MODEL_SHARED, "replicas a (node 0) and b (node 1) name the same model /srv/m") &&
                   warnings.n == 1,
           "one model file for replicas on two nodes is said once; on one node it is fine");
        plan_free(p);
        model_bytes = 0;
        topology_free(t);
}

/* Replicas side by side, one per node, the same engine and model. */
static void examples_side_by_side(void) {
        struct topology *t = host("dgx-2s-8gpu");
        char *err;
        const char *tmpl = "[replicas llama]\nunit = llama@%i.service\nper = node\nmemory = 64G\nmodel = /srv/m\n"
                           "warmup-url = http://127.0.0.1:818%i/completion\nmin-local = 97%\n";

        model_bytes = UINT64_C(40) << 30;
        struct plan *p = plan_text(t, tmpl, &err);
        if (ok(p && p->n_replicas == 2, "per = node: two replicas")) {
                const struct placement *a = replica(p, "llama-0"), *b = replica(p, "llama-1");
                is_str(a->warmup_url, "http://127.0.0.1:8180/completion", "warmup-url's %%i is the instance");
                is_str(b->warmup_url, "http://127.0.0.1:8181/completion", "for each replica");
                ok(a->min_local_bp == 9700 && a->warmup_timeout_ms == 120000 && streq(a->warmup_body, "{}") &&
                           a->visible_devices,
                   "the effective settings, resolved in the placement");
                ok(has(WARNING_MODEL_SHARED, "model-copies = per-node gives each node its own copy"),
                   "the same model on two nodes: model-shared names the fix");
                _cleanup_free_ char *d = dropin_render(t, cur, p, b, MARKER);
                _cleanup_free_ char *threads =
                        xasprintf("NUMAPLAN_NCPUS=%u NUMAPLAN_NCORES=%u\n", b->n_cpus, b->n_cores);
                ok(b->n_cpus == 2 * b->n_cores && b->n_cores > 0 && strstr(d, threads),
                   "every drop-in exports its CPUs (%u) and physical cores (%u)", b->n_cpus, b->n_cores);
                ok(strstr(d, "Environment=\"NUMAPLAN_MODEL=/srv/m\"\n") != NULL && !strstr(d, "OMP_"),
                   "the model's path for the command line; no OpenMP unless asked");
                is_int(plan_node(p, 1)->assigned, UINT64_C(64) << 30,
                       "without copies, only the replica's memory counts");
        }
        plan_free(p);

        _cleanup_free_ char *copies = xasprintf("%smodel-copies = per-node\nopenmp = yes\n", tmpl);
        p = plan_text(t, copies, &err);
        if (ok(p && p->n_replicas == 2, "with model-copies = per-node")) {
                const struct placement *b = replica(p, "llama-1");
                ok(!has(WARNING_MODEL_SHARED, ""), "no model-shared warning: each node has its copy");
                is_str(b->copies, "node1", "llama-1 reads node 1's copy");
                is_int(b->copies_bytes, UINT64_C(40) << 30, "which holds the model");
                is_int(plan_node(p, 1)->assigned, UINT64_C(104) << 30, "the copy counts on its node beside the memory");
                _cleanup_free_ char *d = dropin_render(t, cur, p, b, MARKER);
                ok(strstr(d, "Environment=\"NUMAPLAN_MODEL=/run/numaplan/models/node1/srv/m\"\n") != NULL,
                   "NUMAPLAN_MODEL is its node's copy");
                ok(strstr(d, "prepare --nodes 1 --copy-to \"/run/numaplan/models/node1\" --copy-size 42949672960 "
                             "--env-file \"/run/numaplan/models/.env/%n\" -- \"/srv/m\"\n") != NULL,
                   "prepare makes the copy at the start, sized for the node");
                ok(strstr(d, "EnvironmentFile=-/run/numaplan/models/.env/%n\n") != NULL,
                   "and says in the unit's environment file whether the server reads the copy or the original");
                _cleanup_free_ char *omp =
                        xasprintf("Environment=OMP_NUM_THREADS=%u OMP_PROC_BIND=close OMP_PLACES=cores\n", b->n_cores);
                ok(strstr(d, omp) != NULL, "openmp = yes: one OpenMP thread a physical core");
        }
        plan_free(p);

        /* Four replicas a node (one per GPU) read one copy a node. */
        p = plan_text(t, "[replicas g]\nunit = g@%i.service\nmemory = 16G\nmodel = /srv/m\nmodel-copies = per-node\n",
                      &err);
        if (ok(p && p->n_replicas == 8, "one replica per accelerator, with copies")) {
                is_int(plan_node(p, 0)->assigned, (UINT64_C(4) * 16 + 40) << 30,
                       "one copy a node, however many replicas");
                const struct placement *g1 = replica(p, "g-1");
                bool said = false;
                for (size_t i = 0; i < g1->n_why; i++)
                        said = said || strstr(g1->why[i], "model copy: reads the one replica g-0 made on node 0");
                ok(said, "the plan says who made it");
        }
        plan_free(p);

        model_bytes = UINT64_C(200) << 30;
        p = plan_text(t,
                      "[replicas llama]\nunit = llama@%i.service\nper = node\nmemory = 800G\nmodel = /srv/m\n"
                      "model-copies = per-node\n",
                      &err);
        ok(!p && err && strstr(err, "test.conf:6:") &&
                   strstr(err, "its model's copy (200.0 GiB) does not fit on node 0"),
           "a copy that does not fit beside the replicas: error at the model-copies line");
        if (err)
                printf("#   %s\n", err);
        free(err);
        p = plan_text(t, "[replica a]\nunit = a.service\nmodel-copies = per-node\n", &err);
        ok(!p && err && streq(err, "config did not parse"), "model-copies without model = is an error");
        free(err);
        model_bytes = 0;
        topology_free(t);
}

/* The adapter given to `name` in the last plan, as "PCI LINK" (LINK "named" for a list's), the
 * adapters separated by blanks; "" for none. */
static char *nics_of(const struct topology *t, const struct plan *p, const char *name) {
        const struct placement *r = replica(p, name);
        struct strbuf b = {0};
        for (size_t i = 0; r && i < r->n_nics; i++)
                strbuf_printf(&b, "%s%s %s", i ? " " : "", t->nics[r->nics[i].nic].pci,
                              r->nics[i].link ? r->nics[i].link : "named");
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

#define is_nics(t, p, name, want, ...) \
        do { \
                _cleanup_free_ char *n_ = nics_of(t, p, name); \
                is_str(n_, want, __VA_ARGS__); \
        } while (0)

static bool said_why(const struct plan *p, const char *name, const char *text) {
        const struct placement *r = replica(p, name);
        for (size_t i = 0; r && i < r->n_why; i++)
                if (strstr(r->why[i], text))
                        return true;
        return false;
}

/* nics = on the 8-GPU host that has every place an adapter can sit relative to a GPU. */
static void examples_nics(void) {
        struct topology *t = host("nics-4n-8gpu");
        char *err;

        struct plan *p = plan_text(t, "", &err);
        if (ok(p && p->n_replicas == 8, "nics-4n-8gpu default: one replica per GPU, nics = auto")) {
                is_nics(t, p, "inference-0", "0000:14:00.0 PIX", "GPU0: the ConnectX under its own switch, not its VF");
                is_nics(t, p, "inference-1", "0000:18:00.0 PIX", "GPU1: the other switch's, not GPU0's (PHB)");
                is_nics(t, p, "inference-2", "0000:46:00.0 PXB",
                        "GPU2: the E810 behind its root port, before the PHB one");
                is_nics(t, p, "inference-3", "0000:56:00.0 PHB",
                        "GPU3: the one on its host bridge, before the PXB one of GPU2");
                is_nics(t, p, "inference-4", "0000:a2:00.0 NODE", "GPU4: its node's, through another host bridge");
                is_nics(t, p, "inference-6", "", "GPU6: none from another node");
                ok(said_why(p, "inference-0",
                            "0000:14:00.0 (ens1f0np0; RDMA mlx5_0): PIX to accelerator 0000:13:00.0, the same PCIe "
                            "switch"),
                   "the why names the adapter, its interface and RDMA device, and the path");
                ok(has(WARNING_NIC_REMOTE, "replica inference-6 has no network adapter on node 3: the nearest is "
                                           "0000:a2:00.0 (ens7f0np0; RDMA mlx5_3) on node 2 (distance 12)"),
                   "nic-remote names the replica and the nearest adapter, by node distance");
                ok(!has(WARNING_NIC_REMOTE, "inference-5 "), "no nic-remote for a replica with an adapter on its node");
                _cleanup_free_ char *d0 = dropin_render(t, cur, p, replica(p, "inference-0"), MARKER),
                                    *d6 = dropin_render(t, cur, p, replica(p, "inference-6"), MARKER);
                ok(strstr(d0, "EnvironmentFile=-/run/numaplan/nics/%n\n") &&
                           strstr(d0,
                                  " prepare --nodes 0 --nics \"0000:14:00.0\" --nics-env \"/run/numaplan/nics/%n\"\n"),
                   "the drop-in hands prepare the adapter by PCI address and reads what it writes");
                ok(!strstr(d6, "nics"), "a replica without adapters has neither");
        }
        plan_free(p);

        p = plan_text(t, "[replica tp]\nunit = tp.service\naccelerators = 13:00.0 17:00.0 43:00.0 52:00.0\n", &err);
        is_nics(t, p, "tp", "0000:14:00.0 PIX 0000:18:00.0 PIX 0000:46:00.0 PXB 0000:56:00.0 PHB",
                "four GPUs on two nodes: each one's nearest, in PCI order");
        plan_free(p);
        p = plan_text(t, "[replicas n]\nunit = n@%i.service\nper = node\n", &err);
        is_nics(t, p, "n-1", "0000:46:00.0 PXB 0000:56:00.0 PHB", "per = node: the nearest of each of the node's GPUs");
        is_nics(t, p, "n-3", "", "per = node on the node without an adapter: none");
        plan_free(p);
        p = plan_text(t, "[replica cpu]\nunit = cpu.service\n", &err);
        if (ok(p != NULL, "a CPU-only replica")) {
                const struct placement *r = replica(p, "cpu");
                _cleanup_free_ char *home = set_str(&r->home), *want = NULL;
                int h = cpuset_next(&r->home, 0);
                want = h == 0   ? xstrdup("0000:14:00.0 NODE 0000:18:00.0 NODE")
                       : h == 1 ? xstrdup("0000:46:00.0 NODE 0000:56:00.0 NODE")
                       : h == 2 ? xstrdup("0000:a2:00.0 NODE")
                                : xstrdup("");
                is_nics(t, p, "cpu", want, "CPU-only, on node %s: every adapter of its node but the VF", home);
        }
        plan_free(p);

        p = plan_text(t, "[replica a]\nunit = a.service\naccelerators = 13:00.0\nnics = ib0.8001\n", &err);
        if (ok(p != NULL, "nics = LIST naming another node's adapter by its second interface")) {
                is_nics(t, p, "a", "0000:56:00.0 named", "the adapter of that interface, though on node 1");
                ok(said_why(p, "a", "(ib0.8001; RDMA mlx5_2): named in nics =, on node 1, not the replica's"),
                   "the why says it is another node's, as named");
                _cleanup_free_ char *d = dropin_render(t, cur, p, replica(p, "a"), MARKER);
                ok(strstr(d, "--nics \"ib0.8001\" ") != NULL,
                   "the drop-in hands prepare the name, for the start to resolve");
        }
        plan_free(p);
        p = plan_text(t, "[replica a]\nunit = a.service\naccelerators = 13:00.0\nnics = ens1f0np0, ens9\n", &err);
        ok(!p && err &&
                   strstr(err, "test.conf:4: replica a: nics names ens9, which no network adapter of this host has") &&
                   strstr(err, "ens1f0np0, ens1f0v0, ens2f0np0, ens5f0, ib0, ib0.8001, ens7f0np0"),
           "an unknown name is an error at its line, listing the host's interfaces");
        if (err)
                printf("#   %s\n", err);
        free(err);
        p = plan_text(t, "[numaplan]\nnics = ens9\n[replica a]\nunit = a.service\naccelerators = 13:00.0\n", &err);
        ok(!p && err && strstr(err, "test.conf:2:"), "[numaplan]'s list: an unknown name is an error at its line");
        free(err);
        p = plan_text(t,
                      "[numaplan]\nnics = none\n[replicas g]\nunit = g@%i.service\n[replica b]\nunit = b.service\n"
                      "nics = auto\n",
                      &err);
        if (ok(p != NULL, "[numaplan] nics = none, a replica's auto")) {
                is_nics(t, p, "g-0", "", "none for the template's replicas");
                ok(!has(WARNING_NIC_REMOTE, "g-6"), "and no nic-remote for a replica that asked none");
                ok(said_why(p, "g-0", "nics = none"), "the why says so");
                is_nics(t, p, "b", "0000:14:00.0 NODE 0000:18:00.0 NODE",
                        "the replica's own nics = auto replaces [numaplan]'s: CPU-only b, its node's adapters");
        }
        plan_free(p);
        topology_free(t);

        /* dgx-2s-8gpu: a ConnectX on node 0 without interface (no driver bound), no PCI paths. */
        t = host("dgx-2s-8gpu");
        p = plan_text(t, "", &err);
        is_nics(t, p, "inference-0", "0000:17:00.0 NODE", "no paths: its node's adapter, driver or not");
        is_nics(t, p, "inference-4", "", "node 1: none");
        plan_free(p);
        p = plan_text(t, "[replica a]\nunit = a.service\naccelerators = 18:00.0\nnics = ens9f0\n", &err);
        if (ok(p != NULL, "a name no adapter has, while one has no interface yet: not an error")) {
                is_nics(t, p, "a", "", "nothing chosen now");
                ok(said_why(p, "a", "interface ens9f0: no network adapter has it now"), "the start resolves it, said");
        }
        plan_free(p);
        topology_free(t);

        /* A cloud VM: virtio adapters, their interfaces below virtioN/net/, soft-RoCE on one. */
        t = host("cloud-vm-2n-2gpu");
        p = plan_text(t, "", &err);
        is_nics(t, p, "inference-1", "0000:42:00.0 PHB", "the virtio adapter on the GPU's expander");
        ok(said_why(p, "inference-1", "0000:42:00.0 (ens1; RDMA rxe0)"), "named by its virtio interface, with its rxe");
        plan_free(p);
        topology_free(t);
}

/* Rule 5 by kinds of core and L3 caches: a GB10-like host (big and little cores, an L3 a cluster)
 * and an EPYC-like node of four L3 caches. */
static unsigned big_cores(const struct topology *t, const struct placement *r) {
        unsigned n = 0;
        CPUSET_FOREACH(c, &r->cpus)
                n += t->kind_of[c] == 0;
        return n;
}

static bool within_one_l3(const struct topology *t, const struct placement *r) {
        int l3 = t->l3_of[cpuset_next(&r->cpus, 0)];
        CPUSET_FOREACH(c, &r->cpus)
                if (t->l3_of[c] != l3)
                        return false;
        return l3 >= 0;
}

static bool has_line(const struct topology *t, const struct plan *p, const char *name, const char *line) {
        _cleanup_free_ char *d = dropin_render(t, cur, p, replica(p, name), MARKER);
        return strstr(d, line) != NULL;
}

static void examples_kinds(void) {
        struct topology *t = host("gb10-like");
        static const char four[] = "[replica a]\nunit = a.service\n[replica b]\nunit = b.service\n"
                                   "[replica c]\nunit = c.service\n[replica d]\nunit = d.service\n";
        char *err;

        ok(t->kinds.n == 2 && t->kinds.ranked_by == KINDS_BY_CAPACITY && t->n_l3 == 2,
           "gb10-like: two kinds by MIDR, ranked by capacity; two L3 caches");
        struct plan *p = plan_text(t, four, &err);
        if (ok(p && p->n_replicas == 4, "gb10-like: four CPU-only replicas share its node")) {
                for (size_t i = 0; i < 4; i++) {
                        const struct placement *r = &p->replicas[i];
                        ok(r->n_cores == 5 && within_one_l3(t, r) && big_cores(t, r) >= 2,
                           "%s: 5 cores within one L3, %u of them big (CPU order would give two replicas none)",
                           r->name, big_cores(t, r));
                }
                ok(!has(WARNING_LEAST_CAPABLE_KIND, "") && !has(WARNING_L3_STRADDLE, ""), "no kind or L3 warning");
                ok(has_line(t, p, "a", "Environment=NUMAPLAN_BEST_CPUS=5-7\n"), "NUMAPLAN_BEST_CPUS: its big cores");
        }
        plan_free(p);
        p = plan_text(t, "[numaplan]\ncpu-kinds = best\n[replica a]\nunit = a.service\n[replica b]\nunit = b.service\n",
                      &err);
        if (ok(p && p->n_replicas == 2, "cpu-kinds = best, two replicas")) {
                is_set(&replica(p, "a")->cpus, "5-9", "best: big cores only, one cluster");
                is_set(&replica(p, "b")->cpus, "15-19", "best: big cores only, the other");
        }
        plan_free(p);
        p = plan_text(t, "[replica a]\nunit = a.service\ncpu-kinds = best\ncpus = cores:12\n", &err);
        if (ok(p != NULL, "best with cores:12 plans")) {
                is_set(&replica(p, "a")->cpus, "5-9,15-19", "all ten big cores");
                ok(has(WARNING_CPU_KINDS_SHORT, "fewer than the 12"), "cpu-kinds-short: 10 of 12");
                ok(!replica(p, "a")->cpu_affinity_numa, "alone, but as lists");
        }
        plan_free(p);
        p = plan_text(t, "[replica a]\nunit = a.service\ncpu-kinds = best\n", &err);
        if (ok(p != NULL, "best alone on the node"))
                is_set(&replica(p, "a")->cpus, "5-9,15-19", "its big cores, not CPUAffinity=numa");
        plan_free(p);
        p = plan_text(t, "[replica a]\nunit = a.service\n", &err);
        ok(p && replica(p, "a")->cpu_affinity_numa, "cpu-kinds = all alone: the whole node, CPUAffinity=numa");
        plan_free(p);
        topology_free(t);

        t = host("epyc-1n-4l3-4gpu");
        ok(t->kinds.n == 0 && t->n_l3 == 4, "epyc: four L3 caches; no kinds on an AMD CPU before Zen 5");
        p = plan_text(t, "", &err);
        if (ok(p && p->n_replicas == 4, "epyc: four replicas, one a GPU"))
                for (size_t i = 0; i < 4; i++)
                        ok(within_one_l3(t, &p->replicas[i]) && p->replicas[i].n_cores == 8,
                           "%s: a whole L3 of 8 cores", p->replicas[i].name);
        plan_free(p);
        p = plan_text(t,
                      "[replica a]\nunit = a.service\naccelerators = 0000:05:00.0,0000:25:00.0\n"
                      "[replica b]\nunit = b.service\naccelerators = 0000:45:00.0,0000:65:00.0\n",
                      &err);
        if (ok(p && p->n_replicas == 2, "epyc: two replicas of two GPUs")) {
                is_set(&replica(p, "a")->cpus, "0-15,32-47", "two whole L3 caches");
                is_set(&replica(p, "b")->cpus, "16-31,48-63", "the other two");
                ok(has_line(t, p, "a", "NUMAPLAN_BEST_CPUS=0-15,32-47\n"), "no kinds: best is all its CPUs");
        }
        plan_free(p);
        topology_free(t);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                printf("Bail out! usage: test-planner FIXTURES_DIR\n");
                return 1;
        }
        fixtures = argv[1];
        log_set_max_level(LOG_ERR - 1);
        examples_dgx();
        examples_others();
        examples_memory();
        examples_side_by_side();
        examples_nics();
        examples_kinds();

        _cleanup_free_ char *hosts = xasprintf("%s/hosts", fixtures);
        DIR *d = opendir(hosts);
        struct dirent *de;
        char *names[64];
        size_t n = 0;
        while (d && (de = readdir(d)) && n < ELEMENTSOF(names))
                if (de->d_name[0] != '.' && !strstr(de->d_name, ".tar"))
                        names[n++] = xstrdup(de->d_name);
        if (d)
                closedir(d);
        qsort(names, n, sizeof(char *), strcmp_ptr);
        for (size_t i = 0; i < n; i++) {
                properties(names[i], false);
                properties(names[i], true);
                free(names[i]);
        }
        cur = config_free(cur);
        warnings_done(&warnings);
        return done_testing();
}
