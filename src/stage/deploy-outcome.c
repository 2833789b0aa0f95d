/* SPDX-License-Identifier: MIT */
#include "basic/log.h"
#include "basic/util.h"
#include "stage/deploy-outcome.h"

void deploy_outcome_done(struct deploy_outcome *o) {
        for (size_t k = 0; k < o->n_sets; k++)
                changeset_done(&o->sets[k].cs);
        irq_targets_done(&o->targets);
        pool_changes_done(&o->pools);
        irq_changes_done(&o->irqs);
        free(o->placed_names);
        *o = (struct deploy_outcome){0};
}

bool deploy_any_change(const struct deploy_outcome *o) {
        for (size_t k = 0; k < o->n_sets; k++)
                if (changeset_changed(&o->sets[k].cs))
                        return true;
        return pool_changes_any(&o->pools) || irq_changes_any(&o->irqs);
}

void deploy_journal_changes(const struct changeset *cs, enum journal_kind kind, bool failed) {
        for (size_t i = 0; journal_enabled() && i < cs->n; i++) {
                const struct change *c = &cs->v[i];
                /* A removal's unchanged unit had nothing of numaplan's; a failure left it as it was. */
                if (c->action == ACTION_UNCHANGED && (cs->removal || failed))
                        continue;
                _cleanup_free_ char *dropin = xasprintf("NUMAPLAN_DROPIN=%s", c->path);
                char *fields[] = {dropin, NULL};
                const char *action = action_to_string(c->action);
                if (failed)
                        journal_event(kind, LOG_ERR, c->unit, "failed", fields, "%s: %s not %s: %s", c->unit, c->path,
                                      c->action == ACTION_REMOVED ? "removed" : "written",
                                      log_first_error() ? log_first_error() : "see the messages before");
                else
                        journal_event(kind, LOG_INFO, c->unit, action, fields, "%s: drop-in %s: %s", c->unit, action,
                                      c->path);
        }
}
