/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "log.h"
#include "planner.h"
#include "root.h"
#include "topology.h"
#include "util.h"
#include "verbs.h"

int host_open(const struct globals *g, unsigned flags, struct root **ret_root, struct topology **ret_topology) {
        _cleanup_root_ struct root *root = NULL;
        struct topology *t;

        int r = root_open(g->sysfs_root, &root);
        if (r < 0)
                return log_error_errno(r, "cannot open %s: %m", g->sysfs_root);
        if (flags & HOST_RECORD)
                root_start_recording(root);
        r = topology_read(root, flags & HOST_NAMES, &t);
        if (r < 0)
                return r;
        *ret_root = TAKE_PTR(root);
        *ret_topology = t;
        return 0;
}

int plan_load(const struct globals *g, const char *config_path, bool runtime, struct plan_inputs *ret) {
        struct plan_inputs in = {0};
        struct plan_error err;
        int r;

        in.unit_dir = g->unit_dir ? g->unit_dir : runtime ? UNIT_DIR_RUNTIME : UNIT_DIR_PERSISTENT;
        r = config_load(config_path, &in.config);
        if (r < 0)
                return r == -ENOENT || r == -EINVAL || r == -EPERM ? EXIT_USAGE : EXIT_ENV;
        if (host_open(g, 0, &in.root, &in.topology) < 0) {
                plan_inputs_done(&in);
                return EXIT_ENV;
        }
        r = topology_apply_overrides(in.topology, in.config, &err);
        if (r >= 0)
                r = plan_compute(in.topology, in.config, &in.plan, &err);
        if (r < 0) {
                config_error(err.at, "%s", err.message ? err.message : "cannot plan");
                free(err.message);
                plan_inputs_done(&in);
                return EXIT_USAGE;
        }
        *ret = in;
        return EXIT_OK;
}

void plan_inputs_done(struct plan_inputs *in) {
        plan_free(in->plan);
        config_free(in->config);
        topology_free(in->topology);
        root_free(in->root);
        *in = (struct plan_inputs){0};
}
