/* SPDX-License-Identifier: MIT */
/* numaplan prepare: a model's page cache onto the replica's nodes, before its server starts. The
 * drop-in runs it as ExecStartPre=, so it never fails a start: whatever does not move is said,
 * and the server starts all the same. It runs as root (ExecStartPre=+), on files the server's
 * user may own: for a unit with User= or DynamicUser= it becomes that user before it opens any,
 * and below a named directory it follows no link out of the model's tree (host/model-files.h). */

#include <inttypes.h>

#include "basic/log.h"
#include "basic/util.h"
#include "cli/moved.h"
#include "cli/prepare-checks.h"
#include "cli/verbs.h"
#include "host/migrate.h"

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

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct prepare_args *a = args;
        struct cpuset nodes;
        struct migrate_stats *st = xmalloc0(sizeof(*st));
        unsigned failed = 0;

        int q = prepare_nodes(g, a->nodes, &nodes);
        if (q != EXIT_OK) {
                free(st);
                return q;
        }
        if (argc == 0) {
                free(st);
                return verb_usage_error("prepare", "name the model's files or directories");
        }
        double t0 = moved_now();
        if (prepare_become_unit_user() < 0) {
                free(st);
                return EXIT_OK; /* said; the start goes on */
        }
        int r = migrate_files(argv, &nodes, a->dry_run, st, &failed);
        double t = moved_now() - t0;
        if (r < 0)
                log_warning("the page cache of the model is left where it is: %s", strerror(-r));
        else {
                char cached[FORMAT_BYTES_MAX];
                _cleanup_free_ char *what = moved_summary(st, t);
                format_bytes(cached, sizeof(cached), st->resident * st->page_size);
                log_notice("model page cache: %s cached, %" PRIu64 " of %" PRIu64 " pages on node%s %s already; %s%s",
                         cached, st->on_plan, st->resident, cpuset_count(&nodes) > 1 ? "s" : "", a->nodes,
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
