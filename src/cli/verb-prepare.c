/* SPDX-License-Identifier: MIT */
/* numaplan prepare: a model's page cache onto the replica's nodes, before its server starts. The
 * drop-in runs it as ExecStartPre=, so it never fails a start: whatever does not move is said,
 * and the server starts all the same. It runs as root (ExecStartPre=+), on files the server's
 * user may own: for a unit with User= or DynamicUser= it becomes that user before it opens any,
 * and below a named directory it follows no link out of the model's tree (host/model-files.h). */

#include <inttypes.h>

#include <unistd.h>

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/util.h"
#include "cli/moved.h"
#include "cli/prepare-checks.h"
#include "cli/prepare-nics.h"
#include "cli/verbs.h"
#include "live/migrate.h"
#include "live/copy-place.h"
#include "live/model-copy.h"
#include "host/model-files.h"
#include "host/unit-user.h"
#include "systemd/journal.h"

struct prepare_args {
        const char *nodes, *copy_to, *copy_size, *env_file, *nics, *nics_env;
        bool dry_run, spread;
};

static const struct verb_option options[] = {
        VERB_VALUE("nodes", 0, struct prepare_args, nodes, "LIST",
                   "the replica's nodes, as in NUMAMask= (\"1\", \"0-1\")"),
        VERB_VALUE("copy-to", 0, struct prepare_args, copy_to, "DIR",
                   "instead, copy them to DIR<PATH> (model-copies = per-node), on a tmpfs\n"
                   "bound to LIST mounted there, when the copy is missing or stale"),
        VERB_VALUE("copy-size", 0, struct prepare_args, copy_size, "SIZE",
                   "what that tmpfs must hold (every model copied there)"),
        VERB_VALUE("env-file", 0, struct prepare_args, env_file, "FILE",
                   "with --copy-to: write NUMAPLAN_MODEL=, the copy or the original, into FILE"),
        VERB_VALUE("nics", 0, struct prepare_args, nics, "LIST",
                   "the replica's network adapters, PCI addresses or interface names\n"
                   "(nics =): write the variables naming them to its servers"),
        VERB_VALUE("nics-env", 0, struct prepare_args, nics_env, "FILE",
                   "with --nics: the environment file to write them into"),
        VERB_FLAG("spread", 0, struct prepare_args, spread,
                  "spread the page cache evenly over LIST, page by page, and read in\n"
                  "what is not cached when the model fits their free memory"),
        VERB_FLAG("dry-run", 0, struct prepare_args, dry_run,
                  "only say where the cached pages are, or what would be copied"),
        {},
};

/* The copies' place, opened (and mounted) as root for the unit's user, who then copies what it
 * may read. Returns whether the copy was tried; *ret_first the outcome for the first model. */
static int copy_as_user(const struct prepare_args *a, const struct cpuset *nodes, uint64_t size, char **paths,
                        struct copy_stats *cs, enum copy_outcome *ret_first) {
        struct unit_user u = {0};
        struct copy_place place = {.fd = -1, .lock = -1};
        int r = prepare_unit_user(&u);
        bool as_user = r > 0;

        if (r >= 0) {
                struct copy_tmpfs fs = {.nodes = nodes,
                                        .size = size,
                                        .uid = as_user ? u.uid : geteuid(),
                                        .gid = as_user ? u.gid : getegid()};
                r = copy_place_open(a->copy_to, &fs, a->dry_run, &place);
        }
        if (r >= 0 && as_user && !a->dry_run)
                r = prepare_become(&u);
        unit_user_done(&u);
        if (r >= 0)
                *ret_first = model_copy_files(place.fd, place.dev, a->copy_to, paths, a->dry_run, cs);
        copy_place_done(&place); /* the lock: held until the copy is done */
        return r;
}

static void copy_report(const struct prepare_args *a, const struct copy_stats *cs, const char *reads, bool refused,
                        double t, const char *unit) {
        char bytes[FORMAT_BYTES_MAX];
        format_bytes(bytes, sizeof(bytes), cs->bytes);
        _cleanup_free_ char *shown = name_escape(reads), *dir = name_escape(a->copy_to);
        _cleanup_free_ char *line = xasprintf(
                "model copy in %s: %s%u file%s (%s) copied, %u up to date, %u link%s kept, in %.3f s; the server %s "
                "%s%s",
                dir, a->dry_run ? "(dry run) would have " : "", cs->files, cs->files == 1 ? "" : "s", bytes, cs->fresh,
                cs->links, cs->links == 1 ? "" : "s", t, a->dry_run ? "would read" : "reads", shown,
                refused       ? " (the original: no copy, said above)"
                : cs->partial ? " (no whole copy of every model: each without one links to its original, said above)"
                              : "");
        bool sent = false, bad = refused || cs->partial;
        if (unit) {
                char *fields[] = {xasprintf("NUMAPLAN_NODES=%s", a->nodes),
                                  xasprintf("NUMAPLAN_COPY_DIR=%s", a->copy_to),
                                  xasprintf("NUMAPLAN_COPIED_BYTES=%" PRIu64, cs->bytes),
                                  xasprintf("NUMAPLAN_MODEL_READ=%s", reads), NULL};
                sent = journal_event(JOURNAL_PREPARE, bad ? LOG_WARNING : LOG_INFO, unit, bad ? "partial" : "ok",
                                     fields, "%s: %s", unit, line);
                for (size_t k = 0; k < ELEMENTSOF(fields); k++)
                        free(fields[k]);
        }
        if (!sent)
                log_notice("%s", line);
}

/* --copy-to: model-copies = per-node. The server gets the whole, current copy of its model, or
 * the original, never part of one: NUMAPLAN_MODEL in --env-file says which, written as the
 * original before anything else, and as the copy once it is whole. */
static int copy(const struct prepare_args *a, const struct cpuset *nodes, char **paths, const char *unit) {
        struct copy_stats cs = {0};
        enum copy_outcome first = COPY_NONE;
        _cleanup_close_ int env = -1;
        uint64_t size;

        if (!a->copy_to || a->copy_to[0] != '/' || !a->copy_size)
                return verb_usage_error("prepare", "--copy-to DIR (an absolute path) and --copy-size SIZE go together");
        if (a->env_file && a->env_file[0] != '/')
                return verb_usage_error("prepare", "--env-file FILE must be an absolute path");
        if (parse_size(a->copy_size, &size) < 0)
                return verb_usage_error("prepare", "bad --copy-size '%s': expected a size such as 40G", a->copy_size);
        double t0 = moved_now();
        _cleanup_free_ char *copied = model_copy_path(a->copy_to, paths[0]);
        if (a->env_file && !a->dry_run)
                (void) model_env_open(a->env_file, paths[0], &env); /* said */
        int r = copy_as_user(a, nodes, size, paths, &cs, &first);
        bool whole = r >= 0 && first == COPY_WHOLE;
        if (env >= 0 && whole)
                (void) model_env_write(env, a->env_file, copied);
        copy_report(a, &cs, whole ? copied : paths[0], r < 0, moved_now() - t0, unit);
        return EXIT_OK;
}

/* --spread: the pages not cached yet are read in too when the model fits what the nodes have free,
 * so that each rank finds its share cached on its node, not read in wherever the first reader runs. */
static bool fits_free(const struct globals *g, const struct cpuset *nodes, char **paths) {
        uint64_t size = 0, in_pages = 0, free_bytes = 0;
        _cleanup_free_ char *bad = NULL;
        const char *what = NULL;
        if (model_files_size(paths, &size, &in_pages, &bad, &what) < 0 || prepare_nodes_free(g, nodes, &free_bytes) < 0)
                return false; /* said by the walk below, or unknown: nothing read in */
        char need[FORMAT_BYTES_MAX], have[FORMAT_BYTES_MAX];
        format_bytes(need, sizeof(need), size);
        format_bytes(have, sizeof(have), free_bytes);
        if (size > free_bytes)
                log_notice("the model (%s) is more than its nodes have free (%s): what is not cached is left for the "
                           "server's reads",
                           need, have);
        return size <= free_bytes;
}

/* One line: what was cached and where, what moved or was read in, and what did not. */
static void report(const struct prepare_args *a, const struct migrate_stats *st, int r, unsigned failed, double t,
                   const char *unit) {
        if (r < 0) {
                log_warning("the page cache of the model is left where it is: %s", strerror(-r));
                if (unit)
                        journal_event(JOURNAL_PREPARE, LOG_WARNING, unit, "failed", NULL,
                                      "%s: the page cache of the model is left where it is: %s", unit, strerror(-r));
                return;
        }
        char cached[FORMAT_BYTES_MAX];
        _cleanup_free_ char *what = moved_summary(st, t);
        format_bytes(cached, sizeof(cached), st->resident * st->page_size);
        _cleanup_free_ char *read_in = st->read_in ? xasprintf("%" PRIu64 " pages read in, ", st->read_in) : NULL;
        _cleanup_free_ char *line = xasprintf(
                "model page cache: %s cached, %s%" PRIu64 " of %" PRIu64 " pages %s node%s %s already; %s%s", cached,
                strempty(read_in), st->on_plan, st->resident, a->spread ? "in their even share over" : "on",
                strpbrk(a->nodes, ",-") ? "s" : "", a->nodes, a->dry_run ? "(dry run) would have " : "", what);
        bool partial = failed || migrate_failed(st), sent = false;
        if (unit) {
                char *fields[] = {
                        xasprintf("NUMAPLAN_NODES=%s", a->nodes),
                        xasprintf("NUMAPLAN_PAGES=%" PRIu64, st->resident),
                        xasprintf("NUMAPLAN_PAGES_MOVED=%" PRIu64, migrate_moved(st)),
                        xasprintf("NUMAPLAN_PAGES_NOT_MOVED=%" PRIu64, migrate_failed(st)),
                        NULL,
                };
                sent = journal_event(JOURNAL_PREPARE, partial ? LOG_WARNING : LOG_INFO, unit,
                                     partial ? "partial" : "ok", fields, "%s: %s", unit, line);
                for (size_t k = 0; k < ELEMENTSOF(fields); k++)
                        free(fields[k]);
        }
        if (!sent)
                log_notice("%s", line);
        if (st->failed[EACCES])
                log_warning("%" PRIu64 " of the cached pages are mapped by other running processes (another replica "
                            "on another node?) and stay where they are",
                            st->failed[EACCES]);
        if (failed)
                log_warning("%u file%s could not be prepared (said above)", failed, failed > 1 ? "s" : "");
}

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
        if (a->nics) {
                q = prepare_nics(g, a->nics, a->nics_env, a->dry_run);
                if (q != EXIT_OK || argc == 0) {
                        free(st);
                        return q;
                }
        } else if (a->nics_env) {
                free(st);
                return verb_usage_error("prepare", "--nics-env FILE goes with --nics LIST");
        }
        if (argc == 0) {
                free(st);
                return verb_usage_error("prepare", "name the model's files or directories, or --nics");
        }
        /* Run by systemd before a replica starts, its report is that unit's journal entry. */
        _cleanup_free_ char *unit = a->dry_run ? NULL : journal_stream_unit();
        if (a->copy_to || a->copy_size) {
                free(st);
                return copy(a, &nodes, argv, unit);
        }
        double t0 = moved_now();
        if (prepare_become_unit_user() < 0) {
                free(st);
                return EXIT_OK; /* said; the start goes on */
        }
        struct move_how how = {.dry = a->dry_run, .spread = a->spread};
        how.read_in = a->spread && !a->dry_run && fits_free(g, &nodes, argv);
        int r = migrate_files(argv, &nodes, &how, st, &failed);
        report(a, st, r, failed, moved_now() - t0, unit);
        free(st);
        return EXIT_OK;
}

const struct verb verb_prepare = {
        .name = "prepare",
        .rank = 70,
        .summary = "move a model's page cache onto nodes (run by the drop-ins)",
        .options = options,
        .args_size = sizeof(struct prepare_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan prepare --nodes LIST [--spread] [--copy-to DIR --copy-size SIZE [--env-file FILE]] [--nics "
                 "LIST --nics-env FILE] [--dry-run] [--] PATH...",
        .description = "Move the page cache of the files (and of every file under the directories) that sits\n"
                       "off the nodes in LIST onto them, page by page; pages not cached are left for the\n"
                       "server's own reads. The drop-in of a replica with model = runs this as root before the\n"
                       "server starts; for a unit with User= or DynamicUser= ($USER) it opens the files as that\n"
                       "user. Below a directory it follows only links that stay inside the model's tree. Says\n"
                       "what moved; exits 0 even when pages could not move, 2 for bad usage.\n"
                       "With --spread (a replica whose accelerators sit on several nodes), the cached pages\n"
                       "are spread evenly over LIST instead, and, when the model fits the nodes' free memory,\n"
                       "those not cached are read in first, interleaved over them.\n"
                       "With --copy-to, the server gets the whole copy or the original, never part of one;\n"
                       "a copy directory that is a link, another mount or another user's tmpfs is refused.\n"
                       "With --nics (the drop-in of a replica given network adapters by nics =), first, as\n"
                       "root: the adapters' interfaces and RDMA devices as they are named at the start, into\n"
                       "FILE as NUMAPLAN_NICS, NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, NCCL_IB_HCA and\n"
                       "UCX_NET_DEVICES, waiting up to 30 s while udev is still naming devices.",
};
