/* SPDX-License-Identifier: MIT */
/* numaplan bench: what a replica's placement is worth on this host, measured in place: the
 * replica as its drop-in places it against the same replica on the node farthest from its
 * accelerators (or unpinned), in rounds A B B A ..., each a restart; then the unit as it was. */

#include <signal.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/table.h"
#include "basic/util.h"
#include "cli/verbs.h"
#include "core/bench-arm.h"
#include "core/bench.h"
#include "core/placement.h"
#include "core/unit-name.h"
#include "host/root.h"
#include "stage/bench.h"
#include "stage/inputs.h"

#define ROUNDS_DEFAULT 4
#define ROUNDS_MAX 100
#define REQUESTS_DEFAULT 20
#define REQUESTS_MAX 10000

struct bench_args {
        const char *config, *rounds, *requests, *against;
        bool json;
};

static const struct verb_option options[] = {
        VERB_CONFIG(struct bench_args),
        VERB_VALUE("rounds", 0, struct bench_args, rounds, "N",
                   "rounds of each arm, each a restart of the unit (default 4)"),
        VERB_VALUE("requests", 0, struct bench_args, requests, "N", "timed requests a round (default 20)"),
        VERB_VALUE("against", 0, struct bench_args, against, "ARM",
                   "remote (default: on the node farthest from its accelerators)\n"
                   "or unpinned (numaplan's drop-in lifted)"),
        VERB_FLAG("json", 0, struct bench_args, json, "one JSON document on stdout (numaplan(8) lists its keys)"),
        {},
};

/* ---- output ---- */

static const char *signal_name(int sig) {
        return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* The words of the sentence, from where the other arm ran and what the replica's devices are. */
static char *sentence(const struct inputs *in, const struct bench_report *rep, const struct bench_ratio *ratio) {
        _cleanup_free_ char *home = cpuset_format(&rep->pl->nodes);
        struct bench_words w = {.against = rep->other.against,
                                .node = rep->other.node,
                                .accelerator = bench_accelerator_words(in->topology, rep->pl),
                                .home = home};
        return bench_sentence(&w, ratio);
}

static json_object *number_or_null(double v, bool known) {
        return known ? json_object_new_double(v) : NULL;
}

static json_object *arm_json(const struct bench_report *rep, enum bench_arm arm) {
        const struct placement *pl = arm == BENCH_PLANNED ? rep->pl : &rep->other.pl;
        struct bench_arm_figures f;
        json_object *o = json_object_new_object();

        bench_arm_figures(rep->rounds, rep->n_rounds, arm, &f);
        json_object_object_add(o, "p50_ms", number_or_null(f.p50_ms, f.requests > 0));
        json_object_object_add(o, "p99_ms", number_or_null(f.p99_ms, f.requests > 0));
        json_object_object_add(o, "tokens_per_s", number_or_null(f.tokens_per_s, f.tokens_per_s >= 0));
        json_object_object_add(o, "requests", json_uint64(f.requests));
        json_object_object_add(o, "failed", json_uint64(f.failed));
        json_object_object_add(o, "rounds", json_uint64(f.rounds));
        json_object_object_add(o, "discarded", json_uint64(f.discarded));
        json_object_object_add(o, "cpus", json_cpuset(&pl->cpus));
        json_object_object_add(o, "nodes", json_cpuset(&pl->nodes));
        if (arm == BENCH_OTHER && rep->other.against == BENCH_REMOTE)
                json_object_object_add(o, "node", json_object_new_int(rep->other.node));
        return o;
}

static void print_json(const struct inputs *in, const struct bench_report *rep, const struct bench_options *o) {
        _cleanup_json_ json_object *doc = json_object_new_object();
        json_object *arms = json_object_new_object(), *ratio = json_object_new_object(),
                    *p50 = json_object_new_object(), *discarded = json_object_new_array();
        struct bench_ratio r;
        bench_ratio(rep->rounds, rep->n_rounds, BENCH_SEED, BENCH_RESAMPLES, &r);
        _cleanup_free_ char *summary = sentence(in, rep, &r);

        json_object_object_add(arms, "planned", arm_json(rep, BENCH_PLANNED));
        json_object_object_add(arms, bench_against_name(o->against), arm_json(rep, BENCH_OTHER));
        json_object_object_add(p50, "estimate", number_or_null(r.estimate, r.known));
        json_object_object_add(p50, "low", number_or_null(r.low, r.known));
        json_object_object_add(p50, "high", number_or_null(r.high, r.known));
        json_object_object_add(ratio, "p50", p50);
        json_object_object_add(ratio, "pairs", json_uint64(r.pairs));
        for (size_t i = 0; i < rep->n_rounds; i++) {
                if (!rep->rounds[i].discarded)
                        continue;
                json_object *d = json_object_new_object();
                json_object_object_add(d, "round", json_uint64(i + 1));
                json_object_object_add(d, "arm",
                                       json_object_new_string(bench_arm_name(rep->rounds[i].arm, o->against)));
                json_object_object_add(d, "why", json_object_new_string(rep->rounds[i].discarded));
                json_object_array_add(discarded, d);
        }
        json_object_object_add(doc, "replica", json_object_new_string(rep->pl->name));
        json_object_object_add(doc, "unit", json_object_new_string(rep->pl->unit));
        json_object_object_add(doc, "against", json_object_new_string(bench_against_name(o->against)));
        json_object_object_add(doc, "rounds", json_uint64(o->rounds));
        json_object_object_add(doc, "requests", json_uint64(o->requests));
        json_object_object_add(doc, "arms", arms);
        json_object_object_add(doc, "ratio", ratio);
        json_object_object_add(doc, "summary", json_object_new_string(summary));
        json_object_object_add(doc, "discarded", discarded);
        json_object_object_add(doc, "was_running", json_object_new_boolean(rep->was_running));
        json_object_object_add(doc, "restored", json_object_new_boolean(rep->restored));
        json_object_object_add(doc, "left", json_string_or_null(rep->left));
        json_object_object_add(doc, "interrupted_by",
                               rep->signal ? json_object_new_string(signal_name(rep->signal)) : NULL);
        json_object_object_add(doc, "seconds", json_object_new_double(rep->seconds));
        json_print(doc);
}

static void add_arm_row(struct table *t, const struct bench_report *rep, enum bench_arm arm) {
        const struct placement *pl = arm == BENCH_PLANNED ? rep->pl : &rep->other.pl;
        _cleanup_free_ char *cpus = cpuset_format(&pl->cpus), *nodes = cpuset_format(&pl->nodes);
        struct bench_arm_figures f;

        bench_arm_figures(rep->rounds, rep->n_rounds, arm, &f);
        table_add(t, bench_arm_name(arm, rep->other.against));
        table_add(t, cpus);
        table_add(t, nodes);
        if (f.requests) {
                table_addf(t, "%.1f ms", f.p50_ms);
                table_addf(t, "%.1f ms", f.p99_ms);
        } else {
                table_add(t, "-");
                table_add(t, "-");
        }
        if (f.tokens_per_s >= 0)
                table_addf(t, "%.1f", f.tokens_per_s);
        else
                table_add(t, "-");
        table_addf(t, "%zu", f.requests);
        table_addf(t, "%zu", f.failed);
        if (f.discarded)
                table_addf(t, "%zu (%zu discarded)", f.rounds, f.discarded);
        else
                table_addf(t, "%zu", f.rounds);
}

static void print_text(const struct inputs *in, const struct bench_report *rep, const struct bench_options *o) {
        static const char *const headers[] = {"arm",       "CPUs",      "nodes",   ">p50",   ">p99",
                                              ">tokens/s", ">answered", ">failed", ">rounds"};
        _cleanup_table_ struct table *t = table_new(headers, ELEMENTSOF(headers));
        struct bench_ratio r;
        bench_ratio(rep->rounds, rep->n_rounds, BENCH_SEED, BENCH_RESAMPLES, &r);
        _cleanup_free_ char *summary = sentence(in, rep, &r);

        _cleanup_free_ char *node = rep->other.node >= 0 ? xasprintf(" (node %d)", rep->other.node) : NULL;
        printf("%s (%s): planned against %s%s, %u round%s of each (A B B A ...), %u timed request%s a round\n",
               rep->pl->name, rep->pl->unit, bench_against_name(o->against), strempty(node), o->rounds,
               o->rounds == 1 ? "" : "s", o->requests, o->requests == 1 ? "" : "s");
        add_arm_row(t, rep, BENCH_PLANNED);
        add_arm_row(t, rep, BENCH_OTHER);
        table_print(t, stdout, "  ");
        printf("%s", summary);
        if (r.known)
                printf(" (95%%, a paired bootstrap over %zu pair%s of rounds)", r.pairs, r.pairs == 1 ? "" : "s");
        printf("\n");
        if (rep->restored)
                printf("restored: %s %s placed by its own drop-in\n", rep->pl->unit,
                       rep->was_running ? "runs" : "is stopped, as it was, and");
        else
                printf("NOT restored: %s\n", rep->left);
}

/* ---- progress, on a terminal ---- */

static void show_progress(const struct bench_step *s, void *userdata) {
        const struct bench_options *o = userdata;
        char left[32] = "";
        if (s->left_s >= 0)
                snprintf(left, sizeof(left), ", about %.0f s left", s->left_s);
        fprintf(stderr, "\r\033[Kround %zu/%zu (%s): %s", s->round + 1, s->n_rounds, bench_arm_name(s->arm, o->against),
                s->doing);
        if (s->request)
                fprintf(stderr, " %u/%u", s->request, s->n_requests);
        fprintf(stderr, "%s", left);
        fflush(stderr);
}

/* ---- the verb ---- */

static int parse_count(const char *option, const char *value, unsigned def, unsigned max, unsigned *ret) {
        uint64_t v;
        *ret = def;
        if (!value)
                return 0;
        if (parse_uint64(value, 10, &v) < 0 || v < 1 || v > max)
                return verb_usage_error("bench", "--%s: '%s' is not a number from 1 to %u", option, value, max);
        *ret = (unsigned) v;
        return 0;
}

static int parse_args(const struct bench_args *a, int argc, struct bench_options *o) {
        *o = (struct bench_options){0};
        if (a->against && bench_against_from_string(a->against, &o->against) < 0)
                return verb_usage_error("bench", "--against: '%s' is neither remote nor unpinned", a->against);
        if (parse_count("rounds", a->rounds, ROUNDS_DEFAULT, ROUNDS_MAX, &o->rounds) ||
            parse_count("requests", a->requests, REQUESTS_DEFAULT, REQUESTS_MAX, &o->requests))
                return EXIT_USAGE;
        if (argc != 1)
                return verb_usage_error("bench",
                                        argc ? "one replica at a time" : "which replica? Name it, or its unit");
        return 0;
}

/* A replica by its name (r0) or its unit's (r0.service, or r0 for the service). */
static const struct placement *find_replica(const struct plan *p, const char *arg) {
        _cleanup_free_ char *unit = unit_name_mangle(arg);
        for (size_t i = 0; i < p->n_replicas; i++)
                if (streq(p->replicas[i].name, arg))
                        return &p->replicas[i];
        for (size_t i = 0; i < p->n_replicas; i++)
                if (streq(p->replicas[i].unit, unit))
                        return &p->replicas[i];
        return NULL;
}

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct bench_args *a = args;
        _cleanup_inputs_ struct inputs in = {0};
        struct bench_options o;
        struct bench_report rep = {0};

        int r = parse_args(a, argc, &o);
        if (r != 0)
                return r;
        r = inputs_load(g, a->config, false, 0, &in);
        if (r != EXIT_OK)
                return r;
        const struct placement *pl = find_replica(in.plan, argv[0]);
        if (!pl) {
                log_error("%s is neither a replica of the configuration nor its unit", argv[0]);
                return EXIT_USAGE;
        }
        const char *why;
        if (!unit_name_is_valid_service(pl->unit, &why)) { /* before a path under /run is made of it */
                log_error("%s: unit '%s' %s", pl->name, pl->unit, why);
                return EXIT_USAGE;
        }
        if (!pl->warmup_url) {
                log_error(
                        "%s: bench times requests to its warmup-url, and it has none (numaplan.conf(5)): nothing done",
                        pl->name);
                return EXIT_USAGE;
        }
        if (!root_is_live(in.root))
                return verb_usage_error("bench", "it restarts this host's units: not with --sysfs-root");
        if (isatty(STDERR_FILENO)) {
                o.progress = show_progress;
                o.userdata = &o;
        }
        r = bench_replica(&in, pl, &o, &rep);
        if (o.progress)
                fprintf(stderr, "\r\033[K");
        if (rep.n_rounds > 0 && a->json)
                print_json(&in, &rep, &o);
        else if (rep.n_rounds > 0)
                print_text(&in, &rep, &o);
        bench_report_done(&rep);
        return r;
}

const struct verb verb_bench = {
        .name = "bench",
        .rank = 65,
        .summary = "measure what a replica's placement is worth, in place",
        .options = options,
        .args_size = sizeof(struct bench_args),
        .max_args = -1,
        .run = run,
        .usage = "numaplan bench [-c FILE] [--rounds N] [--requests N] [--against remote|unpinned] [--json] REPLICA",
        .description = "Time a replica as its drop-in places it against the same replica on the node farthest\n"
                       "from its accelerators (or with numaplan's drop-in lifted), in rounds A B B A ..., each\n"
                       "a restart of its unit with a runtime drop-in of bench's own, a wait for it to answer,\n"
                       "one warm-up and timed requests to its warmup-url. Prints each arm's latency p50 and\n"
                       "p99 and tokens per second, and the ratio of the medians with a 95% interval. The unit\n"
                       "ends as it was, placed by its own drop-in, whatever happens. It restarts the unit\n"
                       "2N times: a staging host, or a replica out of its load balancer. Root only.",
};
