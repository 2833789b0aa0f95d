/* SPDX-License-Identifier: MIT */
#include "core/host-checks.h"
#include "host/cgroup.h"
#include "host/host-facts.h"
#include "host/host-warnings.h"

void host_warnings_collect(struct root *root, const struct topology *t, struct warnings *w) {
        struct host_view v = {0};

        v.allowed_known = host_allowed_sets(root, &v.cpus, &v.mems);
        cgroup_detect(root, &v.cgroup, NULL);
        host_checks(t, &v, w);
}
