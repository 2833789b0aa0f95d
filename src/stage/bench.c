/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/observed.h"
#include "host/warmup.h"
#include "stage/bench.h"
#include "stage/state.h"
#include "stage/verify-units.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"
#include "systemd/systemd-dl.h"
#include "systemd/unit-state.h"

/* The signals that end a bench early, restored: set by their handler, read between steps, and
 * by libcurl between its reads. */
static volatile sig_atomic_t stop_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig) {
        stop_signal = sig;
}

static bool interrupted(void) {
        return stop_signal != 0;
}

static double now_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

struct bench_run {
        const struct inputs *in;
        const struct placement *pl;
        const struct bench_options *o;
        struct bench_report *rep;
        sd_bus *bus;
        struct warmup_client *client;
        char *path, *text; /* the arm's drop-in, and what it says */
        bool made_dir;     /* the unit's directory under /run was made for it */
        bool written;      /* it is there */
        bool loaded;       /* systemd has it: reloaded since it was written */
        bool runs_other;   /* the unit was last started while systemd had it */
        struct cpuset memory_nodes;
        double rounds_start, round_start; /* when the first round started, and this one */
        struct sigaction old[ELEMENTSOF(stop_signals)];
};

char *bench_dropin_path(const char *unit) {
        return xasprintf(UNIT_DIR_RUNTIME "/%s.d/" BENCH_DROPIN_NAME, unit);
}

static void catch_signals(struct bench_run *r) {
        struct sigaction sa = {.sa_handler = on_signal};
        sigemptyset(&sa.sa_mask);
        stop_signal = 0;
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++)
                sigaction(stop_signals[i], &sa, &r->old[i]);
}

static void release_signals(struct bench_run *r) {
        for (size_t i = 0; i < ELEMENTSOF(stop_signals); i++)
                sigaction(stop_signals[i], &r->old[i], NULL);
}

/* ---- the arm's drop-in ---- */

static int write_dropin(struct bench_run *r) {
        _cleanup_free_ char *dir = xstrndup(r->path, strrchr(r->path, '/') - r->path);
        struct stat st;
        bool existed = stat(dir, &st) == 0;
        int k = write_file_path(r->path, r->text, WRITE_VOLATILE);
        if (k < 0)
                return log_error_errno(k, "cannot write %s: %m", r->path);
        r->made_dir = r->made_dir || !existed;
        r->written = true;
        return 0;
}

static int remove_dropin(struct bench_run *r) {
        int k = write_file_path(r->path, NULL, WRITE_VOLATILE);
        if (k < 0)
                return log_error_errno(k, "cannot remove %s: %m", r->path);
        r->written = false;
        if (r->made_dir) { /* only the directory bench made, and only empty */
                _cleanup_free_ char *dir = xstrndup(r->path, strrchr(r->path, '/') - r->path);
                (void) rmdir(dir);
        }
        return 0;
}

/* systemd told of what is there now; a signal may cut a call short once, so it is asked again. */
static int sync_systemd(struct bench_run *r) {
        int k = 0;
        for (int tries = 0; r->written != r->loaded && tries < 3; tries++)
                if ((k = bus_reload(r->bus)) >= 0)
                        r->loaded = r->written;
        return r->written == r->loaded ? 0 : k;
}

static int set_arm(struct bench_run *r, enum bench_arm arm) {
        bool want = arm == BENCH_OTHER;
        int k = want == r->written ? 0 : want ? write_dropin(r) : remove_dropin(r);
        return k < 0 ? k : sync_systemd(r);
}

/* ---- a round ---- */

static void progress(struct bench_run *r, size_t k, const char *doing, unsigned request) {
        if (!r->o->progress)
                return;
        struct bench_step s = {.round = k,
                               .n_rounds = 2 * (size_t) r->o->rounds,
                               .arm = bench_round_arm(k),
                               .doing = doing,
                               .request = request,
                               .n_requests = r->o->requests,
                               .left_s = -1};
        /* Each round takes about as long as those before it. */
        if (k > 0) {
                double each = (r->round_start - r->rounds_start) / (double) k,
                       left = each * (double) (s.n_rounds - k) - (now_s() - r->round_start);
                s.left_s = left > 0 ? left : 0;
        }
        r->o->progress(&s, r->o->userdata);
}

static const struct placement *arm_placement(const struct bench_run *r, enum bench_arm arm, bool *ret_lifted) {
        *ret_lifted = arm == BENCH_OTHER && r->rep->other.against == BENCH_UNPINNED;
        return arm == BENCH_PLANNED ? r->pl : &r->rep->other.pl;
}

/* Whether the running unit is placed as `arm` says; why not in *ret_why. -errno: systemd gone. */
static int placed(struct bench_run *r, enum bench_arm arm, char **ret_why) {
        struct unit_state s;
        bool lifted;
        const struct placement *want = arm_placement(r, arm, &lifted);
        int k = unit_state_read(r->bus, r->pl->unit, &s);
        if (k < 0)
                return k;
        k = bench_reached(want, lifted, &s, &r->memory_nodes, ret_why);
        unit_state_done(&s);
        return k;
}

/* A start afresh: its start limit's count reset first, so 2N starts never trip it. 1: it did
 * not start; -errno: systemd gone. */
static int restart(struct bench_run *r) {
        char *units[] = {r->pl->unit, NULL};
        (void) bus_reset_failed(r->bus, r->pl->unit);
        int k = bus_restart_units(r->bus, units);
        r->runs_other = r->loaded;
        return k;
}

/* Started, answering, placed as the arm says: NULL, or why the round does not count. -errno in
 * *ret_error when systemd is gone. */
static char *start_round(struct bench_run *r, size_t k, int *ret_error) {
        enum bench_arm arm = bench_round_arm(k);
        struct warmup_result w = {0};
        char *why = NULL;

        progress(r, k, "starting", 0);
        *ret_error = set_arm(r, arm);
        if (*ret_error < 0)
                return xstrdup("systemd did not take the arm's drop-in");
        *ret_error = restart(r);
        if (*ret_error != 0)
                return *ret_error > 0 ? xasprintf("the unit did not start (journalctl -u %s)", r->pl->unit)
                                      : xstrdup("systemd is gone");
        progress(r, k, "waiting for it to answer", 0);
        warmup_client_wait(r->client, r->pl->warmup_timeout_ms, &w);
        if (!w.ok)
                why = xasprintf("it did not answer: %s", w.detail);
        free(w.detail);
        if (!why && (*ret_error = placed(r, arm, &why)) < 0)
                return xstrdup("systemd is gone");
        if (!why && bench_round_arm(k) == BENCH_OTHER && r->rep->other.against == BENCH_REMOTE)
                log_info("round %zu: %s runs on node %d", k + 1, r->pl->unit, r->rep->other.node);
        return why;
}

static void time_request(struct bench_run *r, struct bench_round *round) {
        struct timed_answer a;
        warmup_client_time(r->client, r->pl->warmup_timeout_ms, &a);
        if (a.ok)
                bench_round_add(round, a.ms, a.tokens >= 0 && a.ms > 0 ? (double) a.tokens * 1000 / a.ms : -1);
        else if (!stop_signal) { /* one the signal cut short is no answer of the server's */
                round->failed++;
                log_debug("%s: a request failed: %s", r->pl->unit, a.error);
        }
        free(a.error);
}

/* One round: its arm set, a start, one warm-up, the timed requests. -errno: systemd gone. */
static int run_round(struct bench_run *r, size_t k) {
        struct bench_round *round = &r->rep->rounds[k];
        int error = 0;

        *round = (struct bench_round){.arm = bench_round_arm(k)};
        r->rep->n_rounds = k + 1;
        r->round_start = now_s();
        round->discarded = start_round(r, k, &error);
        if (!round->discarded) {
                struct timed_answer warm;
                warmup_client_time(r->client, r->pl->warmup_timeout_ms, &warm);
                free(warm.error);
                for (unsigned i = 0; i < r->o->requests && !stop_signal; i++) {
                        progress(r, k, "timing", i + 1);
                        time_request(r, round);
                }
        }
        if (stop_signal && !round->discarded)
                round->discarded = xstrdup("interrupted");
        if (round->discarded)
                log_warning("round %zu (%s) discarded: %s", k + 1, bench_arm_name(round->arm, r->o->against),
                            round->discarded);
        return error < 0 ? error : 0;
}

/* ---- before and after ---- */

/* verify's checks of a placement: first those of the unit's settings, which systemd has of a
 * stopped unit too, then those of a running one. */
static const unsigned placement_checks[] = {CHECK_DROPIN_IN_EFFECT, CHECK_NUMA_POLICY,    CHECK_NUMA_MASK,
                                            CHECK_CPU_AFFINITY,     CHECK_EFFECTIVE_CPUS, CHECK_EFFECTIVE_MEMORY_NODES,
                                            CHECK_TASK_AFFINITY,    CHECK_MEMORY_LOCALITY};
#define SETTINGS_CHECKS 4

/* verify's view of the replica: a running one must hold its placement (a bench of one that does
 * not would measure something else), a stopped one must have its drop-in loaded. */
static int preflight(struct bench_run *r) {
        struct unit_report *u = NULL;
        int k = verify_units(r->in, &r->pl, 1, &(struct verify_options){0}, &u);
        if (k == EXIT_OK) {
                r->rep->was_running = u[0].checks[CHECK_UNIT_ACTIVE].ok;
                for (size_t i = 0; i < ELEMENTSOF(placement_checks) && k == EXIT_OK; i++) {
                        const struct check *c = &u[0].checks[placement_checks[i]];
                        if (c->ok || (!r->rep->was_running && i >= SETTINGS_CHECKS))
                                continue;
                        log_error("%s: %s fails (%s): bench measures a placement that holds, and this one does "
                                  "not; numaplan verify %s says more",
                                  r->pl->unit, check_name(placement_checks[i]), c->detail ? c->detail : c->got,
                                  r->pl->unit);
                        k = EXIT_FAILED;
                }
        }
        unit_reports_free(u, 1);
        return k;
}

/* The time it takes, said before it starts; a running replica is asked once now, for how long a
 * request takes. */
static void say_estimate(struct bench_run *r) {
        const struct bench_options *o = r->o;
        size_t rounds = 2 * (size_t) o->rounds, requests = rounds * (1 + (size_t) o->requests);
        _cleanup_free_ char *each = NULL;

        if (r->rep->was_running) {
                struct timed_answer a;
                warmup_client_time(r->client, r->pl->warmup_timeout_ms, &a);
                if (a.ok)
                        each = xasprintf(", about %.0f s of requests (one takes %.2f s now)",
                                         (double) requests * a.ms / 1000 + 0.5, a.ms / 1000);
                free(a.error);
        }
        log_notice("bench %s: %zu rounds (A B B A ...: A planned, B %s), each a restart of %s, a wait for "
                   "it to answer, one warm-up and %u timed requests: %zu restarts and %zu requests%s, and the time "
                   "each start takes",
                   r->pl->name, rounds, bench_against_name(o->against), r->pl->unit, o->requests, rounds, requests,
                   strempty(each));
}

static void left(struct strbuf *b, const char *fmt, ...) _printf_(2, 3);
static void left(struct strbuf *b, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *s = xvasprintf(fmt, ap);
        va_end(ap);
        strbuf_printf(b, "%s%s", b->len ? "; " : "", s);
}

/* Running as it ran, placed by its own drop-in: as it runs when its last start was so (an even
 * number of rounds ends with a planned one), else started again. */
static void restore_running(struct bench_run *r, struct strbuf *b) {
        _cleanup_free_ char *why = NULL;
        int k = r->runs_other ? 0 : placed(r, BENCH_PLANNED, &why);
        bool restarted = false;
        if (k <= 0) {
                why = mfree(why);
                k = restarted = restart(r) == 0;
        }
        if (restarted) {
                struct warmup_result w;
                warmup_client_wait(r->client, r->pl->warmup_timeout_ms, &w);
                if (!w.ok)
                        log_warning("%s: started again, but it does not answer yet: %s", r->pl->unit, w.detail);
                free(w.detail);
                k = placed(r, BENCH_PLANNED, &why);
        }
        if (k <= 0)
                left(b,
                     "%s does not run placed by its own drop-in%s%s%s: systemctl restart %s, and see journalctl -u %s",
                     r->pl->unit, why ? " (" : "", strempty(why), why ? ")" : "", r->pl->unit, r->pl->unit);
}

static void restore_stopped(struct bench_run *r, struct strbuf *b) {
        char *units[] = {r->pl->unit, NULL};
        _cleanup_free_ char *state = NULL;
        if (bus_stop_units(r->bus, units) != 0 ||
            bus_unit_string(r->bus, r->pl->unit, SD_UNIT, "ActiveState", &state) < 0 ||
            !(streq(state, "inactive") || streq(state, "failed")))
                left(b, "%s was stopped before the bench and is not now: systemctl stop %s", r->pl->unit, r->pl->unit);
        (void) bus_reset_failed(r->bus, r->pl->unit); /* a failed start of the bench's is not the unit's */
}

/* Whatever happened: the arm's drop-in gone, systemd told, the unit as it was. */
static void restore(struct bench_run *r) {
        struct strbuf b = {0};

        r->rep->signal = stop_signal;
        stop_signal = 0; /* the restore's waits must run; a second signal cuts them short */
        if (r->written && remove_dropin(r) < 0)
                left(&b, "%s is still there: remove it, then systemctl daemon-reload and systemctl restart %s", r->path,
                     r->pl->unit);
        else if (sync_systemd(r) < 0)
                left(&b, "systemd has not reloaded without %s: systemctl daemon-reload, then systemctl restart %s",
                     r->path, r->pl->unit);
        else if (r->rep->was_running)
                restore_running(r, &b);
        else
                restore_stopped(r, &b);
        r->rep->restored = b.len == 0;
        r->rep->left = b.len ? strbuf_steal(&b) : NULL;
        if (!r->rep->signal)
                r->rep->signal = stop_signal;
}

/* ---- the whole ---- */

/* What is checked before anything is done: the other arm, systemd, the lock, no bench's drop-in
 * left over. Returns an exit code; *ret_lock the lock's descriptor. */
static int prepare(struct bench_run *r, int *ret_lock) {
        const struct inputs *in = r->in;
        struct stat st;
        int node;

        *ret_lock = -1;
        if (r->o->against == BENCH_UNPINNED)
                bench_place_unpinned(in->topology, r->pl, &r->rep->other);
        else if (bench_remote_node(in->topology, r->pl, &node) < 0) {
                log_error("%s: this host has no other node with CPUs and memory to be remote on: try --against "
                          "unpinned",
                          r->pl->name);
                return EXIT_USAGE;
        } else
                bench_place_remote(in->topology, r->pl, node, &r->rep->other);
        if (bus_connect(&r->bus) < 0 || bus_check_version(r->bus) < 0)
                return EXIT_ENV;
        int k = mkdir_parents(STATE_RUNTIME_DIR, 0755);
        if (k >= 0)
                k = *ret_lock = lock_file(STATE_RUNTIME_DIR "/" STATE_BENCH_LOCK, 0);
        if (k < 0) {
                if (k == -ETIMEDOUT)
                        log_error("another numaplan bench runs on this host: one at a time");
                else
                        log_error_errno(k, "cannot take " STATE_RUNTIME_DIR "/" STATE_BENCH_LOCK ": %m");
                return EXIT_ENV;
        }
        r->path = bench_dropin_path(r->pl->unit);
        if (stat(r->path, &st) == 0) {
                log_error("%s is there: a bench that could not restore left it. Remove it, then systemctl "
                          "daemon-reload and systemctl restart %s",
                          r->path, r->pl->unit);
                return EXIT_ENV;
        }
        if (warmup_client_new(r->pl->warmup_url, r->pl->warmup_body, interrupted, &r->client) < 0) {
                log_error("libcurl is needed to time requests (Debian: libcurl4)");
                return EXIT_ENV;
        }
        r->text = bench_dropin_render(&r->rep->other, in->topology, in->config, in->plan, &in->env);
        /* The same check as every drop-in apply writes, before the first restart. */
        if (unit_text_check(r->path, r->text) < 0)
                return EXIT_USAGE;
        r->memory_nodes = bench_memory_nodes(in->topology);
        return EXIT_OK;
}

static int run_rounds(struct bench_run *r) {
        size_t n = 2 * (size_t) r->o->rounds;
        int k = 0;

        catch_signals(r);
        r->rounds_start = now_s();
        for (size_t i = 0; i < n && !stop_signal && k >= 0; i++)
                k = run_round(r, i);
        restore(r);
        release_signals(r);
        return k;
}

/* The exit code for how it ended. */
static int outcome(const struct bench_run *r, int error) {
        struct bench_ratio ratio;
        if (!r->rep->restored) {
                log_error("%s: not restored: %s", r->pl->unit, r->rep->left);
                return EXIT_ENV;
        }
        if (r->rep->signal)
                return 128 + r->rep->signal;
        if (error < 0)
                return EXIT_ENV;
        bench_ratio(r->rep->rounds, r->rep->n_rounds, BENCH_SEED, 1, &ratio);
        if (!ratio.known) {
                log_error("%s: no round of each arm was answered: no ratio", r->pl->unit);
                return EXIT_FAILED;
        }
        return EXIT_OK;
}

int bench_replica(const struct inputs *in, const struct placement *pl, const struct bench_options *o,
                  struct bench_report *ret) {
        struct bench_run r = {.in = in, .pl = pl, .o = o, .rep = ret};
        double t0 = now_s();
        int lock = -1, k;

        *ret = (struct bench_report){.pl = pl, .restored = true};
        ret->rounds = xmalloc0((2 * (size_t) o->rounds + 1) * sizeof(*ret->rounds));
        k = prepare(&r, &lock);
        if (k == EXIT_OK)
                k = preflight(&r);
        if (k == EXIT_OK) {
                say_estimate(&r);
                k = outcome(&r, run_rounds(&r));
        }
        ret->seconds = now_s() - t0;
        warmup_client_free(r.client);
        bus_unrefp(&r.bus);
        free(r.path);
        free(r.text);
        if (lock >= 0)
                close(lock);
        return k;
}

void bench_report_done(struct bench_report *r) {
        for (size_t i = 0; i < r->n_rounds; i++)
                bench_round_done(&r->rounds[i]);
        free(r->rounds);
        free(r->left);
        *r = (struct bench_report){0};
}
