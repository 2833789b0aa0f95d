/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "basic/util.h"
#include "core/placement.h"
#include "core/topology.h"
#include "core/tuning-checks.h"

static void format_speed(char *buf, size_t n, unsigned mts) {
        snprintf(buf, n, "%u.%u GT/s", mts / 1000, mts % 1000 / 100);
}

static void check_link(const struct pci_device *a, struct warnings *w) {
        const struct pcie_link *l = &a->pcie;

        if (l->width >= 0 && l->max_width > 0 && l->width < l->max_width)
                warnings_add(w, WARNING_PCIE_LINK_NARROW, a->pci,
                             "the PCIe link of %s is x%d, below its x%d: a slot, a riser or a card not seated; reseat "
                             "the card or move it to a slot of full width",
                             a->pci, l->width, l->max_width);
        if (l->speed_mts > 0 && l->max_speed_mts > 0 && l->speed_mts < l->max_speed_mts) {
                char now[32], max[32];
                format_speed(now, sizeof(now), l->speed_mts);
                format_speed(max, sizeof(max), l->max_speed_mts);
                warnings_add(w, WARNING_PCIE_LINK_SLOW, a->pci,
                             "the PCIe link of %s runs at %s, below its %s: GPUs lower their link speed when idle, so "
                             "look again under load; a link that stays slow sits in a slower slot or riser",
                             a->pci, now, max);
        }
        if (a->kind == PCI_ACCELERATOR && a->compute && l->max_read_request > 0 && l->max_read_request < PCIE_MRRS_WANT)
                warnings_add(w, WARNING_PCIE_MRRS_SMALL, a->pci,
                             "MaxReadReq of %s is %d bytes, not %d: its DMA reads from host memory go in smaller "
                             "requests; set it with setpci -s %s CAP_EXP+8.w=5000:7000, or the firmware's setting",
                             a->pci, l->max_read_request, PCIE_MRRS_WANT, a->pci);
}

static bool is_performance(const struct governor_cpus *g) {
        return streq(g->name, "performance");
}

/* The replicas' CPUs that a governor other than performance clocks down. */
static void check_governor(const struct host_tuning *h, const struct plan *p, struct warnings *w) {
        struct cpuset used = {0};
        struct strbuf b = {0};

        for (size_t i = 0; i < p->n_replicas; i++)
                cpuset_or(&used, &p->replicas[i].cpus);
        for (size_t i = 0; i < h->n_governors; i++) {
                struct cpuset s = h->governors[i].cpus;
                cpuset_and(&s, &used);
                if (is_performance(&h->governors[i]) || cpuset_is_empty(&s))
                        continue;
                _cleanup_free_ char *cpus = cpuset_format(&s);
                strbuf_printf(&b, "%sCPUs %s run the %s governor", b.len ? ", " : "", cpus, h->governors[i].name);
        }
        if (b.len)
                warnings_add(w, WARNING_CPU_GOVERNOR, NULL,
                             "%s (cpufreq driver %s), not performance: replicas on them wait for the clock to rise "
                             "after every idle moment; set it with cpupower frequency-set -g performance",
                             b.s, h->cpufreq_driver ? h->cpufreq_driver : "unknown");
        strbuf_done(&b);
}

static void check_cstates(const struct host_tuning *h, struct warnings *w) {
        struct strbuf b = {0};

        for (size_t i = 0; i < h->n_idle_states; i++)
                if (h->idle_states[i].latency_us > CSTATE_DEEP_US)
                        strbuf_printf(&b, "%s%s (%" PRIu64 " us)", b.len ? ", " : "", h->idle_states[i].name,
                                      h->idle_states[i].latency_us);
        if (b.len)
                warnings_add(w, WARNING_CSTATES_DEEP, NULL,
                             "CPU idle states with an exit latency above %d us are enabled (those of CPU %d): %s; a "
                             "CPU sleeping in one answers the replica's next request that much later; disable them "
                             "with cpupower idle-set -D %d, or in the firmware",
                             CSTATE_DEEP_US, h->cpuidle_cpu, b.s, CSTATE_DEEP_US + 1);
        strbuf_done(&b);
}

static void check_iommu(const struct topology *t, const struct host_tuning *h, struct warnings *w) {
        size_t compute = 0;

        if (h->iommu != IOMMU_TRANSLATED)
                return;
        for (size_t i = 0; i < t->n_accels; i++)
                compute += t->accels[i].compute;
        if (compute)
                warnings_add(w, WARNING_IOMMU_TRANSLATED, NULL,
                             "the IOMMU translates the DMA of %zu compute accelerator%s (%s): each transfer pays for "
                             "the translation; iommu=pt on the kernel command line is the usual fix",
                             compute, compute == 1 ? "" : "s", strempty(h->iommu_how));
}

static void check_swap(const struct host_tuning *h, const struct plan *p, struct warnings *w) {
        struct strbuf b = {0};
        char size[FORMAT_BYTES_MAX];

        if (!h->has_swap || h->swap_bytes == 0)
                return;
        for (size_t i = 0; i < p->n_replicas; i++)
                if (p->replicas[i].policy == POLICY_BIND)
                        strbuf_printf(&b, "%s%s", b.len ? ", " : "", p->replicas[i].name);
        format_bytes(size, sizeof(size), h->swap_bytes);
        if (b.len)
                warnings_add(w, WARNING_SWAP_BOUND_REPLICA, NULL,
                             "swap is on (%s) and replicas are bound to their nodes (policy bind: %s): under memory "
                             "pressure there they swap instead of spilling to another node; turn swap off "
                             "(swapoff -a), or give them policy = preferred",
                             size, b.s);
        strbuf_done(&b);
}

bool tuning_wants_plan(const struct topology *t) {
        const struct host_tuning *h = t->tuning;

        if (!h)
                return false;
        if (h->has_swap && h->swap_bytes > 0)
                return true;
        for (size_t i = 0; i < h->n_governors; i++)
                if (!is_performance(&h->governors[i]))
                        return true;
        return false;
}

void tuning_warnings(const struct topology *t, const struct plan *p, struct warnings *w) {
        const struct host_tuning *h = t->tuning;

        for (size_t i = 0; i < t->n_accels; i++)
                check_link(&t->accels[i], w);
        for (size_t i = 0; i < t->n_nics; i++)
                check_link(&t->nics[i], w);
        if (!h)
                return;
        if (p && p->n_replicas > 0)
                check_governor(h, p, w);
        check_cstates(h, w);
        if (h->zone_reclaim_mode > 0)
                warnings_add(w, WARNING_ZONE_RECLAIM, NULL,
                             "vm.zone_reclaim_mode is %d: the kernel reclaims a node's page cache before it allocates "
                             "on another node, so replicas reading models through the cache stall; set "
                             "vm.zone_reclaim_mode=0",
                             h->zone_reclaim_mode);
        check_iommu(t, h, w);
        if (p)
                check_swap(h, p, w);
}
