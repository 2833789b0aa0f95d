/* SPDX-License-Identifier: MIT */
/* Generator mode (stage/inputs.h): the drop-ins are numaplan-generator's, which systemd runs at
 * every boot and daemon-reload. apply checks that the generator's directory holds the plan once
 * systemd reloaded, and hands over what apply wrote before the generator was installed; remove
 * records the units the generator leaves out until the next boot; and the generator's own run
 * writes the plan into its directory, then its marker. */

#include <fcntl.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "stage/deploy-generator.h"
#include "stage/deploy-host.h"
#include "stage/trust.h"
#include "systemd/bus.h"
#include "systemd/deploy.h"
#include "systemd/generator-files.h"
#include "systemd/journal.h"
#include "systemd/systemd-dl.h"

static void unrefp(sd_bus **bus) {
        bus_unrefp(bus);
}

static int unlink_if_there(const char *path) {
        if (unlink(path) < 0 && errno != ENOENT)
                return log_error_errno(-errno, "cannot remove %s: %m", path);
        return 0;
}

/* apply's directories' change sets, after the generator's (sets[0]): numaplan's drop-ins there,
 * all of them (apply), or of `units` (remove). */
static int apply_sets(const struct inputs *in, bool recover, char *const *units, struct deploy_outcome *ret) {
        for (ret->n_sets = 1; in->apply_dirs[ret->n_sets - 1]; ret->n_sets++) {
                const char *dir = in->apply_dirs[ret->n_sets - 1];
                if ((recover && changeset_recover(dir) < 0) ||
                    changeset_for_removal(dir, units, &ret->sets[ret->n_sets].cs) < 0)
                        return EXIT_ENV;
        }
        return EXIT_OK;
}

/* systemd first, when there is a reload to come (a handover it would not hear of is a half
 * step); then apply's drop-ins go. EXIT_OK, or EXIT_ENV said. */
static int connect_and_commit(const struct deploy_outcome *o, bool reload, sd_bus **bus) {
        if (reload && (bus_connect(bus) < 0 || bus_check_version(*bus) < 0)) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        for (size_t k = 1; k < o->n_sets; k++)
                if (changeset_changed(&o->sets[k].cs) && changeset_commit(&o->sets[k].cs) < 0)
                        return EXIT_ENV;
        return EXIT_OK;
}

/* The reload that runs the generator, and whether its directory then holds the plan's drop-ins,
 * or (`units`, for remove) none of those units'. EXIT_OK, or EXIT_ENV said. */
static int reload_and_check(sd_bus *bus, const struct inputs *in, char *const *units, bool removal) {
        _cleanup_changeset_ struct changeset now = {0};

        if (bus_reload(bus) < 0) {
                log_error(removal ? "recorded, but systemd did not reload: run systemctl daemon-reload"
                                  : "apply's drop-ins are removed but systemd did not reload: run systemctl "
                                    "daemon-reload");
                return EXIT_ENV;
        }
        if (removal) {
                if (changeset_for_removal(in->unit_dir, units, &now) < 0)
                        return EXIT_ENV;
                if (changeset_count(&now, ACTION_REMOVED) != 0) {
                        log_error("systemd reloaded, but the generator still wrote drop-ins of those units into %s "
                                  "(journalctl -b -t " GENERATOR_NAME " says why)",
                                  in->unit_dir);
                        return EXIT_ENV;
                }
                return EXIT_OK;
        }
        if (changeset_for_plan(in->unit_dir, &in->env, in->topology, in->config, in->plan, &now) < 0)
                return EXIT_ENV;
        if (changeset_changed(&now) || access(in->marker, F_OK) < 0) {
                log_error("systemd reloaded, but %s does not hold this plan: the generator failed, or is "
                          "another numaplan (journalctl -b -t " GENERATOR_NAME " says why)",
                          in->unit_dir);
                return EXIT_ENV;
        }
        return EXIT_OK;
}

static void journal_sets(const struct deploy_outcome *o, size_t from, enum journal_kind kind) {
        for (size_t k = from; k < o->n_sets; k++)
                deploy_journal_changes(&o->sets[k].cs, kind, false);
}

int deploy_generator_apply(const struct inputs *in, const struct deploy_options *o, char *irqbalance,
                           struct deploy_outcome *ret) {
        _cleanup_(unrefp) sd_bus *bus = NULL;

        ret->sets[0].note = " (by " GENERATOR_NAME ")";
        if (apply_sets(in, !o->check, NULL, ret) != EXIT_OK) {
                free(irqbalance);
                return EXIT_ENV;
        }
        for (size_t k = 1; k < ret->n_sets; k++)
                ret->sets[k].note = " (apply's: the generator's drop-in takes over)";
        if (changeset_put(&ret->sets[1].cs, IRQBALANCE_UNIT, irqbalance) < 0)
                return EXIT_ENV;
        /* apply's own state, which generator mode has no use for: remove's record, and the marker
         * an earlier numaplan's drop-ins asserted (one written before the generator was installed
         * must not start). */
        bool handover = access(in->state.removed, F_OK) == 0 || access(in->state.applied_old, F_OK) == 0;
        bool changed = deploy_any_change(ret) || handover;
        ret->shown = DEPLOY_SHOWN_DIFF;
        if (o->check) {
                int r = deploy_irqs(in, in->live, true, true, ret);
                ret->changed = changed || irq_changes_any(&ret->irqs);
                ret->shown = DEPLOY_SHOWN_ALL;
                return r != EXIT_OK ? r : ret->changed ? EXIT_FAILED : EXIT_OK;
        }
        if (connect_and_commit(ret, changed && o->reload, &bus) != EXIT_OK)
                return EXIT_ENV;
        if (unlink_if_there(in->state.removed) < 0 || unlink_if_there(in->state.applied_old) < 0 ||
            deploy_remove_marker(in->state.unplaced) < 0)
                return EXIT_ENV;
        if (changed && o->reload) {
                if (reload_and_check(bus, in, NULL, false) != EXIT_OK ||
                    deploy_restart_or_tell(bus, &ret->sets[0].cs, o->restart) != 0 ||
                    deploy_restart_helpers(bus, &ret->sets[1].cs) != 0)
                        return EXIT_ENV;
        } else if (changed)
                log_notice("the generator writes this plan into %s at the next daemon-reload or boot", in->unit_dir);
        if (state_write_units_record(in->apply_dirs[0], in->plan) < 0)
                return EXIT_ENV;
        int r = deploy_irqs(in, in->live, true, false, ret);
        ret->changed = changed || irq_changes_any(&ret->irqs);
        ret->shown = DEPLOY_SHOWN_ALL;
        /* The generator's drop-ins are this plan once systemd reloaded; apply's own are gone. */
        journal_sets(ret, o->reload || !changed ? 0 : 1, JOURNAL_APPLY);
        return r;
}

/* The record of what remove took out of the generator's output, with `units` added (all of them
 * for none named); whether it changed. */
static bool removed_record(const struct inputs *in, char *const *units, struct strbuf *text) {
        bool all_before, exists, changed = false;
        _cleanup_strv_free_ char **before = state_read_removed(in->state.removed, &all_before, &exists);

        strbuf_append(text, "# units numaplan remove took out of numaplan-generator's drop-ins until the next boot\n");
        if (!units || !units[0] || all_before) {
                strbuf_append(text, "*\n");
                return !all_before;
        }
        for (size_t i = 0; before[i]; i++)
                strbuf_printf(text, "%s\n", before[i]);
        for (size_t i = 0; units[i]; i++)
                if (!strv_contains(before, units[i])) {
                        strbuf_printf(text, "%s\n", units[i]);
                        changed = true;
                }
        return changed;
}

int deploy_generator_remove(const struct inputs *in, const struct deploy_options *o, struct deploy_outcome *ret) {
        _cleanup_strbuf_ struct strbuf text = {0};
        _cleanup_(unrefp) sd_bus *bus = NULL;

        ret->sets[0].note = " (the generator leaves it out until the next boot)";
        if (apply_sets(in, true, o->units, ret) != EXIT_OK)
                return EXIT_ENV;
        /* What the generator's directory holds of those units: gone once it runs again. */
        if (changeset_for_removal(in->unit_dir, o->units, &ret->sets[0].cs) < 0)
                return EXIT_ENV;
        bool record_changed = removed_record(in, o->units, &text);
        bool changed = deploy_any_change(ret) || record_changed;
        if (connect_and_commit(ret, changed && o->reload, &bus) != EXIT_OK)
                return EXIT_ENV;
        if (record_changed) {
                int q = write_file_path(in->state.removed, text.s, 0);
                if (q < 0)
                        return log_error_errno(q, "cannot write %s: %m", in->state.removed), EXIT_ENV;
        }
        if (changed && o->reload) {
                if (reload_and_check(bus, in, o->units, true) != EXIT_OK ||
                    deploy_restart_or_tell(bus, &ret->sets[0].cs, false) != 0)
                        return EXIT_ENV;
                for (size_t k = 1; k < ret->n_sets; k++)
                        if (deploy_restart_helpers(bus, &ret->sets[k].cs) != 0)
                                return EXIT_ENV;
        } else if (changed)
                log_notice("the generator leaves them out from the next daemon-reload");
        bool all = !o->units || !o->units[0];
        int r = all ? deploy_irqs(in, in->live, false, false, ret) : EXIT_OK;
        ret->changed = changed || irq_changes_any(&ret->irqs);
        ret->shown = DEPLOY_SHOWN_ALL;
        journal_sets(ret, o->reload ? 0 : 1, JOURNAL_REMOVE);
        return r;
}

int deploy_write_unit_file(const char *dir, const char *unit, const char *name, const char *text) {
        _cleanup_free_ char *path = xasprintf("%s/%s.d/%s", dir, unit, name);
        int r = unit_text_check(path, text);
        if (r < 0)
                return r;
        r = write_file_path(path, text, 0);
        if (r < 0)
                return log_error_errno(r, "cannot write %s: %m", path);
        return 0;
}

/* --- The generator's own run ------------------------------------------------------------------ */

static int read_unit_file_at(int udfd, const char *unit, const char *name, char **ret) {
        _cleanup_free_ char *d = xasprintf("%s.d", unit);
        *ret = NULL;
        if (udfd < 0)
                return udfd;
        _cleanup_close_ int dfd = open_dir_at(udfd, d, false, NULL);
        if (dfd < 0)
                return dfd;
        return read_regular_at(dfd, name, DROPIN_SIZE_MAX, ret);
}

/* A unit that still has apply's drop-in where it outranks the generator's (an apply before the
 * generator was installed): a second drop-in keeps it from starting with that placement, until
 * apply takes it away. An admin's own file of that name (a link to /dev/null included) is theirs
 * and wins, as systemd makes it. Returns whether the unit is blocked. */
static bool check_conflict(const struct inputs *in, const int *apply_fds, const char *unit) {
        for (size_t k = 0; in->apply_dirs[k]; k++) {
                _cleanup_free_ char *old = NULL, *path = dropin_path(in->apply_dirs[k], unit);
                if (read_unit_file_at(apply_fds[k], unit, DROPIN_NAME, &old) < 0 || !startswith(old, DROPIN_HEADER))
                        continue;
                _cleanup_free_ char *text = xasprintf(
                        DROPIN_HEADER
                        "-generator. Do not edit: run numaplan apply, which hands the unit to the generator.\n"
                        "# %s, written by numaplan apply, outranks the generator's drop-in: the unit "
                        "starts with neither until it is gone.\n[Unit]\nAssertPathExists=!%s\n",
                        path, path);
                if (deploy_write_unit_file(in->unit_dir, unit, GENERATOR_CONFLICT_NAME, text) >= 0)
                        log_error(
                                "%s: %s, written by numaplan apply, outranks the generator's placement: the unit will "
                                "not start; numaplan apply removes it and reloads",
                                unit, path);
                return true;
        }
        return false;
}

/* The units remove took out until the next boot get no drop-in: how many. */
static size_t leave_out_removed(const struct inputs *in, struct changeset *cs) {
        bool all, record;
        _cleanup_strv_free_ char **removed = state_read_removed(in->state.removed, &all, &record);
        size_t n = 0;
        for (size_t i = 0; i < cs->n; i++) {
                struct change *c = &cs->v[i];
                if (c->new && (all || strv_contains(removed, c->unit))) {
                        c->new = mfree(c->new);
                        c->action = c->old ? ACTION_REMOVED : ACTION_UNCHANGED;
                        n++;
                }
        }
        return n;
}

/* How much of the list of placed units the outcome names: a line of the journal's worth. */
#define PLACED_SAID_MAX 600

static void closep_array(int (*fds)[INPUTS_APPLY_DIRS_MAX]) {
        for (size_t k = 0; k < INPUTS_APPLY_DIRS_MAX; k++)
                closep(&(*fds)[k]);
}

/* Each drop-in written: checked against apply's drop-ins that outrank it, and named. */
static void check_written(const struct inputs *in, bool fresh, struct deploy_outcome *ret) {
        _cleanup_(closep_array) int apply_fds[INPUTS_APPLY_DIRS_MAX];
        const struct changeset *cs = &ret->sets[0].cs;
        struct strbuf names = {0};

        for (size_t k = 0; k < INPUTS_APPLY_DIRS_MAX; k++)
                apply_fds[k] = in->apply_dirs[k] ? open_dir_at(AT_FDCWD, in->apply_dirs[k], false, NULL) : -1;
        for (size_t i = 0; i < cs->n; i++) {
                if (!cs->v[i].new)
                        continue;
                if (!check_conflict(in, apply_fds, cs->v[i].unit) && !fresh) {
                        _cleanup_free_ char *d =
                                xasprintf("%s/%s.d/" GENERATOR_CONFLICT_NAME, in->unit_dir, cs->v[i].unit);
                        (void) unlink(d); /* of an earlier run into the same directory */
                }
                const struct placement *pl = NULL;
                for (size_t j = 0; j < in->plan->n_replicas && !pl; j++)
                        if (streq(in->plan->replicas[j].unit, cs->v[i].unit))
                                pl = &in->plan->replicas[j];
                _cleanup_free_ char *nodes = pl ? cpuset_format(&pl->nodes) : xstrdup("-");
                if (names.len < PLACED_SAID_MAX)
                        strbuf_printf(&names, "%s%s on node%s %s", ret->placed ? ", " : "", cs->v[i].unit,
                                      pl && cpuset_count(&pl->nodes) > 1 ? "s" : "", nodes);
                else if (!endswith(names.s, ", ..."))
                        strbuf_append(&names, ", ...");
                ret->placed++;
        }
        ret->placed_names = names.len ? strbuf_steal(&names) : xstrdup("none");
}

int deploy_generate(const struct inputs *in, struct deploy_outcome *ret) {
        if (inputs_check_trusted(in, NULL) != EXIT_OK)
                return EXIT_USAGE;
        log_warnings(&in->warnings, true);
        /* systemd empties a generator's directory before every run: into an empty one the
         * drop-ins go without journal or fsync (changeset_commit_fresh()). */
        bool fresh = dir_is_empty_at(AT_FDCWD, in->unit_dir);
        ret->n_sets = 1;
        struct changeset *cs = &ret->sets[0].cs;
        if (changeset_for_plan(in->unit_dir, &in->env, in->topology, in->config, in->plan, cs) < 0)
                return EXIT_OK;
        ret->left_out = leave_out_removed(in, cs);
        int r = !changeset_changed(cs) ? 0 : fresh ? changeset_commit_fresh(cs) : -EEXIST;
        if (r == -EEXIST)
                r = changeset_commit(cs);
        if (r < 0)
                return EXIT_OK;
        check_written(in, fresh, ret);
        /* Last, as apply's: the marker says every drop-in is in place. */
        if (deploy_write_marker(in->marker, fresh ? WRITE_VOLATILE : 0) < 0)
                return EXIT_OK;
        ret->changed = true;
        return EXIT_OK;
}
