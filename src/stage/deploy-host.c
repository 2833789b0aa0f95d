/* SPDX-License-Identifier: MIT */
/* What a deployment does to this host itself: huge page pools, interrupts, model copies. Only for
 * systemd's unit directories of the live host: a test's tree or a replayed host is not this
 * host's plan. */

#include <inttypes.h>

#include "basic/log.h"
#include "basic/util.h"
#include "core/placement.h"
#include "live/copy-place.h"
#include "stage/deploy-host.h"

int deploy_irqs(const struct inputs *in, bool live, bool want, bool dry, struct deploy_outcome *ret) {
        if (!live || !in->system_dirs) {
                /* A test's tree or a replayed host: this host's interrupts are not the plan's. */
                if (want && irq_targets_any(&ret->targets))
                        log_notice("interrupts are steered only by an apply to systemd's unit directories of this "
                                   "host: none steered");
                return EXIT_OK;
        }
        irq_changes_done(&ret->irqs);
        if (irqs_steer(PROC_IRQ_DIR, in->state.irqs, want ? &ret->targets : NULL, dry, &ret->irqs) < 0)
                return EXIT_ENV;
        return !dry && irq_changes_failed(&ret->irqs) ? EXIT_ENV : EXIT_OK;
}

/* Each pool the plan cannot have, said. Whether one has no pool of its size at all. */
static bool say_shortfalls(const struct pool_changes *c, bool dry) {
        bool missing = false;

        for (size_t i = 0; i < c->n; i++) {
                const struct pool_change *p = &c->v[i];
                char size[FORMAT_BYTES_MAX];
                format_bytes(size, sizeof(size), p->page_kb * 1024);
                if (p->no_pool && p->wanted) {
                        _cleanup_free_ char *sizes = hugepages_sizes(SYS_NODE_DIR, p->node);
                        log_error("node %d has no pool of %s huge pages: the plan's %" PRIu64
                                  " cannot be reserved there "
                                  "(its pools: %s)",
                                  p->node, size, p->wanted, sizes);
                        missing = true;
                } else if (!dry && p->ours < p->wanted)
                        log_error(
                                "node %d: the plan needs %" PRIu64
                                " huge pages of %s there and the kernel granted %" PRIu64
                                " (its memory is in use or fragmented): free memory on node %d and run numaplan apply "
                                "again; at boot numaplan.service reserves them before the replicas start, when memory "
                                "is least fragmented",
                                p->node, p->wanted, size, p->ours, p->node);
        }
        return missing;
}

int deploy_pools(const struct inputs *in, bool live, const struct plan *plan, bool dry, struct deploy_outcome *ret) {
        struct pools want = {0};

        if (plan)
                pools_for_plan(plan, &want);
        if (!live || !in->system_dirs) {
                /* A test's tree or a replayed host: this host's memory is not the plan's. */
                if (want.n)
                        log_notice("huge pages are reserved only by an apply to systemd's unit directories of this "
                                   "host: none reserved");
                pools_done(&want);
                return EXIT_OK;
        }
        /* Nothing wanted where numaplan never ran (no runtime directory): no record to start. */
        int r = want.n == 0 && access(in->state.runtime_dir, F_OK) < 0
                        ? 0
                        : hugepages_reserve(SYS_NODE_DIR, in->state.hugepages, &want, dry, &ret->pools);
        pools_done(&want);
        if (r < 0)
                return EXIT_ENV;
        bool missing = say_shortfalls(&ret->pools, dry);
        return (pool_changes_short(&ret->pools) && !dry) || missing ? EXIT_ENV : EXIT_OK;
}

void deploy_copies(const struct inputs *in, bool live, const struct plan *plan) {
        /* The copies prepare made on this host, in the runtime directory of these drop-ins: for a
         * test's unit directory, the test's own. */
        if (!live)
                return;
        char **keep = xmalloc0(((plan ? plan->n_replicas : 0) + 1) * sizeof(char *));
        size_t n = 0;
        for (size_t i = 0; plan && i < plan->n_replicas; i++)
                if (plan->replicas[i].copies && !strv_contains(keep, plan->replicas[i].copies))
                        keep[n++] = plan->replicas[i].copies;
        int k = copy_places_prune(in->state.models, keep);
        if (k > 0)
                log_notice("took away %d director%s of model copies in %s that no replica reads now", k,
                           k == 1 ? "y" : "ies", in->state.models);
        free(keep);
}
