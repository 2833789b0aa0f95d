/* SPDX-License-Identifier: MIT */
/* numaplan help [COMMAND]: what --help prints, for those who type the word. */

#include "basic/escape.h"
#include "basic/util.h"
#include "cli/dispatch.h"
#include "cli/verbs.h"

struct help_args {
        bool unused; /* help takes no option of its own */
};

static const struct verb_option options[] = {
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        (void) args;
        (void) g;
        if (argc == 0) {
                cli_help(stdout);
                return EXIT_OK;
        }
        const struct verb *v = cli_find_verb(argv[0]);
        if (!v) {
                _cleanup_free_ char *shown = name_escape(argv[0]), *hint = cli_nearest_verb(argv[0]);
                return verb_usage_error("help", "unknown command '%s'%s", shown, hint);
        }
        verb_print_help(v);
        return EXIT_OK;
}

const struct verb verb_help = {
        .name = "help",
        .rank = 100,
        .summary = "print the help of numaplan, or of a command",
        .options = options,
        .args_size = sizeof(struct help_args),
        .max_args = 1,
        .run = run,
        .usage = "numaplan help [COMMAND]",
        .description = "Print what 'numaplan --help' prints; with a command, what 'numaplan COMMAND --help'\n"
                       "prints.",
};
