/* SPDX-License-Identifier: MIT */
#pragma once

/* A verify verdict to format: "inference@0.service" pinned on node 1 (anon, file and huge pages;
 * program code it shares with other units on node 0; its model locked; a process driving one
 * accelerator, 99% on its node);
 * "llama\x2dserver@1.service" (a backslash in its name, as systemd escapes '-') on node 0 with a
 * failing memory-locality, most of its pages on node 1 and pinned pages on node 1 too;
 * "idle.service" not running, no pages.
 * The host: two accelerators, 0000:18:00.0 at x8 of x16 and 16 of 32 GT/s, 0000:2a:00.0 with
 * its link unknown; CPUs 0-7 on performance, 8-15 on powersave (acpi-cpufreq); warnings
 * pcie-link-narrow and pcie-link-slow once, cpu-governor once. */

#include "basic/util.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"
#include "core/rank-locality.h"
#include "core/verify-checks.h"
#include "core/verify-metrics.h"

struct metrics_sample {
        struct check checks[3][N_CHECKS];
        struct page_tally pages[3];
        struct cpuset nodes[3], cpus[3];
        struct metrics_unit units[3];
        struct page_tally rank_pages;
        struct rank_process rank;
        struct rank_facts ranks;
        struct pci_device accels[2];
        struct host_tuning tuning;
        struct topology host;
        struct warnings warnings;
};

static inline void metrics_sample_host(struct metrics_sample *s) {
        for (unsigned i = 0; i < 2; i++) {
                s->accels[i] = (struct pci_device){.kind = PCI_ACCELERATOR, .compute = true};
                pcie_link_init(&s->accels[i].pcie);
                snprintf(s->accels[i].pci, sizeof(s->accels[i].pci), i ? "0000:2a:00.0" : "0000:18:00.0");
        }
        s->accels[0].pcie.width = 8, s->accels[0].pcie.max_width = 16;
        s->accels[0].pcie.speed_mts = 16000, s->accels[0].pcie.max_speed_mts = 32000;
        s->tuning = (struct host_tuning){.has_cpufreq = true, .cpufreq_driver = (char *) "acpi-cpufreq"};
        for (unsigned c = 0; c < 16; c++)
                host_tuning_add_governor(&s->tuning, c < 8 ? "performance" : "powersave", c);
        s->host = (struct topology){.accels = s->accels, .n_accels = 2, .tuning = &s->tuning};
        warnings_add(&s->warnings, WARNING_PCIE_LINK_NARROW, "0000:18:00.0", "narrow");
        warnings_add(&s->warnings, WARNING_PCIE_LINK_SLOW, "0000:18:00.0", "slow");
        warnings_add(&s->warnings, WARNING_CPU_GOVERNOR, NULL, "powersave");
}

static inline void metrics_sample_init(struct metrics_sample *s) {
        static const char *const names[] = {"inference@0.service", "llama\\x2dserver@1.service", "idle.service"};
        *s = (struct metrics_sample){0};
        for (unsigned u = 0; u < 3; u++) {
                for (unsigned c = 0; c < N_CHECKS; c++)
                        s->checks[u][c].ok = u == 0 || (u == 1 && c != CHECK_MEMORY_LOCALITY);
                s->pages[u].base_kb = 4;
                cpuset_parse_list(u == 1 ? "0" : "1", &s->nodes[u]);
                cpuset_parse_list(u == 1 ? "0-7" : "8-15", &s->cpus[u]);
                s->units[u] = (struct metrics_unit){
                        .unit = names[u],
                        .ok = u == 0,
                        .checks = s->checks[u],
                        .pages = &s->pages[u],
                        .nodes = &s->nodes[u],
                        .cpus = &s->cpus[u],
                        .min_local_bp = u == 1 ? 9900 : 9500,
                };
        }
        /* inference@0: 1000 anon, 500 file, 512 huge on node 1; 10 anon and 200 pages of shared
         * program code on node 0. */
        s->pages[0].anon[1] = 1000, s->pages[0].file[1] = 500, s->pages[0].huge[1] = 512;
        s->pages[0].anon[0] = 10, s->pages[0].file[0] = 200, s->pages[0].shared[0] = 200;
        s->pages[0].total[1] = 2012, s->pages[0].total[0] = 210;
        /* Its model locked (mlock): VmLck 600 pages, 500 of them resident in its locked mapping. */
        s->pages[0].held.vm_locked = 600, s->pages[0].held.locked_size = 600, s->pages[0].locked[1] = 500;
        /* llama: 100 anon on node 0, 300 file on node 1; VmPin 64 pages, an io_uring buffer of 64 on
         * node 1, off the plan, whose mapping holds 80 there. */
        s->pages[1].anon[0] = 100, s->pages[1].file[1] = 300;
        s->pages[1].total[0] = 100, s->pages[1].total[1] = 300;
        s->pages[1].held.vm_pinned = 64, s->pages[1].held.pinned_listed = 64, s->pages[1].held.pinned_off_plan = 64;
        s->pages[1].pin_mapped[1] = 80;
        /* inference@0's process that maps 0000:2a:00.0 (rank 0, node 1): 990 of its 1000 anon pages there. */
        s->rank_pages.base_kb = 4, s->rank_pages.anon[1] = 990, s->rank_pages.anon[0] = 10;
        s->rank = (struct rank_process){
                .pid = 42, .comm = "worker", .pci = "0000:2a:00.0", .node = 1, .pages = &s->rank_pages};
        s->ranks = (struct rank_facts){.v = &s->rank, .n = 1, .looked = true};
        s->units[0].ranks = &s->ranks;
        metrics_sample_host(s);
}

static inline void metrics_sample_done(struct metrics_sample *s) {
        for (size_t i = 0; i < s->tuning.n_governors; i++)
                free(s->tuning.governors[i].name);
        free(s->tuning.governors);
        warnings_done(&s->warnings);
}
