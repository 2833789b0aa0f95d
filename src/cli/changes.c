/* SPDX-License-Identifier: MIT */
#include "basic/diff.h"
#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/changes.h"
#include "cli/verbs.h"
#include "systemd/changeset.h"
#include "systemd/deploy.h"

static void print_changes_diff(const struct changeset *cs, FILE *f) {
        struct strbuf b = {0};
        for (size_t i = 0; i < cs->n; i++)
                diff_unified(&b, cs->v[i].path, cs->v[i].old, cs->v[i].path, cs->v[i].new);
        if (b.len)
                fputs(b.s, f);
        strbuf_done(&b);
}

static void print_changes(const struct changeset *cs, bool check, bool json) {
        bool changed = changeset_changed(cs);

        if (json) {
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
        if (log_get_max_level() < LOG_NOTICE) /* -q: errors only */
                return;
        for (size_t i = 0; i < cs->n; i++)
                if (cs->v[i].action != ACTION_UNCHANGED)
                        printf("%s: %s%s %s\n", cs->v[i].unit, check ? "would be " : "",
                               action_to_string(cs->v[i].action), cs->v[i].path);
                else if (cs->removal)
                        printf("%s: no drop-in of numaplan's to remove\n", cs->v[i].unit);
        if (!changed && cs->removal)
                printf("nothing removed\n");
        else if (!changed)
                printf("nothing to do: %zu drop-in%s up to date\n", cs->n, cs->n == 1 ? "" : "s");
}

int deploy_and_report(const struct changeset *cs, const char *marker, bool check, bool diff, bool reload, bool restart,
                  bool json) {
        struct deploy_options o = {.reload = reload, .restart = restart, .marker = marker};
        struct deploy_result res = {.stage = DEPLOY_CONNECT};
        struct deployment d = {0};

        /* systemd first: a diff printed and then "cannot reach systemd" reads as done. */
        if (!check && deploy_prepare(cs, &o, &d) < 0) {
                log_error("nothing written (--no-reload writes without telling systemd)");
                return EXIT_ENV;
        }
        if (diff)
                print_changes_diff(cs, json ? stderr : stdout);
        if (check) {
                print_changes(cs, true, json);
                return changeset_changed(cs) ? EXIT_FAILED : EXIT_OK;
        }
        int r = deploy(&d, cs, &o, &res);
        deployment_done(&d);
        switch (res.stage) {
        case DEPLOY_CONNECT:
                return EXIT_ENV; /* not reached: prepared above */
        case DEPLOY_COMMIT:
                return EXIT_ENV; /* the commit said what it restored */
        case DEPLOY_RELOAD:
                log_error("the drop-ins are written but systemd did not reload: run systemctl daemon-reload");
                break;
        case DEPLOY_RESTART:
        case DEPLOY_MARKER:
        case DEPLOY_DONE:
                break;
        }
        print_changes(cs, false, json);
        return r < 0 ? EXIT_ENV : EXIT_OK;
}
