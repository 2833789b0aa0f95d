/* SPDX-License-Identifier: MIT */
/* apply and remove in generator mode (cli/generator-mode.h). */

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/changes.h"
#include "cli/generator-mode.h"
#include "core/dropin.h"
#include "host/irq-steer.h"
#include "stage/inputs.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"
#include "systemd/deploy.h"
#include "systemd/generator-files.h"
#include "systemd/journal.h"
#include "systemd/systemd-dl.h"

static void print_diff(const struct changeset *cs, size_t n, bool json) {
        for (size_t k = 0; k < n; k++)
                changes_print_diff(&cs[k], json ? stderr : stdout);
}

/* apply's own state, which generator mode has no use for: the record of remove, and the marker an
 * earlier numaplan's apply wrote and its drop-ins asserted (so that one written before the
 * generator was installed cannot start). */
static bool handover_pending(const struct inputs *in, char **ret_record, char **ret_marker) {
        *ret_record = xasprintf("%s/" GENERATOR_REMOVED, in->runtime_dir);
        *ret_marker = xasprintf("%s/applied", in->runtime_dir);
        return access(*ret_record, F_OK) == 0 || access(*ret_marker, F_OK) == 0;
}

static int unlink_if_there(const char *path) {
        if (unlink(path) < 0 && errno != ENOENT)
                return log_error_errno(-errno, "cannot remove %s: %m", path);
        return 0;
}

/* apply's directories' change sets. */
struct apply_sets {
        struct changeset v[INPUTS_APPLY_DIRS_MAX];
        size_t n;
};

static void apply_sets_done(struct apply_sets *a) {
        for (size_t k = 0; k < a->n; k++)
                changeset_done(&a->v[k]);
}
#define _cleanup_apply_sets_ _cleanup_(apply_sets_done)

static void unrefp(sd_bus **bus) {
        bus_unrefp(bus);
}

/* systemd first, when there is a reload to come (a handover it would not hear of is a half
 * step); then apply's drop-ins go. EXIT_OK, or EXIT_ENV said. */
static int connect_and_commit(struct apply_sets *rm, bool reload, sd_bus **bus) {
        if (reload && (bus_connect(bus) < 0 || bus_check_version(*bus) < 0)) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        for (size_t k = 0; k < rm->n; k++)
                if (changeset_changed(&rm->v[k]) && changeset_commit(&rm->v[k]) < 0)
                        return EXIT_ENV;
        return EXIT_OK;
}

/* The reload that runs the generator, and whether its directory then holds `want` (the plan's
 * drop-ins, or none of `units`). EXIT_OK, or EXIT_ENV said. */
static int reload_and_check(sd_bus *bus, const struct inputs *in, char *const *units, bool removal) {
        _cleanup_changeset_ struct changeset now = {0};

        if (bus_reload(bus) < 0) {
                log_error(removal ? "recorded, but systemd did not reload: run systemctl daemon-reload"
                                  : "apply's drop-ins are removed but systemd did not reload: run systemctl daemon-reload");
                return EXIT_ENV;
        }
        /* The reload ran the generator: its directory must now hold this plan, or not those units. */
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

int generator_apply(const struct inputs *in, const struct changeset *gen, const struct pool_changes *pools,
                    char *irqbalance, struct irq_step *irqs, bool check, bool diff, bool reload, bool restart, bool json) {
        _cleanup_apply_sets_ struct apply_sets rm = {0};
        _cleanup_free_ char *record = NULL, *apply_marker = NULL;
        _cleanup_free_ struct change_line *lines = NULL;
        _cleanup_(unrefp) sd_bus *bus = NULL;
        size_t n_lines = 0;

        for (; in->apply_dirs[rm.n]; rm.n++)
                if ((!check && changeset_recover(in->apply_dirs[rm.n]) < 0) ||
                    changeset_for_removal(in->apply_dirs[rm.n], NULL, &rm.v[rm.n]) < 0) {
                        free(irqbalance);
                        return EXIT_ENV;
                }
        if (changeset_put(&rm.v[0], IRQBALANCE_UNIT, irqbalance) < 0)
                return EXIT_ENV;
        bool handover = handover_pending(in, &record, &apply_marker);
        for (size_t k = 0; k < rm.n; k++)
                handover = handover || changeset_changed(&rm.v[k]);
        bool changed = changeset_changed(gen) || handover;

        changes_lines(&lines, &n_lines, gen, " (by " GENERATOR_NAME ")");
        for (size_t k = 0; k < rm.n; k++)
                changes_lines(&lines, &n_lines, &rm.v[k], " (apply's: the generator's drop-in takes over)");
        if (diff) {
                struct changeset all[ELEMENTSOF(rm.v) + 1] = {*gen};
                for (size_t k = 0; k < rm.n; k++)
                        all[k + 1] = rm.v[k];
                print_diff(all, rm.n + 1, json);
        }
        const char *nothing = "nothing to do: the generator's drop-ins are up to date";
        if (check) {
                changes_irqs(irqs, true);
                changed = changed || irq_changes_any(irqs->done);
                changes_report(lines, n_lines, pools, irqs->done, true, changed, in->unit_dir, false, nothing, json);
                return changed ? EXIT_FAILED : EXIT_OK;
        }
        if (connect_and_commit(&rm, changed && reload, &bus) != EXIT_OK)
                return EXIT_ENV;
        if (unlink_if_there(record) < 0 || unlink_if_there(apply_marker) < 0 || deploy_remove_marker(in->unplaced) < 0)
                return EXIT_ENV;
        if (changed && reload) {
                if (reload_and_check(bus, in, NULL, false) != EXIT_OK || deploy_restart_or_tell(bus, gen, restart) != 0 ||
                    deploy_restart_helpers(bus, &rm.v[0]) != 0)
                        return EXIT_ENV;
        } else if (changed)
                log_notice("the generator writes this plan into %s at the next daemon-reload or boot", in->unit_dir);
        if (generator_write_units_record(in->apply_dirs[0], in->plan) < 0)
                return EXIT_ENV;
        changes_irqs(irqs, false);
        changes_report(lines, n_lines, pools, irqs->done, false, changed || irq_changes_any(irqs->done), in->unit_dir,
                       false, nothing, json);
        /* The generator's drop-ins are this plan once systemd reloaded; apply's own are gone. */
        if (reload || !changed)
                changes_journal(gen, JOURNAL_APPLY, false);
        for (size_t k = 0; k < rm.n; k++)
                changes_journal(&rm.v[k], JOURNAL_APPLY, false);
        return irqs->exit;
}

/* The record of what remove took out of the generator's output, with `units` added (all of them
 * for none named); whether it changed. */
static bool removed_record(const struct inputs *in, char *const *units, struct strbuf *text) {
        bool all_before, exists, changed = false;
        _cleanup_strv_free_ char **before = generator_read_removed(in->runtime_dir, &all_before, &exists);

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

static int write_record(const char *record, const char *text) {
        _cleanup_free_ char *dir = xstrdup(record);
        char *slash = strrchr(dir, '/');
        *slash = '\0';
        int q = mkdir_parents(dir, 0755);
        _cleanup_close_ int dfd = q < 0 ? q : open_dir_at(AT_FDCWD, dir, true, NULL);
        q = dfd < 0 ? dfd : write_file_atomic_at(dfd, slash + 1, text);
        if (q < 0)
                return log_error_errno(q, "cannot write %s: %m", record);
        return 0;
}

int generator_remove(const struct inputs *in, char *const *units, const struct pool_changes *pools, struct irq_step *irqs,
                     bool reload, bool json) {
        _cleanup_apply_sets_ struct apply_sets rm = {0};
        _cleanup_changeset_ struct changeset gen = {0};
        _cleanup_free_ struct change_line *lines = NULL;
        _cleanup_free_ char *record = xasprintf("%s/" GENERATOR_REMOVED, in->runtime_dir);
        _cleanup_strbuf_ struct strbuf text = {0};
        _cleanup_(unrefp) sd_bus *bus = NULL;
        size_t n_lines = 0;

        for (; in->apply_dirs[rm.n]; rm.n++)
                if (changeset_recover(in->apply_dirs[rm.n]) < 0 ||
                    changeset_for_removal(in->apply_dirs[rm.n], units, &rm.v[rm.n]) < 0)
                        return EXIT_ENV;
        /* What the generator's directory holds of those units: gone once it runs again. */
        if (changeset_for_removal(in->unit_dir, units, &gen) < 0)
                return EXIT_ENV;

        bool record_changed = removed_record(in, units, &text);
        bool changed = changeset_changed(&gen) || record_changed;
        for (size_t k = 0; k < rm.n; k++)
                changed = changed || changeset_changed(&rm.v[k]);

        changes_lines(&lines, &n_lines, &gen, " (the generator leaves it out until the next boot)");
        for (size_t k = 0; k < rm.n; k++)
                changes_lines(&lines, &n_lines, &rm.v[k], NULL);
        if (connect_and_commit(&rm, changed && reload, &bus) != EXIT_OK)
                return EXIT_ENV;
        if (record_changed && write_record(record, text.s) < 0)
                return EXIT_ENV;
        if (changed && reload) {
                if (reload_and_check(bus, in, units, true) != EXIT_OK || deploy_restart_or_tell(bus, &gen, false) != 0)
                        return EXIT_ENV;
                for (size_t k = 0; k < rm.n; k++)
                        if (deploy_restart_helpers(bus, &rm.v[k]) != 0)
                                return EXIT_ENV;
        } else if (changed)
                log_notice("the generator leaves them out from the next daemon-reload");
        if (irqs)
                changes_irqs(irqs, false);
        changes_report(lines, n_lines, pools, irqs ? irqs->done : NULL, false,
                       changed || (irqs && irq_changes_any(irqs->done)), in->unit_dir, false, "nothing removed", json);
        if (reload)
                changes_journal(&gen, JOURNAL_REMOVE, false);
        for (size_t k = 0; k < rm.n; k++)
                changes_journal(&rm.v[k], JOURNAL_REMOVE, false);
        return irqs ? irqs->exit : EXIT_OK;
}
