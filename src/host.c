/* SPDX-License-Identifier: MIT */
#include "log.h"
#include "root.h"
#include "topology.h"
#include "util.h"
#include "verbs.h"

int host_open(const struct globals *g, bool record, struct root **ret_root, struct topology **ret_topology) {
        _cleanup_root_ struct root *root = NULL;
        struct topology *t;

        int r = root_open(g->sysfs_root, &root);
        if (r < 0)
                return log_error_errno(r, "cannot open %s: %m", g->sysfs_root);
        if (record)
                root_start_recording(root);
        r = topology_read(root, &t);
        if (r < 0)
                return r;
        *ret_root = TAKE_PTR(root);
        *ret_topology = t;
        return 0;
}
