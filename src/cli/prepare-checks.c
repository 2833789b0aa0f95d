/* SPDX-License-Identifier: MIT */
#include <ctype.h>

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/prepare-checks.h"
#include "cli/verbs.h"
#include "core/memory-place.h"
#include "core/sysfs-parse.h"
#include "host/root.h"
#include "host/topology-read.h"
#include "host/unit-user.h"
#include "systemd/bus.h"
#include "systemd/systemd-dl.h"

/* What is wrong with a --nodes value, in words, or NULL when it is a list of nodes. */
static char *nodes_problem(const char *s, struct cpuset *ret) {
        int r = cpuset_parse_list(s, ret);
        if (r == -ERANGE)
                return xasprintf("a node number past %d", CPUSET_MAX - 1);
        /* The parser says only "malformed": find the part that is. */
        for (const char *p = s; r < 0 && *p;) {
                size_t len = strcspn(p, ",");
                _cleanup_free_ char *part = xstrndup(p, len), *shown = name_escape(part);
                unsigned long lo, hi;
                char *end;
                if (!isdigit((unsigned char) part[0]))
                        return xasprintf("'%s' is not a node number", shown);
                lo = strtoul(part, &end, 10);
                if (*end == '-' && isdigit((unsigned char) end[1])) {
                        hi = strtoul(end + 1, &end, 10);
                        if (!*end && hi < lo)
                                return xasprintf("the range %s goes down", shown);
                }
                if (*end)
                        return xasprintf("'%s' is not a node number or range", shown);
                p += len + (p[len] == ',');
        }
        if (r < 0)
                return xstrdup("not a list of node numbers");
        if (cpuset_is_empty(ret))
                return xstrdup("an empty list");
        return NULL;
}

int prepare_unit_user(struct unit_user *ret) {
        const char *name = getenv("USER");
        struct unit_user u = {0};

        if (geteuid() != 0 || !name || !*name || streq(name, "root"))
                return 0;
        int r = unit_user_lookup(name, &u);
        if (r == -ENOENT && booted_with_systemd()) {
                sd_bus *bus = NULL;
                uint32_t uid;
                int level = log_get_max_level();
                log_set_max_level(0); /* quietly: a failure is said below */
                if (bus_connect(&bus) >= 0 && bus_lookup_dynamic_user(bus, name, &uid) >= 0 && uid != 0) {
                        unit_user_dynamic(name, (uid_t) uid, &u);
                        r = 0;
                }
                log_set_max_level(level);
                bus_unrefp(&bus);
        }
        if (r < 0) {
                _cleanup_free_ char *shown = name_escape(name);
                log_warning("the unit's user %s ($USER) is unknown here: nothing prepared, since root would read "
                            "files that user may not",
                            shown);
                return -ENOENT;
        }
        *ret = u;
        return 1;
}

int prepare_become(const struct unit_user *u) {
        _cleanup_free_ char *shown = name_escape(u->name);
        int r = unit_user_become(u);
        if (r < 0)
                log_warning("cannot become the unit's user %s (%s): nothing prepared", shown, strerror(-r));
        else
                log_info("opening the model as %s (uid %d)", shown, (int) u->uid);
        return r;
}

int prepare_become_unit_user(void) {
        struct unit_user u = {0};
        int r = prepare_unit_user(&u);
        if (r > 0)
                r = prepare_become(&u);
        unit_user_done(&u);
        return r;
}

/* Takes GPU memory and NVM out of the nodes the pages go to, saying so; false when none is left.
 * A host whose nodes cannot be read keeps them: nothing says what they are. */
static bool drop_forbidden(struct root *root, struct cpuset *nodes) {
        _cleanup_topology_ struct topology *t = NULL;
        struct warnings w = {0};

        int r = topology_read(root, 0, &w, &t);
        warnings_done(&w);
        if (r < 0)
                return true;
        _cleanup_free_ char *dropped = memory_targets_check(t, nodes);
        if (dropped)
                log_warning("--nodes: %s", dropped);
        return !cpuset_is_empty(nodes);
}

int prepare_nodes_free(const struct globals *g, const struct cpuset *nodes, uint64_t *ret) {
        _cleanup_root_ struct root *root = NULL;
        uint64_t sum = 0;
        int r = root_open(g->sysfs_root, 0, &root);
        CPUSET_FOREACH(n, nodes) {
                _cleanup_free_ char *path = xasprintf("sys/devices/system/node/node%d/meminfo", n), *text = NULL;
                uint64_t v = 0;
                if (r >= 0)
                        r = root_read_file(root, path, &text, NULL);
                if (r >= 0)
                        r = meminfo_get(text, "MemFree", &v);
                sum += v;
        }
        if (r < 0)
                return r;
        *ret = sum;
        return 0;
}

int prepare_nodes(const struct globals *g, const char *value, struct cpuset *ret) {
        struct cpuset nodes, host;

        if (!value)
                return verb_usage_error("prepare", "--nodes LIST is required: the nodes to move the pages to");
        _cleanup_free_ char *problem = nodes_problem(value, &nodes), *shown = name_escape(value);
        if (problem)
                return verb_usage_error("prepare", "--nodes %s: %s (give node numbers, as NUMAMask= does: 1, 0-1)",
                                        shown, problem);
        _cleanup_root_ struct root *root = NULL;
        int r = root_open(g->sysfs_root, 0, &root);
        if (r < 0) {
                log_error_errno(r, "cannot open %s: %m", g->sysfs_root);
                return EXIT_ENV;
        }
        topology_read_node_ids(root, &host);
        struct cpuset missing = nodes;
        cpuset_andnot(&missing, &host);
        if (!cpuset_is_empty(&missing)) {
                _cleanup_free_ char *m = cpuset_format(&missing), *h = cpuset_format(&host);
                return verb_usage_error("prepare", "--nodes %s: this host has no node%s %s (its nodes: %s)", shown,
                                        cpuset_count(&missing) > 1 ? "s" : "", m, h);
        }
        if (!drop_forbidden(root, &nodes))
                return verb_usage_error("prepare",
                                        "--nodes %s: every node is GPU memory or NVM, where no replica's "
                                        "pages go",
                                        shown);
        *ret = nodes;
        return EXIT_OK;
}
