/* SPDX-License-Identifier: MIT */
/* The audit's checks on hand-made facts: each warning where its fault is, at its threshold and
 * not below it, naming its subject; nothing for unknown facts, nor for the plan's warnings
 * without a plan. */

#include "basic/util.h"
#include "core/planner.h"
#include "core/topology.h"
#include "core/tuning-checks.h"
#include "core/tuning.h"
#include "tap.h"

static struct cpuset set(const char *list) {
        struct cpuset s;
        cpuset_parse_list(list, &s);
        return s;
}

static struct pci_device device(enum pci_kind kind, const char *pci, bool compute, int width, int max_width,
                                unsigned mts, unsigned max_mts, int mrrs) {
        struct pci_device a = {.kind = kind, .compute = compute};
        snprintf(a.pci, sizeof(a.pci), "%s", pci);
        pcie_link_init(&a.pcie);
        a.pcie.width = width, a.pcie.max_width = max_width;
        a.pcie.speed_mts = mts, a.pcie.max_speed_mts = max_mts;
        a.pcie.max_read_request = mrrs;
        a.pcie.max_payload = mrrs > 0 ? 256 : -1;
        return a;
}

static size_t count(const struct warnings *w, enum warning_code code) {
        size_t n = 0;
        for (size_t i = 0; i < w->n; i++)
                n += w->v[i].code == code;
        return n;
}

static const char *message(const struct warnings *w, enum warning_code code) {
        for (size_t i = 0; i < w->n; i++)
                if (w->v[i].code == code)
                        return w->v[i].message;
        return "";
}

static void links(void) {
        struct pci_device accels[] = {
                device(PCI_ACCELERATOR, "0000:18:00.0", true, 8, 16, 32000, 32000, 4096),
                device(PCI_ACCELERATOR, "0000:2a:00.0", true, 16, 16, 2500, 32000, 4096),
                device(PCI_ACCELERATOR, "0000:3a:00.0", true, 16, 16, 32000, 32000, 512),
                device(PCI_ACCELERATOR, "0000:03:00.0", false, 1, 1, 2500, 2500, 128), /* a BMC's VGA */
                device(PCI_ACCELERATOR, "0000:5d:00.0", true, -1, 16, 0, 32000, -1),   /* unknown */
        };
        struct pci_device nics[] = {device(PCI_NIC, "0000:17:00.0", false, 8, 16, 16000, 16000, 512)};
        struct topology t = {.accels = accels, .n_accels = ELEMENTSOF(accels), .nics = nics, .n_nics = 1};
        struct warnings w = {0};

        tuning_warnings(&t, NULL, &w);
        is_int(count(&w, WARNING_PCIE_LINK_NARROW), 2, "pcie-link-narrow: the GPU at x8 of x16 and the NIC");
        ok(warnings_has(&w, WARNING_PCIE_LINK_NARROW, "0000:18:00.0") &&
                   warnings_has(&w, WARNING_PCIE_LINK_NARROW, "0000:17:00.0"),
           "each naming its device");
        ok(strstr(message(&w, WARNING_PCIE_LINK_NARROW), "x8, below its x16") != NULL, "in lanes");
        is_int(count(&w, WARNING_PCIE_LINK_SLOW), 1, "pcie-link-slow: the GPU at 2.5 of 32 GT/s");
        ok(warnings_has(&w, WARNING_PCIE_LINK_SLOW, "0000:2a:00.0") &&
                   strstr(message(&w, WARNING_PCIE_LINK_SLOW), "2.5 GT/s, below its 32.0 GT/s") &&
                   strstr(message(&w, WARNING_PCIE_LINK_SLOW), "lower their link speed when idle"),
           "saying that idle GPUs do that");
        is_int(warning_kinds[WARNING_PCIE_LINK_SLOW].severity, SEVERITY_NOTICE, "a notice only");
        is_int(count(&w, WARNING_PCIE_MRRS_SMALL), 1,
               "pcie-mrrs-small: the compute GPU at 512, not the BMC nor the NIC");
        ok(warnings_has(&w, WARNING_PCIE_MRRS_SMALL, "0000:3a:00.0") &&
                   strstr(message(&w, WARNING_PCIE_MRRS_SMALL), "setpci -s 0000:3a:00.0 CAP_EXP+8.w=5000:7000"),
           "with the setpci that fixes it");
        warnings_done(&w);

        struct pci_device fine[] = {device(PCI_ACCELERATOR, "0000:18:00.0", true, 16, 16, 32000, 32000, 4096)};
        struct topology good = {.accels = fine, .n_accels = 1};
        tuning_warnings(&good, NULL, &w);
        is_int(w.n, 0, "a full link at its speed with MaxReadReq 4096: nothing");
        warnings_done(&w);
}

/* Two replicas: one bound on node 0 (CPUs 0-7), one interleaved on node 1 (CPUs 8-15). */
static void plan_init(struct plan *p, struct placement *r) {
        r[0] = (struct placement){.name = (char *) "inference-0", .policy = POLICY_BIND, .cpus = set("0-7")};
        r[1] = (struct placement){.name = (char *) "inference-1", .policy = POLICY_INTERLEAVE, .cpus = set("8-15")};
        *p = (struct plan){.replicas = r, .n_replicas = 2};
}

static void host(void) {
        struct host_tuning h = {.has_cpufreq = true,
                                .cpufreq_driver = (char *) "acpi-cpufreq",
                                .has_cpuidle = true,
                                .zone_reclaim_mode = 1,
                                .has_swap = true,
                                .swap_bytes = UINT64_C(8) << 30,
                                .iommu = IOMMU_TRANSLATED,
                                .iommu_how = (char *) "the default domain type DMA-FQ"};
        struct idle_state states[] = {
                {(char *) "POLL", 0}, {(char *) "C1", 2}, {(char *) "C6", 100}, {(char *) "C7", 101}};
        struct pci_device gpu = device(PCI_ACCELERATOR, "0000:18:00.0", true, -1, -1, 0, 0, -1);
        struct topology t = {.accels = &gpu, .n_accels = 1, .tuning = &h};
        struct placement r[2];
        struct plan p;
        struct warnings w = {0};

        plan_init(&p, r);
        h.idle_states = states, h.n_idle_states = ELEMENTSOF(states);
        host_tuning_add_governor(&h, "performance", 0);
        for (unsigned c = 1; c < 12; c++)
                host_tuning_add_governor(&h, "schedutil", c);
        host_tuning_add_governor(&h, "powersave", 20); /* no replica's */
        ok(tuning_wants_plan(&t), "a governor other than performance wants the plan");

        tuning_warnings(&t, &p, &w);
        is_int(count(&w, WARNING_CPU_GOVERNOR), 1, "cpu-governor, once for the host");
        ok(strstr(message(&w, WARNING_CPU_GOVERNOR),
                  "CPUs 1-11 run the schedutil governor (cpufreq driver acpi-cpufreq)") &&
                   !strstr(message(&w, WARNING_CPU_GOVERNOR), "powersave"),
           "naming the replicas' CPUs, the governor and the driver, not a CPU no replica runs on");
        ok(strstr(message(&w, WARNING_CSTATES_DEEP), "C7 (101 us)") && !strstr(message(&w, WARNING_CSTATES_DEEP), "C6"),
           "cstates-deep: above 100 us, not at it");
        ok(strstr(message(&w, WARNING_ZONE_RECLAIM), "vm.zone_reclaim_mode is 1") != NULL, "zone-reclaim");
        ok(strstr(message(&w, WARNING_IOMMU_TRANSLATED), "1 compute accelerator (the default domain type DMA-FQ)") &&
                   warning_kinds[WARNING_IOMMU_TRANSLATED].severity == SEVERITY_NOTICE,
           "iommu-translated: a notice saying how that was decided");
        ok(strstr(message(&w, WARNING_SWAP_BOUND_REPLICA), "swap is on (8.0 GiB)") &&
                   strstr(message(&w, WARNING_SWAP_BOUND_REPLICA), "policy bind: inference-0)"),
           "swap-bound-replica names the bound replica, not the interleaved one");
        for (size_t i = 0; i < w.n; i++)
                ok(w.v[i].subject == NULL, "%s is about the host", warning_code(&w.v[i]));
        warnings_done(&w);

        tuning_warnings(&t, NULL, &w);
        ok(count(&w, WARNING_CPU_GOVERNOR) == 0 && count(&w, WARNING_SWAP_BOUND_REPLICA) == 0 &&
                   count(&w, WARNING_ZONE_RECLAIM) == 1,
           "without a plan: no cpu-governor nor swap-bound-replica, the rest");
        warnings_done(&w);

        /* Fixed: performance everywhere, no deep state, no reclaim, no swap, passthrough. */
        struct host_tuning good = {.has_cpufreq = true,
                                   .has_cpuidle = true,
                                   .idle_states = states,
                                   .n_idle_states = 3,
                                   .zone_reclaim_mode = 0,
                                   .has_swap = true,
                                   .iommu = IOMMU_PASSTHROUGH};
        host_tuning_add_governor(&good, "performance", 0);
        t.tuning = &good;
        ok(!tuning_wants_plan(&t), "performance and no swap: no plan wanted");
        tuning_warnings(&t, &p, &w);
        is_int(w.n, 0, "a tuned host: nothing");
        warnings_done(&w);
        free(good.governors[0].name);
        free(good.governors);

        /* Unknown: nothing at all. */
        struct host_tuning unknown = {.zone_reclaim_mode = -1};
        t.tuning = &unknown;
        tuning_warnings(&t, &p, &w);
        is_int(w.n, 0, "unknown facts: nothing");
        t.tuning = NULL;
        tuning_warnings(&t, &p, &w);
        is_int(w.n, 0, "no tuning read: nothing");

        /* Swap beside replicas that are not bound; translation with no compute accelerator. */
        r[0].policy = POLICY_PREFERRED;
        gpu.compute = false;
        t.tuning = &h;
        tuning_warnings(&t, &p, &w);
        ok(count(&w, WARNING_SWAP_BOUND_REPLICA) == 0 && count(&w, WARNING_IOMMU_TRANSLATED) == 0,
           "no bound replica, no compute accelerator: neither warning");
        warnings_done(&w);
        for (size_t i = 0; i < h.n_governors; i++)
                free(h.governors[i].name);
        free(h.governors);
}

int main(void) {
        links();
        host();
        return done_testing();
}
