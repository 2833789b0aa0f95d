/* SPDX-License-Identifier: MIT */
/* Prometheus' text exposition format (version 0.0.4): every family's samples together, after one
 * HELP and one TYPE line; label values in UTF-8, escaped (backslash, double quote, newline).
 * Pages are counted in base pages, a huge page as the base pages it spans, as verify counts them. */

#include <inttypes.h>
#include <stddef.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/numa-maps.h"
#include "core/rank-locality.h"
#include "core/topology.h"
#include "core/verify-checks.h"
#include "core/verify-metrics.h"
#include "core/warnings.h"

#define P "numaplan_verify_"
#define H "numaplan_host_"

const char *const metrics_names[] = {
        "numaplan_build_info",
        P "success",
        P "last_run_timestamp_seconds",
        P "duration_seconds",
        P "ok",
        P "unit_ok",
        P "unit_info",
        P "check_ok",
        P "resident_pages",
        P "page_size_bytes",
        P "local_ratio",
        P "min_local_ratio",
        P "locked_pages",
        P "locked_resident_pages",
        P "pinned_pages",
        P "pinned_mapped_pages",
        P "pinned_off_plan_pages",
        P "rank_local_ratio",
        H "pcie_link_speed_gts",
        H "pcie_link_max_speed_gts",
        H "pcie_link_width",
        H "pcie_link_max_width",
        H "cpufreq_governor_info",
        "numaplan_warnings",
        NULL,
};

static void family(struct strbuf *b, const char *name, const char *help) {
        strbuf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* `value` as a label value, which the format wants in UTF-8: \ " and newline escaped, and each
 * byte that is no UTF-8 as U+FFFD. */
static void label(struct strbuf *b, const char *key, const char *value, bool first) {
        _cleanup_free_ char *v = utf8_sanitize(value);

        strbuf_printf(b, "%s%s=\"", first ? "" : ",", key);
        for (const char *p = v; *p; p++) {
                if (*p == '\\')
                        strbuf_append(b, "\\\\");
                else if (*p == '"')
                        strbuf_append(b, "\\\"");
                else if (*p == '\n')
                        strbuf_append(b, "\\n");
                else
                        strbuf_printf(b, "%c", *p);
        }
        strbuf_append(b, "\"");
}

static void unit_sample(struct strbuf *b, const char *name, const struct metrics_unit *u) {
        strbuf_printf(b, "%s{", name);
        label(b, "unit", u->unit, true);
        strbuf_append(b, "} ");
}

/* The nodes a unit's pages are reported on: those holding any, and the planned ones (at 0). */
static bool node_reported(const struct metrics_unit *u, int node) {
        return cpuset_isset(u->nodes, node) || u->pages->total[node] > 0;
}

static void pci_sample(struct strbuf *b, const char *name, const struct pci_device *a) {
        strbuf_printf(b, "%s{", name);
        label(b, "pci", a->pci, true);
        strbuf_append(b, "} ");
}

/* Each accelerator's link (what the kernel retrains: speed drops when idle, lanes when a riser
 * fails), the governor, and one gauge per warning code in effect. */
static void host_metrics(struct strbuf *b, const struct metrics_run *run) {
        const struct topology *t = run->host;
        const struct host_tuning *h = t->tuning;
        static const char *const names[] = {H "pcie_link_speed_gts", H "pcie_link_max_speed_gts", H "pcie_link_width",
                                            H "pcie_link_max_width"};
        static const char *const helps[] = {"The accelerator's PCIe link speed now, in GT/s (GPUs lower it when idle).",
                                            "The most the accelerator's PCIe link can run at, in GT/s.",
                                            "The accelerator's PCIe link width now, in lanes.",
                                            "The widest the accelerator's PCIe link can be, in lanes."};

        for (size_t f = 0; f < ELEMENTSOF(names); f++) {
                family(b, names[f], helps[f]);
                for (size_t i = 0; i < t->n_accels; i++) {
                        const struct pcie_link *l = &t->accels[i].pcie;
                        unsigned mts = f == 0 ? l->speed_mts : l->max_speed_mts;
                        int width = f == 2 ? l->width : l->max_width;
                        if (f < 2 && mts > 0) {
                                pci_sample(b, names[f], &t->accels[i]);
                                strbuf_printf(b, "%u.%u\n", mts / 1000, mts % 1000 / 100);
                        } else if (f >= 2 && width >= 0) {
                                pci_sample(b, names[f], &t->accels[i]);
                                strbuf_printf(b, "%d\n", width);
                        }
                }
        }

        family(b, H "cpufreq_governor_info",
               "The CPUs' frequency governor and cpufreq driver, one sample per governor in use, as labels; always 1.");
        for (size_t i = 0; h && i < h->n_governors; i++) {
                _cleanup_free_ char *cpus = cpuset_format(&h->governors[i].cpus);
                strbuf_append(b, H "cpufreq_governor_info{");
                label(b, "governor", h->governors[i].name, true);
                label(b, "driver", strempty(h->cpufreq_driver), false);
                label(b, "cpus", cpus, false);
                strbuf_append(b, "} 1\n");
        }

        family(b, "numaplan_warnings",
               "How many warnings of the code numaplan's run found (numaplan(8), WARNINGS); a code not in effect has "
               "no sample.");
        for (unsigned c = 0; run->warnings && c < _WARNING_MAX; c++) {
                size_t n = 0;
                for (size_t i = 0; i < run->warnings->n; i++)
                        n += run->warnings->v[i].code == c;
                if (n == 0)
                        continue;
                strbuf_append(b, "numaplan_warnings{");
                label(b, "code", warning_kinds[c].code, true);
                label(b, "severity", severity_to_string(warning_kinds[c].severity), false);
                strbuf_printf(b, "} %zu\n", n);
        }
}

/* What the run itself was: numaplan's version, whether it reached a verdict, when and how long. */
static void run_metrics(struct strbuf *b, const struct metrics_run *run) {
        /* The version in a label, as node_exporter's own build_info: a query can join on it. */
        family(b, "numaplan_build_info", "The numaplan that wrote this file, in the label version; always 1.");
        strbuf_append(b, "numaplan_build_info{");
        label(b, "version", NUMAPLAN_VERSION, true);
        strbuf_append(b, "} 1\n");
        family(b, P "success",
               "Whether the last numaplan verify reached a verdict on every replica unit (1), or could not "
               "(0: a bad configuration, no systemd to ask).");
        strbuf_printf(b, P "success %d\n", run->success ? 1 : 0);
        family(b, P "last_run_timestamp_seconds", "When the last numaplan verify started, in seconds since the epoch.");
        strbuf_printf(b, P "last_run_timestamp_seconds %.3f\n", run->timestamp_s);
        family(b, P "duration_seconds", "How long the last numaplan verify took.");
        strbuf_printf(b, P "duration_seconds %.6f\n", run->duration_s);
}

/* Each unit's verdict, overall and check by check, and what it was planned. */
static void verdict_metrics(struct strbuf *b, const struct metrics_unit *units, size_t n) {
        bool all = true;
        for (size_t i = 0; i < n; i++)
                all = all && units[i].ok;
        family(b, P "ok", "Whether every replica unit passed every check.");
        strbuf_printf(b, P "ok %d\n", all ? 1 : 0);
        family(b, P "unit_ok", "Whether the replica unit passed every check.");
        for (size_t i = 0; i < n; i++) {
                unit_sample(b, P "unit_ok", &units[i]);
                strbuf_printf(b, "%d\n", units[i].ok ? 1 : 0);
        }
        family(b, P "unit_info", "The replica unit's planned NUMA nodes and CPUs, as labels; always 1.");
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *nodes = cpuset_format(units[i].nodes), *cpus = cpuset_format(units[i].cpus);
                strbuf_append(b, P "unit_info{");
                label(b, "unit", units[i].unit, true);
                label(b, "nodes", nodes, false);
                label(b, "cpus", cpus, false);
                strbuf_append(b, "} 1\n");
        }
        family(b, P "check_ok", "Whether the replica unit passed the check (numaplan(8) describes each under verify).");
        for (size_t i = 0; i < n; i++)
                for (unsigned c = 0; c < N_CHECKS; c++) {
                        strbuf_append(b, P "check_ok{");
                        label(b, "unit", units[i].unit, true);
                        label(b, "check", check_name(c), false);
                        strbuf_printf(b, "} %d\n", units[i].checks[c].ok ? 1 : 0);
                }
}

/* Each unit's resident pages by node and kind, and its share on its nodes against min-local. */
static void page_metrics(struct strbuf *b, const struct metrics_unit *units, size_t n) {
        static const char *const kinds[] = {"anon", "file", "huge", "shared"};
        family(b, P "resident_pages",
               "Resident pages of the replica unit's processes by NUMA node and kind (anon, file, huge: its own; "
               "shared: program code other units map too, not judged), in base pages of "
               "numaplan_verify_page_size_bytes; a huge page counts as the base pages it spans.");
        for (size_t i = 0; i < n; i++)
                for (int node = 0; node < NUMA_NODES_MAX; node++) {
                        if (!node_reported(&units[i], node))
                                continue;
                        const struct page_tally *t = units[i].pages;
                        const uint64_t counts[] = {t->anon[node], t->file[node] - t->shared[node], t->huge[node],
                                                   t->shared[node]};
                        char id[16];
                        snprintf(id, sizeof(id), "%d", node);
                        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                                strbuf_append(b, P "resident_pages{");
                                label(b, "unit", units[i].unit, true);
                                label(b, "node", id, false);
                                label(b, "kind", kinds[k], false);
                                strbuf_printf(b, "} %" PRIu64 "\n", counts[k]);
                        }
                }
        if (n > 0) {
                family(b, P "page_size_bytes", "The base page size numaplan_verify_resident_pages counts in.");
                strbuf_printf(b, P "page_size_bytes %" PRIu64 "\n", units[0].pages->base_kb * 1024);
        }
        family(b, P "local_ratio",
               "Share of the replica unit's own resident pages (all but shared program code) on its planned nodes, 0 "
               "to 1; absent while it has none.");
        for (size_t i = 0; i < n; i++) {
                uint64_t total = page_tally_own_sum(units[i].pages);
                if (total == 0)
                        continue;
                uint64_t on = page_tally_own_on(units[i].pages, units[i].nodes);
                unit_sample(b, P "local_ratio", &units[i]);
                strbuf_printf(b, "%.6f\n", (double) on / (double) total);
        }
        family(b, P "min_local_ratio",
               "The share of its pages the replica unit must have on its planned nodes (min-local).");
        for (size_t i = 0; i < n; i++) {
                unit_sample(b, P "min_local_ratio", &units[i]);
                strbuf_printf(b, "%.4f\n", units[i].min_local_bp / 10000.0);
        }
}

/* Per unit and node: `by_node`'s pages where there are any, and 0 on the planned nodes too when
 * `planned_too`. */
static void node_samples(struct strbuf *b, const char *name, const struct metrics_unit *u, const uint64_t *by_node,
                         bool planned_too) {
        for (int node = 0; node < NUMA_NODES_MAX; node++) {
                if (!by_node[node] && !(planned_too && cpuset_isset(u->nodes, node)))
                        continue;
                char id[16];
                snprintf(id, sizeof(id), "%d", node);
                strbuf_printf(b, "%s{", name);
                label(b, "unit", u->unit, true);
                label(b, "node", id, false);
                strbuf_printf(b, "} %" PRIu64 "\n", by_node[node]);
        }
}

/* A gauge of one count per unit: the field at `offset` of each unit's struct held_totals. */
static void held_gauge(struct strbuf *b, const char *name, const char *help, const struct metrics_unit *units, size_t n,
                       size_t offset) {
        family(b, name, help);
        for (size_t i = 0; i < n; i++) {
                unit_sample(b, name, &units[i]);
                strbuf_printf(b, "%" PRIu64 "\n", *(const uint64_t *) ((const char *) &units[i].pages->held + offset));
        }
}

/* Each unit's locked and pinned memory (core/held-pages.h says what each counts), in base pages. */
static void held_metrics(struct strbuf *b, const struct metrics_unit *units, size_t n) {
        held_gauge(b, P "locked_pages",
                   "The replica unit's locked memory (mlock): its processes' VmLck, the size of their locked mappings "
                   "and what a driver such as vfio counts there, in base pages.",
                   units, n, offsetof(struct held_totals, vm_locked));
        family(b, P "locked_resident_pages",
               "The resident pages of the replica unit's locked mappings by NUMA node, on every node that holds any "
               "and "
               "every planned node; the kernel may still move them.");
        for (size_t i = 0; i < n; i++)
                node_samples(b, P "locked_resident_pages", &units[i], units[i].pages->locked, true);
        held_gauge(
                b, P "pinned_pages",
                "The replica unit's pinned memory (held for DMA): its processes' VmPin (RDMA memory regions, io_uring "
                "buffers), in base pages; no file says on which node, save io_uring's buffers.",
                units, n, offsetof(struct held_totals, vm_pinned));
        family(b, P "pinned_mapped_pages",
               "The resident pages of the mappings that hold the replica unit's io_uring buffers (pinned), by NUMA "
               "node; only where there are any.");
        for (size_t i = 0; i < n; i++)
                node_samples(b, P "pinned_mapped_pages", &units[i], units[i].pages->pin_mapped, false);
        held_gauge(b, P "pinned_off_plan_pages",
                   "The replica unit's pinned pages known to sit off its planned nodes: the kernel does not move them, "
                   "only a restart does.",
                   units, n, offsetof(struct held_totals, pinned_off_plan));
}

/* Per unit and accelerator driven by a process of its: the share of those processes' anonymous
 * pages on the accelerator's node (what rank-locality judges). */
static void rank_metrics(struct strbuf *b, const struct metrics_unit *units, size_t n) {
        uint64_t *anon = xmalloc0(NUMA_NODES_MAX * sizeof(*anon));
        family(b, P "rank_local_ratio",
               "Share of the anonymous pages (huge ones among them) of the replica unit's processes that drive an "
               "accelerator (map its device) on that accelerator's node, 0 to 1; absent for an accelerator no "
               "process drives, or whose processes hold none.");
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; units[i].ranks && k < units[i].ranks->n; k++) {
                        const struct rank_process *p = &units[i].ranks->v[k];
                        uint64_t on = 0, total = 0;
                        bool first = true;
                        for (size_t j = 0; j < units[i].ranks->n; j++) {
                                const struct rank_process *q = &units[i].ranks->v[j];
                                if (!streq(q->pci, p->pci))
                                        continue;
                                first = first && j >= k;
                                rank_anonymous(q, anon);
                                total += page_tally_sum(anon);
                                on += q->node >= 0 && q->node < NUMA_NODES_MAX ? anon[q->node] : 0;
                        }
                        if (!first || total == 0) /* one sample an accelerator, at its first process */
                                continue;
                        char id[16];
                        snprintf(id, sizeof(id), "%d", p->node);
                        strbuf_append(b, P "rank_local_ratio{");
                        label(b, "unit", units[i].unit, true);
                        label(b, "accelerator", p->pci, false);
                        label(b, "node", id, false);
                        strbuf_printf(b, "} %.6f\n", (double) on / (double) total);
                }
        free(anon);
}

char *metrics_format(const struct metrics_run *run, const struct metrics_unit *units, size_t n) {
        struct strbuf b = {0};

        run_metrics(&b, run);
        if (run->host)
                host_metrics(&b, run);
        if (run->success) {
                verdict_metrics(&b, units, n);
                page_metrics(&b, units, n);
                held_metrics(&b, units, n);
                rank_metrics(&b, units, n);
        }
        return strbuf_steal(&b);
}
