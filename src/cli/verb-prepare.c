/* SPDX-License-Identifier: MIT */
/* numaplan prepare: a model's page cache onto the replica's nodes, before its server starts. The
 * drop-in runs it as ExecStartPre=, so it never fails a start: whatever does not move is said,
 * and the server starts all the same. It runs as root (ExecStartPre=+), on files the server's
 * user may own: for a unit with User= or DynamicUser= it becomes that user before it opens any,
 * and below a named directory it follows no link out of the model's tree (host/model-files.h). */

#include <ctype.h>
#include <inttypes.h>

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/moved.h"
#include "cli/verbs.h"
#include "host/migrate.h"
#include "host/root.h"
#include "host/topology-read.h"
#include "host/unit-user.h"
#include "systemd/bus.h"

static void help(void) {
        printf("Usage: numaplan prepare --nodes LIST [--dry-run] [--] PATH...\n\n"
               "Move the page cache of the files (and of every file under the directories) that sits\n"
               "off the nodes in LIST onto them, page by page; pages not cached are left for the\n"
               "server's own reads. The drop-in of a replica with model = runs this as root before the\n"
               "server starts; for a unit with User= or DynamicUser= ($USER) it opens the files as that\n"
               "user. Below a directory it follows only links that stay inside the model's tree. Says\n"
               "what moved; exits 0 even when pages could not move, 2 for bad usage.\n\n"
               "      --nodes LIST    the replica's nodes, as in NUMAMask= (\"1\", \"0-1\")\n"
               "      --dry-run       only say where the cached pages are\n");
}

struct prepare_args {
        const char *nodes;
        bool dry_run;
};

static const struct verb_option options[] = {
        VERB_VALUE("nodes", 0, struct prepare_args, nodes),
        VERB_FLAG("dry-run", 0, struct prepare_args, dry_run),
        {},
};

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

/* For a unit with User= or DynamicUser=, systemd gives its commands, those run as root with '+'
 * too, that user's name in $USER: the files are opened as that user. A dynamic user that the
 * user database does not know (no nss-systemd) is asked of systemd, which allocated it. */
static int become_unit_user(void) {
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
        _cleanup_free_ char *shown = name_escape(name);
        if (r < 0) {
                log_warning("the unit's user %s ($USER) is unknown here: nothing prepared, since root would read "
                            "files that user may not",
                            shown);
                return -ENOENT;
        }
        r = unit_user_become(&u);
        if (r < 0)
                log_warning("cannot become the unit's user %s (%s): nothing prepared", shown, strerror(-r));
        else
                log_info("opening the model as %s (uid %d)", shown, (int) u.uid);
        unit_user_done(&u);
        return r;
}

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct prepare_args *a = args;
        struct cpuset nodes, host;
        unsigned failed = 0;

        if (!a->nodes)
                return verb_usage_error("prepare", "--nodes LIST is required: the nodes to move the pages to");
        _cleanup_free_ char *problem = nodes_problem(a->nodes, &nodes), *shown = name_escape(a->nodes);
        if (problem)
                return verb_usage_error("prepare", "--nodes %s: %s (give node numbers, as NUMAMask= does: 1, 0-1)", shown,
                                        problem);
        if (argc == 0)
                return verb_usage_error("prepare", "name the model's files or directories");

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
        if (become_unit_user() < 0)
                return EXIT_OK; /* said; the start goes on */

        struct migrate_stats *st = xmalloc0(sizeof(*st));
        double t0 = moved_now();
        r = migrate_files(argv, &nodes, a->dry_run, st, &failed);
        double t = moved_now() - t0;
        if (r < 0)
                log_warning("the page cache of the model is left where it is: %s", strerror(-r));
        else {
                char cached[FORMAT_BYTES_MAX];
                _cleanup_free_ char *what = moved_summary(st, t);
                format_bytes(cached, sizeof(cached), st->resident * st->page_size);
                log_notice("model page cache: %s cached, %" PRIu64 " of %" PRIu64 " pages on node%s %s already; %s%s",
                           cached, st->on_plan, st->resident, cpuset_count(&nodes) > 1 ? "s" : "", shown,
                           a->dry_run ? "(dry run) would have " : "", what);
                if (st->failed[EACCES])
                        log_warning("%" PRIu64 " of the cached pages are mapped by other running processes (another "
                                    "replica on another node?) and stay where they are",
                                    st->failed[EACCES]);
                if (failed)
                        log_warning("%u file%s could not be prepared (said above)", failed, failed > 1 ? "s" : "");
        }
        free(st);
        return EXIT_OK;
}

const struct verb verb_prepare = {
        .name = "prepare",
        .summary = "move a model's page cache onto nodes (run by the drop-ins)",
        .options = options,
        .args_size = sizeof(struct prepare_args),
        .max_args = -1,
        .run = run,
        .help = help,
};
