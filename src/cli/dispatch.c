/* SPDX-License-Identifier: MIT */
/* numaplan's command line: the global options and the verb table. Each verb lives in
 * verb-<name>.c with its own options and help text. */

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/pager.h"
#include "basic/terminal.h"
#include "basic/util.h"
#include "cli/dispatch.h"
#include "cli/output.h"
#include "cli/verbs.h"
#include "systemd/generator-files.h"

void cli_help(FILE *f) {
        fprintf(f, "Usage: numaplan [OPTIONS] COMMAND [ARGS...]\n\n"
                   "Place LLM inference replicas on the NUMA nodes of their accelerators, with systemd\n"
                   "drop-ins, and prove that the placement held.\n\nCommands:\n");
        for (size_t i = 0; i < n_verbs; i++)
                fprintf(f, "  %-10s %s\n", verbs[i]->name, verbs[i]->summary);
        fprintf(f, "\nGlobal options (before or after the command):\n"
                   "      --sysfs-root DIR   read DIR/sys and DIR/proc instead of /sys and /proc\n"
                   "      --unit-dir DIR     where drop-ins go (default /etc/systemd/system)\n"
                   "      --runtime-dir DIR  where apply keeps its lock and its success marker (default\n"
                   "                         /run/numaplan; with --unit-dir elsewhere, DIR/.numaplan there)\n"
                   "      --generator-dir DIR  the drop-ins are numaplan-generator's, in DIR (default\n"
                   "                         " GENERATOR_DIR " when the generator is installed)\n"
                   "      --no-pager         never page the output (default: a pager on a terminal,\n"
                   "                         $SYSTEMD_PAGER, else $PAGER, else less -FRSXMK)\n"
                   "      --no-color         no colour (default: on a terminal, unless $NO_COLOR)\n"
                   "  -q, --quiet            print errors only\n"
                   "  -v, --verbose          print more (twice: debug)\n"
                   "  -h, --help             this help; with a command, that command's help\n"
                   "      --version          print the version\n"
                   "\nExit codes: 0 ok, 1 verification failed or changes pending, 2 bad usage or\n"
                   "configuration, 3 environment problem. See numaplan(8).\n");
}

const struct verb *cli_find_verb(const char *name) {
        /* Exact names only: a prefix that happens to be unique today would break scripts tomorrow. */
        for (size_t i = 0; i < n_verbs; i++)
                if (streq(verbs[i]->name, name))
                        return verbs[i];
        return NULL;
}

char *cli_nearest_verb(const char *word) {
        _cleanup_free_ const char **names = xmalloc0(n_verbs * sizeof(char *));
        for (size_t i = 0; i < n_verbs; i++)
                names[i] = verbs[i]->name;
        return suggest(word, names, n_verbs);
}

bool cli_names_command(int argc, char **argv) {
        for (int i = 1; i < argc; i++)
                if (cli_find_verb(argv[i]))
                        return true;
        return false;
}

/* An option of some verb, given before the verb is known: whether it takes a value decides
 * whether the next word is its value or the verb. */
static const struct verb_option *any_verb_option(const char *arg) {
        for (size_t i = 0; i < n_verbs; i++) {
                const struct verb_option *o = verb_find_option(verbs[i], arg);
                if (o)
                        return o;
        }
        return NULL;
}

/* Matches "--name VALUE" and "--name=VALUE"; advances *i past a separate value. */
static int take_value(int argc, char **argv, int *i, const char *name, const char **ret) {
        const char *a = argv[*i], *rest = startswith(a, name);

        if (!rest)
                return 0;
        if (*rest == '=') {
                *ret = rest + 1;
                return 1;
        }
        if (*rest)
                return 0;
        if (*i + 1 >= argc) {
                fprintf(stderr, "numaplan: option %s needs a value\n", name);
                return -1;
        }
        *ret = argv[++*i];
        return 1;
}

/* The directories reach the drop-ins (their marker, the model copies' place), where a control
 * byte would end a line: refused, since no directory needs one. */
static bool directory_is_safe(const char *option, const char *dir) {
        if (!find_unsafe(dir, NULL))
                return true;
        _cleanup_free_ char *shown = name_escape(dir);
        size_t n = strcspn(option, "=");
        fprintf(stderr,
                "numaplan: %.*s %s: a control character or a byte that is not UTF-8 in the directory: refused, "
                "since it may reach a drop-in\n",
                (int) n, option, shown);
        return false;
}

/* The command line taken apart: the global options, the verb, and the verb's own words, its
 * name first, then its options and arguments in order, with those given before it moved after
 * it. */
struct command_line {
        struct globals g;
        const struct verb *verb;
        bool want_help, want_version, options_done, no_pager;
        int verbosity;
        char **early, **rest; /* before the verb (its options), after it (rest[0] unused) */
        int n_early, n_rest;
};

/* One global option at argv[*i]: 1 when taken, 0 when it is none, -1 after a usage error. */
static int global_option(struct command_line *cl, int argc, char **argv, int *i) {
        const char *a = argv[*i];
        int r;
        if ((r = take_value(argc, argv, i, "--sysfs-root", &cl->g.sysfs_root)) ||
            (r = take_value(argc, argv, i, "--unit-dir", &cl->g.unit_dir)) ||
            (r = take_value(argc, argv, i, "--runtime-dir", &cl->g.runtime_dir)) ||
            (r = take_value(argc, argv, i, "--generator-dir", &cl->g.generator_dir)))
                return r < 0 || !directory_is_safe(a, argv[*i]) ? -1 : 1;
        if (streq(a, "-q") || streq(a, "--quiet"))
                cl->verbosity = -1;
        else if (streq(a, "-v") || streq(a, "--verbose"))
                cl->verbosity += cl->verbosity < 0 ? 2 : 1;
        else if (streq(a, "-vv"))
                cl->verbosity = 2;
        else if (streq(a, "-h") || streq(a, "--help"))
                cl->want_help = true;
        else if (streq(a, "--version"))
                cl->want_version = true;
        else if (streq(a, "--no-pager"))
                cl->no_pager = true;
        else if (streq(a, "--no-color"))
                colors_disable();
        else
                return 0;
        return 1;
}

/* A word that is no option: the verb, when there is none yet, else one of its arguments. */
static int positional(struct command_line *cl, char *word) {
        if (cl->verb || cl->options_done) {
                cl->rest[cl->n_rest++] = word;
                return 0;
        }
        cl->verb = cli_find_verb(word);
        if (cl->verb)
                return 0;
        _cleanup_free_ char *shown = name_escape(word), *hint = cli_nearest_verb(word);
        fprintf(stderr, "numaplan: unknown command '%s'%s. Try 'numaplan --help'.\n", shown, hint);
        return -1;
}

static int parse(struct command_line *cl, int argc, char **argv) {
        for (int i = 1; i < argc; i++) {
                char *a = argv[i];
                if (cl->options_done || a[0] != '-' || streq(a, "-")) {
                        if (positional(cl, a) < 0)
                                return -1;
                        continue;
                }
                if (streq(a, "--")) {
                        cl->options_done = true;
                        cl->rest[cl->n_rest++] = a;
                        continue;
                }
                int r = global_option(cl, argc, argv, &i);
                if (r < 0)
                        return -1;
                if (r > 0)
                        continue;
                if (cl->verb) {
                        cl->rest[cl->n_rest++] = a;
                        continue;
                }
                /* A verb's option before the verb: kept for the verb, which refuses it, naming it,
                 * if it is not one of its own. */
                const struct verb_option *o = any_verb_option(a);
                cl->early[cl->n_early++] = a;
                if (o && o->has_value && !strchr(a, '=') && (a[1] == '-' || !a[2]) && i + 1 < argc)
                        cl->early[cl->n_early++] = argv[++i];
        }
        return 0;
}

/* No verb: what was given instead says what is wrong. */
static int no_verb(const struct command_line *cl) {
        if (cl->n_early == 0) {
                cli_help(stderr);
                return EXIT_USAGE;
        }
        _cleanup_free_ char *shown = name_escape(cl->early[0]);
        if (any_verb_option(cl->early[0]))
                fprintf(stderr, "numaplan: '%s' needs a command after it. Try 'numaplan --help'.\n", shown);
        else {
                _cleanup_free_ char *hint = verb_nearest_option(NULL, cl->early[0]);
                fprintf(stderr, "numaplan: unknown option '%s'%s. Try 'numaplan --help'.\n", shown, hint);
        }
        return EXIT_USAGE;
}

static int run_verb(const struct command_line *cl) {
        const struct verb *verb = cl->verb;
        _cleanup_free_ char **words = xmalloc0((size_t) (cl->n_early + cl->n_rest + 1) * sizeof(char *));
        int n = 0;

        words[n++] = (char *) verb->name;
        for (int i = 0; i < cl->n_early; i++)
                words[n++] = cl->early[i];
        for (int i = 1; i < cl->n_rest; i++)
                words[n++] = cl->rest[i];
        /* A failure, even of the command line, still gives the document asked for. */
        for (int i = 1; i < n; i++)
                if (streq(words[i], "--json") || streq(words[i], "--tap"))
                        output_promise(streq(words[i], "--json") ? OUTPUT_JSON : OUTPUT_TAP);

        _cleanup_free_ void *args = xmalloc0(verb->args_size);
        int first = verb_parse_options(verb, n, words, args);
        if (first >= 0 && verb->pages)
                pager_open(cl->no_pager);
        int r = first < 0 ? EXIT_USAGE : verb->run(args, n - first, words + first, &cl->g);
        output_finish(r);
        pager_close();
        return r;
}

int cli_main(int argc, char **argv) {
        _cleanup_free_ char **early = xmalloc0((size_t) (argc + 1) * sizeof(char *));
        _cleanup_free_ char **rest = xmalloc0((size_t) (argc + 2) * sizeof(char *));
        struct command_line cl = {.g = {.sysfs_root = "/"}, .early = early, .rest = rest, .n_rest = 1};

        if (parse(&cl, argc, argv) < 0)
                return EXIT_USAGE;
        log_set_max_level(cl.verbosity < 0    ? LOG_ERR
                          : cl.verbosity == 0 ? LOG_NOTICE
                          : cl.verbosity == 1 ? LOG_INFO
                                              : LOG_DEBUG);
        if (cl.want_version) {
                printf("numaplan %s\n", NUMAPLAN_VERSION);
                return EXIT_OK;
        }
        if (cl.want_help && cl.verb)
                verb_print_help(cl.verb);
        else if (cl.want_help)
                cli_help(stdout);
        if (cl.want_help)
                return EXIT_OK;
        return cl.verb ? run_verb(&cl) : no_verb(&cl);
}
