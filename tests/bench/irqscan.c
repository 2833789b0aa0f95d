/* SPDX-License-Identifier: MIT */
/* What `numaplan verify` reads and judges of a host beyond systemd, for tests/bench/irqs.sh: the
 * host as verify read it before the data path (nodes, CPUs, accelerators) and its plan; with
 * --irqs, as verify reads it now (network adapters with their interfaces and RDMA devices, every
 * device's interrupts, irq-remote, each replica's adapters in its plan) and irq-locality judged
 * for every replica. The difference of the two is what the data path adds to verify; the D-Bus,
 * task and page parts are the same in both and left out.
 * Usage: irqscan [--irqs] ROOT CONFIG */

#include "basic/util.h"
#include "core/config.h"
#include "core/irqs.h"
#include "core/planner.h"
#include "core/topology.h"
#include "core/verify-checks.h"
#include "core/warnings.h"
#include "host/config-files.h"
#include "host/root.h"
#include "host/topology-read.h"

int main(int argc, char **argv) {
        _cleanup_root_ struct root *root = NULL;
        _cleanup_topology_ struct topology *t = NULL;
        _cleanup_config_ struct config *c = NULL;
        _cleanup_plan_ struct plan *p = NULL;
        struct warnings w = {0};
        struct error_at err = {0};
        bool irqs = argc == 4 && streq(argv[1], "--irqs");

        if (argc != 3 + irqs || root_open(argv[1 + irqs], 0, &root) < 0 ||
            topology_read(root, irqs ? TOPOLOGY_DEVICES | TOPOLOGY_NICS | TOPOLOGY_IRQS : 0, &w, &t) < 0 ||
            config_load(argv[2 + irqs], &c) < 0 || plan_compute(t, c, &w, &p, &err) < 0)
                return 2;
        unsigned judged = 0, passed = 0;
        if (irqs) {
                struct irq_targets tg;
                irq_warnings(t, &w);
                irq_targets_for_plan(t, p, &tg);
                for (size_t i = 0; i < p->n_replicas; i++) {
                        struct check ch = {0};
                        check_irq_locality(&(struct verify_facts){.pl = &p->replicas[i], .topology = t, .irqs = &tg},
                                           &ch);
                        judged++;
                        passed += ch.ok;
                        check_done(&ch);
                }
                irq_targets_done(&tg);
        }
        printf("%zu replicas, irq-locality: %u of %u pass\n", p->n_replicas, passed, judged);
        warnings_done(&w);
        error_at_done(&err);
        return 0;
}
