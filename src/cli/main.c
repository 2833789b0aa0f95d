/* SPDX-License-Identifier: MIT */
/* numaplan: global options and the verb table. Each verb lives in verb-<name>.c with its own
 * options and help text. */

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/util.h"
#include "generator/generator.h"
#include "systemd/generator-files.h"
#include "cli/output.h"
#include "cli/verbs.h"

static void help(void) {
        printf("Usage: numaplan [OPTIONS] COMMAND [ARGS...]\n\n"
               "Place LLM inference replicas on the NUMA nodes of their accelerators, with systemd\n"
               "drop-ins, and prove that the placement held.\n\nCommands:\n");
        for (size_t i = 0; i < n_verbs; i++)
                printf("  %-10s %s\n", verbs[i]->name, verbs[i]->summary);
        printf("\nGlobal options (before or after the command):\n"
               "      --sysfs-root DIR   read DIR/sys and DIR/proc instead of /sys and /proc\n"
               "      --unit-dir DIR     where drop-ins go (default /etc/systemd/system)\n"
               "      --runtime-dir DIR  where apply keeps its lock and its success marker (default\n"
               "                         /run/numaplan; with --unit-dir elsewhere, DIR/.numaplan there)\n"
               "      --generator-dir DIR  the drop-ins are numaplan-generator's, in DIR (default\n"
               "                         " GENERATOR_DIR " when the generator is installed)\n"
               "  -q, --quiet            print errors only\n"
               "  -v, --verbose          print more (twice: debug)\n"
               "  -h, --help             this help; with a command, that command's help\n"
               "      --version          print the version\n"
               "\nExit codes: 0 ok, 1 verification failed or changes pending, 2 bad usage or\n"
               "configuration, 3 environment problem. See numaplan(8).\n");
}

static const struct verb *find_verb(const char *name) {
        /* Exact names only: a prefix that happens to be unique today would break scripts tomorrow. */
        for (size_t i = 0; i < n_verbs; i++)
                if (streq(verbs[i]->name, name))
                        return verbs[i];
        return NULL;
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
        fprintf(stderr, "numaplan: %.*s %s: a control character or a byte that is not UTF-8 in the directory: refused, "
                        "since it may reach a drop-in\n",
                (int) n, option, shown);
        return false;
}

int main(int argc, char **argv) {
        struct globals g = {.sysfs_root = "/"};
        const struct verb *verb = NULL;
        bool want_help = false, want_version = false, options_done = false;
        int verbosity = 0;
        /* The verb's own words: its name first, then its options and arguments in order, with
         * those given before the verb moved after it. */
        _cleanup_free_ char **early = xmalloc0((size_t) (argc + 1) * sizeof(char *));
        _cleanup_free_ char **rest = xmalloc0((size_t) (argc + 2) * sizeof(char *));
        int n_early = 0, n_rest = 1, r;

        /* Run by systemd as a generator: its own command line, its own rules (never fail boot).
         * Given a command, it is numaplan (a drop-in runs `prepare` with the generator's path). */
        bool command = false;
        for (int i = 1; i < argc && !command; i++)
                command = find_verb(argv[i]) != NULL;
        if (argc > 0 && is_generator_name(argv[0]) && !command)
                return generator_main(argc, argv);

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (options_done || a[0] != '-' || streq(a, "-")) {
                        if (!verb && !options_done) {
                                verb = find_verb(a);
                                if (!verb) {
                                        fprintf(stderr, "numaplan: unknown command '%s'. Try 'numaplan --help'.\n", a);
                                        return EXIT_USAGE;
                                }
                                continue;
                        }
                        rest[n_rest++] = argv[i];
                        continue;
                }
                if (streq(a, "--")) {
                        options_done = true;
                        rest[n_rest++] = argv[i];
                        continue;
                }
                if ((r = take_value(argc, argv, &i, "--sysfs-root", &g.sysfs_root)) ||
                    (r = take_value(argc, argv, &i, "--unit-dir", &g.unit_dir)) ||
                    (r = take_value(argc, argv, &i, "--runtime-dir", &g.runtime_dir)) ||
                    (r = take_value(argc, argv, &i, "--generator-dir", &g.generator_dir))) {
                        if (r < 0 || !directory_is_safe(a, argv[i]))
                                return EXIT_USAGE;
                        continue;
                }
                if (streq(a, "-q") || streq(a, "--quiet"))
                        verbosity = -1;
                else if (streq(a, "-v") || streq(a, "--verbose"))
                        verbosity += verbosity < 0 ? 2 : 1;
                else if (streq(a, "-vv"))
                        verbosity = 2;
                else if (streq(a, "-h") || streq(a, "--help"))
                        want_help = true;
                else if (streq(a, "--version"))
                        want_version = true;
                else if (verb)
                        rest[n_rest++] = argv[i];
                else {
                        /* A verb's option before the verb: kept for the verb, which refuses it,
                         * naming it, if it is not one of its own. */
                        const struct verb_option *o = any_verb_option(a);
                        early[n_early++] = argv[i];
                        if (o && o->has_value && !strchr(a, '=') && (a[1] == '-' || !a[2]) && i + 1 < argc)
                                early[n_early++] = argv[++i];
                }
        }

        log_set_max_level(verbosity < 0 ? LOG_ERR : verbosity == 0 ? LOG_NOTICE : verbosity == 1 ? LOG_INFO : LOG_DEBUG);

        if (want_version) {
                printf("numaplan %s\n", NUMAPLAN_VERSION);
                return EXIT_OK;
        }
        if (want_help) {
                if (verb)
                        verb_help(verb);
                else
                        help();
                return EXIT_OK;
        }
        if (!verb) {
                if (n_early > 0) {
                        fprintf(stderr, "numaplan: '%s' needs a command after it. Try 'numaplan --help'.\n", early[0]);
                        return EXIT_USAGE;
                }
                help();
                return EXIT_USAGE;
        }

        _cleanup_free_ char **words = xmalloc0((size_t) (n_early + n_rest + 1) * sizeof(char *));
        int n = 0;
        words[n++] = (char *) verb->name;
        for (int i = 0; i < n_early; i++)
                words[n++] = early[i];
        for (int i = 1; i < n_rest; i++)
                words[n++] = rest[i];

        /* A failure, even of the command line, still gives the document asked for. */
        for (int i = 1; i < n; i++)
                if (streq(words[i], "--json") || streq(words[i], "--tap"))
                        output_promise(streq(words[i], "--json") ? OUTPUT_JSON : OUTPUT_TAP);

        _cleanup_free_ void *args = xmalloc0(verb->args_size);
        int first = verb_parse_options(verb, n, words, args);
        if (first < 0) {
                output_finish(EXIT_USAGE);
                return EXIT_USAGE;
        }
        r = verb->run(args, n - first, words + first, &g);
        output_finish(r);
        return r;
}
