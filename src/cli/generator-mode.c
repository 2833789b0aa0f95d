/* SPDX-License-Identifier: MIT */
/* apply and remove in generator mode (cli/generator-mode.h). */

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/changes.h"
#include "cli/generator-mode.h"
#include "cli/inputs.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"
#include "systemd/deploy.h"
#include "systemd/generator-files.h"
#include "systemd/journal.h"

static void print_diff(const struct changeset *cs, size_t n, bool json) {
        for (size_t k = 0; k < n; k++)
                changes_print_diff(&cs[k], json ? stderr : stdout);
}

/* apply's own state, which generator mode has no use for: the record of remove, and apply's
 * marker (so that a drop-in apply wrote before the generator was installed cannot start). */
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

int generator_apply(const struct inputs *in, const struct changeset *gen, const struct pool_changes *pools, bool check,
                    bool diff, bool reload, bool restart, bool json) {
        struct changeset rm[ELEMENTSOF(in->apply_dirs)] = {{0}}, all[ELEMENTSOF(in->apply_dirs) + 1] = {{0}};
        _cleanup_free_ char *record = NULL, *apply_marker = NULL;
        _cleanup_free_ struct change_line *lines = NULL;
        sd_bus *bus = NULL;
        size_t n_rm = 0, n_lines = 0;
        int r = EXIT_ENV;

        for (; in->apply_dirs[n_rm]; n_rm++) {
                if (!check && changeset_recover(in->apply_dirs[n_rm]) < 0)
                        goto out;
                if (changeset_for_removal(in->apply_dirs[n_rm], NULL, &rm[n_rm]) < 0)
                        goto out;
        }
        bool handover = handover_pending(in, &record, &apply_marker);
        for (size_t k = 0; k < n_rm; k++)
                handover = handover || changeset_changed(&rm[k]);
        bool changed = changeset_changed(gen) || handover;

        changes_lines(&lines, &n_lines, gen, " (by " GENERATOR_NAME ")");
        for (size_t k = 0; k < n_rm; k++)
                changes_lines(&lines, &n_lines, &rm[k], " (apply's: the generator's drop-in takes over)");
        if (diff) {
                all[0] = *gen;
                for (size_t k = 0; k < n_rm; k++)
                        all[k + 1] = rm[k];
                print_diff(all, n_rm + 1, json);
        }
        if (check) {
                changes_report(lines, n_lines, pools, true, changed, in->unit_dir, false, "nothing to do: the generator's drop-ins are up to date", json);
                r = changed ? EXIT_FAILED : EXIT_OK;
                goto out;
        }
        /* systemd first: a handover it would not hear of is a half step. */
        if (changed && reload && (bus_connect(&bus) < 0 || bus_check_version(bus) < 0)) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                goto out;
        }
        for (size_t k = 0; k < n_rm; k++)
                if (changeset_changed(&rm[k]) && changeset_commit(&rm[k]) < 0)
                        goto out;
        if (unlink_if_there(record) < 0 || unlink_if_there(apply_marker) < 0)
                goto out;
        if (changed && reload) {
                struct changeset now;
                if (bus_reload(bus) < 0) {
                        log_error("apply's drop-ins are removed but systemd did not reload: run systemctl daemon-reload");
                        goto out;
                }
                /* The reload ran the generator: its directory must now hold this plan. */
                if (changeset_for_plan(in->unit_dir, &in->env, in->topology, in->config, in->plan, &now) < 0)
                        goto out;
                bool held = !changeset_changed(&now) && access(in->marker, F_OK) == 0;
                changeset_done(&now);
                if (!held) {
                        log_error("systemd reloaded, but %s does not hold this plan: the generator failed, or is "
                                  "another numaplan (journalctl -b -t " GENERATOR_NAME " says why)",
                                  in->unit_dir);
                        goto out;
                }
                if (deploy_restart_or_tell(bus, gen, restart) != 0)
                        goto out;
        } else if (changed)
                log_notice("the generator writes this plan into %s at the next daemon-reload or boot", in->unit_dir);
        if (generator_write_units_record(in->apply_dirs[0], in->plan) < 0)
                goto out;
        changes_report(lines, n_lines, pools, false, changed, in->unit_dir, false, "nothing to do: the generator's drop-ins are up to date", json);
        /* The generator's drop-ins are this plan once systemd reloaded; apply's own are gone. */
        if (reload || !changed)
                changes_journal(gen, JOURNAL_APPLY, false);
        for (size_t k = 0; k < n_rm; k++)
                changes_journal(&rm[k], JOURNAL_APPLY, false);
        r = EXIT_OK;
out:
        bus_unrefp(&bus);
        for (size_t k = 0; k < n_rm; k++)
                changeset_done(&rm[k]);
        return r;
}

int generator_remove(const struct inputs *in, char *const *units, const struct pool_changes *pools, bool reload,
                     bool json) {
        struct changeset rm[ELEMENTSOF(in->apply_dirs)] = {{0}}, gen = {0};
        _cleanup_free_ struct change_line *lines = NULL;
        _cleanup_free_ char *record = xasprintf("%s/" GENERATOR_REMOVED, in->runtime_dir);
        _cleanup_strv_free_ char **before = NULL;
        sd_bus *bus = NULL;
        size_t n_rm = 0, n_lines = 0;
        bool all_before, exists;
        int r = EXIT_ENV;

        for (; in->apply_dirs[n_rm]; n_rm++)
                if (changeset_recover(in->apply_dirs[n_rm]) < 0 ||
                    changeset_for_removal(in->apply_dirs[n_rm], units, &rm[n_rm]) < 0)
                        goto out;
        /* What the generator's directory holds of those units: gone once it runs again. */
        if (changeset_for_removal(in->unit_dir, units, &gen) < 0)
                goto out;

        before = generator_read_removed(in->runtime_dir, &all_before, &exists);
        struct strbuf text = {0};
        strbuf_append(&text, "# units numaplan remove took out of numaplan-generator's drop-ins until the next boot\n");
        bool record_changed = false;
        if (!units || !units[0] || all_before) {
                strbuf_append(&text, "*\n");
                record_changed = !all_before;
        } else {
                for (size_t i = 0; before[i]; i++)
                        strbuf_printf(&text, "%s\n", before[i]);
                for (size_t i = 0; units[i]; i++)
                        if (!strv_contains(before, units[i])) {
                                strbuf_printf(&text, "%s\n", units[i]);
                                record_changed = true;
                        }
        }
        bool changed = changeset_changed(&gen) || record_changed;
        for (size_t k = 0; k < n_rm; k++)
                changed = changed || changeset_changed(&rm[k]);

        changes_lines(&lines, &n_lines, &gen, " (the generator leaves it out until the next boot)");
        for (size_t k = 0; k < n_rm; k++)
                changes_lines(&lines, &n_lines, &rm[k], NULL);
        if (changed && reload && (bus_connect(&bus) < 0 || bus_check_version(bus) < 0)) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                strbuf_done(&text);
                goto out;
        }
        for (size_t k = 0; k < n_rm; k++)
                if (changeset_changed(&rm[k]) && changeset_commit(&rm[k]) < 0) {
                        strbuf_done(&text);
                        goto out;
                }
        if (record_changed) {
                _cleanup_free_ char *copy = xstrdup(record);
                char *slash = strrchr(copy, '/');
                *slash = '\0';
                int q = mkdir_parents(copy, 0755);
                _cleanup_close_ int dfd = q < 0 ? q : open_dir_at(AT_FDCWD, copy, true, NULL);
                q = dfd < 0 ? dfd : write_file_atomic_at(dfd, slash + 1, text.s);
                if (q < 0) {
                        log_error_errno(q, "cannot write %s: %m", record);
                        strbuf_done(&text);
                        goto out;
                }
        }
        strbuf_done(&text);
        if (changed && reload) {
                struct changeset now;
                if (bus_reload(bus) < 0) {
                        log_error("recorded, but systemd did not reload: run systemctl daemon-reload");
                        goto out;
                }
                if (changeset_for_removal(in->unit_dir, units, &now) < 0)
                        goto out;
                bool gone = changeset_count(&now, ACTION_REMOVED) == 0;
                changeset_done(&now);
                if (!gone) {
                        log_error("systemd reloaded, but the generator still wrote drop-ins of those units into %s "
                                  "(journalctl -b -t " GENERATOR_NAME " says why)",
                                  in->unit_dir);
                        goto out;
                }
                if (deploy_restart_or_tell(bus, &gen, false) != 0)
                        goto out;
        } else if (changed)
                log_notice("the generator leaves them out from the next daemon-reload");
        changes_report(lines, n_lines, pools, false, changed, in->unit_dir, false, "nothing removed", json);
        if (reload)
                changes_journal(&gen, JOURNAL_REMOVE, false);
        for (size_t k = 0; k < n_rm; k++)
                changes_journal(&rm[k], JOURNAL_REMOVE, false);
        r = EXIT_OK;
out:
        bus_unrefp(&bus);
        changeset_done(&gen);
        for (size_t k = 0; k < n_rm; k++)
                changeset_done(&rm[k]);
        return r;
}
