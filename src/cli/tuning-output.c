/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "basic/escape.h"
#include "basic/json-util.h"
#include "basic/table.h"
#include "basic/util.h"
#include "cli/tuning-output.h"

static json_object *int_or_null(int v) {
        return v >= 0 ? json_object_new_int(v) : NULL;
}

json_object *pcie_json(const struct pcie_link *l) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "speed", json_string_or_null(l->speed));
        json_object_object_add(o, "width", int_or_null(l->width));
        json_object_object_add(o, "max_speed", json_string_or_null(l->max_speed));
        json_object_object_add(o, "max_width", int_or_null(l->max_width));
        json_object_object_add(o, "max_read_request", int_or_null(l->max_read_request));
        json_object_object_add(o, "max_payload", int_or_null(l->max_payload));
        json_object_object_add(o, "config_space", json_object_new_string(pcie_config_to_string(l->config)));
        return o;
}

static json_object *cpufreq_json(const struct host_tuning *h) {
        json_object *o = json_object_new_object(), *g = NULL;

        if (h->n_governors == 1)
                g = json_object_new_string(h->governors[0].name);
        else if (h->n_governors > 1) {
                g = json_object_new_object();
                for (size_t i = 0; i < h->n_governors; i++)
                        json_object_object_add(g, h->governors[i].name,
                                               json_object_new_int((int) cpuset_count(&h->governors[i].cpus)));
        }
        json_object_object_add(o, "driver", json_string_or_null(h->cpufreq_driver));
        json_object_object_add(o, "governor", g);
        return o;
}

json_object *host_tuning_json(const struct host_tuning *h) {
        json_object *o = json_object_new_object(), *idle = NULL, *iommu = NULL;

        if (h && h->has_cpuidle) {
                idle = json_object_new_array();
                for (size_t i = 0; i < h->n_idle_states; i++) {
                        json_object *s = json_object_new_object();
                        json_object_object_add(s, "name", json_object_new_string(h->idle_states[i].name));
                        json_object_object_add(s, "latency_us", json_uint64(h->idle_states[i].latency_us));
                        json_object_array_add(idle, s);
                }
        }
        if (h && h->iommu != IOMMU_UNKNOWN) {
                iommu = json_object_new_object();
                json_object_object_add(iommu, "mode", json_object_new_string(iommu_mode_to_string(h->iommu)));
                json_object_object_add(iommu, "how", json_string_or_null(h->iommu_how));
        }
        json_object_object_add(o, "cpufreq", h && h->has_cpufreq ? cpufreq_json(h) : NULL);
        json_object_object_add(o, "cpuidle", idle);
        json_object_object_add(o, "zone_reclaim_mode", h ? int_or_null(h->zone_reclaim_mode) : NULL);
        json_object_object_add(o, "swap_bytes", h && h->has_swap ? json_uint64(h->swap_bytes) : NULL);
        json_object_object_add(o, "kernel", json_string_or_null(h ? h->kernel : NULL));
        json_object_object_add(o, "iommu", iommu);
        return o;
}

/* "x16 16.0GT/s": what is known of one end of the link. */
static void link_text(struct strbuf *b, int width, unsigned mts, const char *raw) {
        size_t start = b->len;
        if (width >= 0)
                strbuf_printf(b, "x%d", width);
        if (mts > 0)
                strbuf_printf(b, "%s%u.%uGT/s", b->len > start ? " " : "", mts / 1000, mts % 1000 / 100);
        else if (raw)
                strbuf_printf(b, "%s%s", b->len > start ? " " : "", raw);
}

void pcie_cells(struct table *tab, const struct pcie_link *l) {
        struct strbuf b = {0};

        link_text(&b, l->width, l->speed_mts, l->speed);
        bool below = (l->width >= 0 && l->width < l->max_width) || (l->speed_mts && l->speed_mts < l->max_speed_mts);
        if (below) {
                strbuf_append(&b, " (max ");
                link_text(&b, l->max_width, l->max_speed_mts, l->max_speed);
                strbuf_append(&b, ")");
        }
        table_add(tab, b.len ? b.s : "-");
        strbuf_done(&b);
        if (l->max_read_request > 0)
                table_addf(tab, "%d/%d", l->max_read_request, l->max_payload);
        else
                table_add(tab, "-");
}

void pcie_note(unsigned *reasons, const struct pcie_link *l) {
        if (pcie_config_why(l->config))
                *reasons |= 1U << l->config;
}

void pcie_print_notes(unsigned reasons) {
        for (unsigned c = 0; c < 32; c++)
                if (reasons & (1U << c))
                        printf("  (mrrs/mps -: %s)\n", pcie_config_why((enum pcie_config) c));
}

/* A name of the capture's as the terminal gets it (the readers let only printable ones through,
 * but the terminal is not left to that): as name_escape() writes it, "unknown" for NULL. */
static char *shown(const char *name) {
        return name ? name_escape(name) : xstrdup("unknown");
}

static void print_cpufreq(const struct host_tuning *h) {
        if (!h->has_cpufreq) {
                printf("  %-18s unknown (no cpufreq in sysfs: a VM, or no driver loaded)\n", "cpufreq");
                return;
        }
        _cleanup_free_ char *driver = shown(h->cpufreq_driver);
        printf("  %-18s driver %s, ", "cpufreq", driver);
        if (h->n_governors == 1) {
                _cleanup_free_ char *g = shown(h->governors[0].name);
                printf("governor %s\n", g);
        } else {
                printf("governors");
                for (size_t i = 0; i < h->n_governors; i++) {
                        _cleanup_free_ char *cpus = cpuset_format(&h->governors[i].cpus),
                                            *g = shown(h->governors[i].name);
                        printf("%s %s (CPUs %s)", i ? "," : "", g, cpus);
                }
                printf("%s\n", h->n_governors ? "" : " unknown");
        }
}

void host_tuning_print(const struct host_tuning *h) {
        char swap[FORMAT_BYTES_MAX];

        printf("\nhost tuning:\n");
        if (!h)
                return;
        _cleanup_free_ char *kernel = shown(h->kernel);
        printf("  %-18s %s\n", "kernel", kernel);
        print_cpufreq(h);
        printf("  %-18s ", "cpuidle");
        if (!h->has_cpuidle)
                printf("unknown (no cpuidle in sysfs)\n");
        else {
                for (size_t i = 0; i < h->n_idle_states; i++) {
                        _cleanup_free_ char *name = shown(h->idle_states[i].name);
                        printf("%s%s (%" PRIu64 " us)", i ? ", " : "", name, h->idle_states[i].latency_us);
                }
                printf("%s: the enabled states of CPU %d, with their exit latency\n", h->n_idle_states ? "" : "none",
                       h->cpuidle_cpu);
        }
        if (h->zone_reclaim_mode >= 0)
                printf("  %-18s %d\n", "zone_reclaim_mode", h->zone_reclaim_mode);
        else
                printf("  %-18s unknown\n", "zone_reclaim_mode");
        format_bytes(swap, sizeof(swap), h->swap_bytes);
        printf("  %-18s %s\n", "swap", !h->has_swap ? "unknown" : h->swap_bytes ? swap : "off");
        if (h->iommu == IOMMU_UNKNOWN)
                printf("  %-18s unknown (%s)\n", "IOMMU", h->iommu_how ? h->iommu_how : "no /sys/kernel/iommu_groups");
        else {
                /* Words of numaplan's around the capture's names (an IOMMU group, a
                 * /sys/class/iommu entry, a word of /proc/cmdline). */
                _cleanup_free_ char *how = text_escape(strempty(h->iommu_how));
                printf("  %-18s %s (%s)\n", "IOMMU", iommu_mode_to_string(h->iommu), how);
        }
}
