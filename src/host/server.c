/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "host/server.h"
#include "core/placement.h"
#include "core/observed.h"
#include "core/verify-checks.h"
#include "host/cgroup.h"
#include "host/container.h"

static void take_tree(struct cgroup_tree *t, struct task_facts *tf) {
        tf->processes = TAKE_PTR(t->processes);
        tf->n_processes = t->n_processes;
        tf->cgroups = TAKE_PTR(t->cgroups);
        tf->n_cgroups = t->n_cgroups;
        cgroup_tree_done(t);
}

void server_processes(struct root *root, const char *mount, const char *control_group, const struct placement *pl,
                      struct task_facts *tf, struct container_facts *cf) {
        bool has_cgroup = control_group && *control_group;
        struct cgroup_tree unit = {0};

        /* A unit without a cgroup (not running) readably has no process; one with a cgroup that
         * cannot be listed (no cgroup v2 mount) is unreadable. */
        *tf = (struct task_facts){.readable = !has_cgroup};
        *cf = (struct container_facts){.name = pl->container};
        if (!has_cgroup || !mount || cgroup_tree_read(root, mount, control_group, &unit) < 0)
                return;
        tf->readable = true;
        cf->clients_only = unit.n_processes > 0;
        for (size_t i = 0; i < unit.n_processes; i++)
                cf->clients_only = cf->clients_only && container_client(unit.processes[i].comm);
        if (unit.n_processes > 0) {
                snprintf(cf->client, sizeof(cf->client), "%s", unit.processes[0].comm);
                cf->client_pid = unit.processes[0].pid;
        }

        struct cgroup_tree box = {0};
        if (cf->name && container_inspect(root, mount, cf) >= 0 && cf->clients_only && cf->cgroup &&
            !cgroup_is_below(cf->cgroup, control_group) && cgroup_tree_read(root, mount, cf->cgroup, &box) >= 0) {
                cgroup_tree_done(&unit);
                take_tree(&box, tf);
        } else {
                /* The container inside the unit (podman --cgroups=split) is in the tree already. */
                cgroup_tree_done(&box);
                take_tree(&unit, tf);
        }
}
