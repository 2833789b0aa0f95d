/* SPDX-License-Identifier: MIT */
#include "bus.h"
#include "changeset.h"
#include "commit.h"
#include "diff.h"
#include "dropin.h"
#include "fileio.h"
#include "json-util.h"
#include "log.h"
#include "util.h"
#include "verbs.h"

static void print_diff(const struct changeset *cs, FILE *f) {
        struct strbuf b = {0};
        for (size_t i = 0; i < cs->n; i++)
                diff_unified(&b, cs->v[i].path, cs->v[i].old, cs->v[i].path, cs->v[i].new);
        if (b.len)
                fputs(b.s, f);
        strbuf_done(&b);
}

static void report(const struct changeset *cs, const struct commit_options *o) {
        bool changed = changeset_changed(cs);

        if (o->json) {
                _cleanup_json_ json_object *obj = json_object_new_object();
                json_object *units = json_object_new_array();
                for (size_t i = 0; i < cs->n; i++) {
                        json_object *u = json_object_new_object();
                        json_object_object_add(u, "unit", json_object_new_string(cs->v[i].unit));
                        json_object_object_add(u, "action", json_object_new_string(action_to_string(cs->v[i].action)));
                        json_object_array_add(units, u);
                }
                json_object_object_add(obj, "changed", json_object_new_boolean(changed));
                json_object_object_add(obj, "units", units);
                json_print(obj);
                return;
        }
        for (size_t i = 0; i < cs->n; i++)
                if (cs->v[i].action != ACTION_UNCHANGED)
                        printf("%s: %s%s %s\n", cs->v[i].unit, o->check ? "would be " : "", action_to_string(cs->v[i].action),
                               cs->v[i].path);
        if (!changed)
                printf("nothing to do: %zu drop-in%s up to date\n", cs->n, cs->n == 1 ? "" : "s");
}

static int write_marker(void) {
        int r = mkdir_parents("/run/numaplan", 0755);
        if (r >= 0)
                r = write_file_atomic(APPLIED_MARKER, "numaplan apply succeeded on this boot\n");
        if (r < 0)
                return log_warning_errno(r, "cannot create %s: %m; the replicas' drop-ins assert it", APPLIED_MARKER);
        return 0;
}

/* Pinning takes effect when a unit starts: restart the running ones that changed, or say so. */
static int restart_or_tell(sd_bus *bus, const struct changeset *cs, bool restart) {
        char **running = xmalloc0((cs->n + 1) * sizeof(char *));
        size_t n = 0;
        int r = 0;

        for (size_t i = 0; i < cs->n; i++) {
                _cleanup_free_ char *state = NULL;
                if (cs->v[i].action == ACTION_UNCHANGED)
                        continue;
                if (bus_unit_string(bus, cs->v[i].unit, SD_UNIT, "ActiveState", &state) < 0 ||
                    (!streq(state, "active") && !streq(state, "activating") && !streq(state, "reloading")))
                        continue;
                if (restart && cs->v[i].action != ACTION_REMOVED)
                        running[n++] = cs->v[i].unit;
                else
                        log_notice("%s is running with its old placement: pinning takes effect when it starts "
                                   "(numaplan apply --restart, or systemctl restart %s)",
                                   cs->v[i].unit, cs->v[i].unit);
        }
        if (n > 0) {
                r = bus_restart_units(bus, running);
                if (r == 0)
                        for (size_t i = 0; i < n; i++)
                                log_notice("restarted %s", running[i]);
        }
        free(running);
        return r;
}

int commit_changes(const struct changeset *cs, const struct commit_options *o) {
        bool changed = changeset_changed(cs);
        int r;

        if (o->diff)
                print_diff(cs, o->json ? stderr : stdout);
        if (o->check) {
                report(cs, o);
                return changed ? EXIT_FAILED : EXIT_OK;
        }
        /* systemd is asked before anything is written: a write it could not reload is a half step. */
        _cleanup_bus_ sd_bus *bus = NULL;
        if (changed && !o->no_reload && (bus_connect(&bus) < 0 || bus_check_version(bus) < 0)) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        if (changed && changeset_commit(cs) < 0)
                return EXIT_ENV;
        if (o->marker)
                (void) write_marker();

        if (changed && !o->no_reload) {
                r = bus_reload(bus);
                if (r < 0) {
                        log_error("the drop-ins are written but systemd did not reload: run systemctl daemon-reload");
                        report(cs, o);
                        return EXIT_ENV;
                }
                if (restart_or_tell(bus, cs, o->restart) != 0) {
                        report(cs, o);
                        return EXIT_ENV;
                }
        }
        report(cs, o);
        return EXIT_OK;
}
