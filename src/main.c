/* SPDX-License-Identifier: MIT */
/* numaplan: global options and the verb table. Each verb lives in verb-<name>.c with its own
 * options and help text. */

#include <stdarg.h>

#include "log.h"
#include "util.h"
#include "verbs.h"

static const struct verb verbs[] = {
        {"show", verb_show, help_show, "topology, accelerators, warnings"},
        {"plan", verb_plan, help_plan, "placement and drop-in text; changes nothing"},
        {"apply", verb_apply, help_apply, "write the drop-ins, reload systemd"},
        {"verify", verb_verify, help_verify, "prove each replica is pinned as planned"},
        {"remove", verb_remove, help_remove, "delete numaplan's drop-ins, reload systemd"},
        {"snapshot", verb_snapshot, help_snapshot, "capture the sysfs/procfs files numaplan reads"},
};

static void help(void) {
        printf("Usage: numaplan [OPTIONS] COMMAND [ARGS...]\n\n"
               "Place LLM inference replicas on the NUMA nodes of their accelerators, with systemd\n"
               "drop-ins, and prove that the placement held.\n\nCommands:\n");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                printf("  %-10s %s\n", verbs[i].name, verbs[i].summary);
        printf("\nGlobal options:\n"
               "      --sysfs-root DIR  read DIR/sys and DIR/proc instead of /sys and /proc\n"
               "      --unit-dir DIR    where drop-ins go (default /etc/systemd/system)\n"
               "  -q, --quiet           print errors only\n"
               "  -v, --verbose         print more (twice: debug)\n"
               "  -h, --help            this help; with a command, that command's help\n"
               "      --version         print the version\n"
               "\nExit codes: 0 ok, 1 verification failed or changes pending, 2 bad usage or\n"
               "configuration, 3 environment problem. See numaplan(8).\n");
}

int verb_usage_error(const char *verb, const char *fmt, ...) {
        va_list ap;

        if (fmt) {
                fprintf(stderr, "numaplan %s: ", verb);
                va_start(ap, fmt);
                vfprintf(stderr, fmt, ap);
                va_end(ap);
                fputc('\n', stderr);
        }
        fprintf(stderr, "Try 'numaplan %s --help'.\n", verb);
        return EXIT_USAGE;
}

static const struct verb *find_verb(const char *name) {
        /* Exact names only: a prefix that happens to be unique today would break scripts tomorrow. */
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
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
                fprintf(stderr, "numaplan: option %s needs an argument\n", name);
                return -1;
        }
        *ret = argv[++*i];
        return 1;
}

int main(int argc, char **argv) {
        struct globals g = {.sysfs_root = "/"};
        const struct verb *verb = NULL;
        bool want_help = false, want_version = false, options_done = false;
        int verbosity = 0;
        char **rest = xmalloc0((size_t) (argc + 1) * sizeof(char *));
        int n_rest = 0, r;

        /* Global options may stand before or after the command, as scripts write them both ways;
         * everything else is the command's. */
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (options_done || a[0] != '-' || streq(a, "-")) {
                        if (!verb && !options_done) {
                                verb = find_verb(a);
                                if (!verb) {
                                        fprintf(stderr, "numaplan: unknown command '%s'. Try 'numaplan --help'.\n", a);
                                        free(rest);
                                        return EXIT_USAGE;
                                }
                                rest[n_rest++] = argv[i];
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
                    (r = take_value(argc, argv, &i, "--unit-dir", &g.unit_dir))) {
                        if (r < 0) {
                                free(rest);
                                return EXIT_USAGE;
                        }
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
                else
                        rest[n_rest++] = argv[i];
        }

        log_set_max_level(verbosity < 0 ? LOG_ERR : verbosity == 0 ? LOG_NOTICE : verbosity == 1 ? LOG_INFO : LOG_DEBUG);

        if (want_version) {
                printf("numaplan %s\n", NUMAPLAN_VERSION);
                r = EXIT_OK;
        } else if (want_help) {
                if (verb)
                        verb->help();
                else
                        help();
                r = EXIT_OK;
        } else if (!verb) {
                if (n_rest > 0)
                        fprintf(stderr, "numaplan: unknown option '%s'. Try 'numaplan --help'.\n", rest[0]);
                else
                        help();
                r = EXIT_USAGE;
        } else
                r = verb->run(n_rest, rest, &g);

        free(rest);
        return r;
}
