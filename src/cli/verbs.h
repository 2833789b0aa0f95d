/* SPDX-License-Identifier: MIT */
#pragma once

/* The verb table's contract: main.c parses the global options and, with the verb's own option
 * table, the verb's options into the verb's argument struct, then calls the verb with its
 * positional arguments. A verb returns the process exit code (stage/globals.h). */

#include <stdbool.h>
#include <stddef.h>

#include "host/config-files.h"
#include "stage/globals.h"

/* One option of a verb: a flag (a bool in the verb's argument struct) or one taking a value (a
 * const char *); short_name 0 for a long option only. Its --help line and the bash completion's
 * list come from here: an option is written once. */
struct verb_option {
        const char *name;
        char short_name;
        bool has_value;
        size_t offset;
        const char *arg;  /* the value's name in --help ("FILE"); NULL for a flag */
        const char *help; /* what it does; '\n' starts a line of its own, indented below the first */
};
#define VERB_FLAG(name, short_name, type, field, help) \
        { name, short_name, false, offsetof(type, field), NULL, help }
#define VERB_VALUE(name, short_name, type, field, arg, help) \
        { name, short_name, true, offsetof(type, field), arg, help }
/* -c FILE, as every verb that reads the configuration takes it (into `type`'s `config`). */
#define VERB_CONFIG(type) \
        VERB_VALUE("config", 'c', type, config, "FILE", \
                   "read FILE instead of " CONFIG_FILE " and " CONFIG_DROPIN_DIR "/")

struct verb {
        const char *name;
        const char *summary;
        const struct verb_option *options; /* terminated by an entry without a name */
        size_t args_size;                  /* the argument struct the options fill */
        int max_args;                      /* positional arguments; -1: any number */
        int (*run)(const void *args, int argc, char **argv, const struct globals *g); /* argv[argc] is NULL */
        /* --help: "Usage: USAGE", the description, the options from the table, and what follows
         * them (after a blank line, or with `epilogue_tight` right under them). */
        const char *usage, *description, *epilogue;
        bool epilogue_tight;
        bool pages;    /* its answer goes through a pager on a terminal (cli/dispatch.c) */
        unsigned rank; /* where --help lists it: lower first */
};

/* The verbs, in the order --help lists them (by rank): the table the build makes of every
 * verb-NAME.c, each of which defines `const struct verb verb_NAME` (cli/meson.build). */
extern const struct verb *const verbs[];
extern const size_t n_verbs;

/* Prints a verb's --help, its option lines made from its table. */
void verb_print_help(const struct verb *v);

/* Prints the message (if any) and a pointer to the verb's --help. Returns EXIT_USAGE. */
int verb_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The option of any verb named `arg` ("-c", "--config", "--config=x"), or NULL. */
const struct verb_option *verb_find_option(const struct verb *v, const char *arg);
/* Parses argv (argv[0] is the verb's name) against v's options into `args` (v->args_size
 * bytes, zeroed by the caller). Returns the index of the first positional argument, or -1 after
 * printing a usage error that names the option or argument. */
int verb_parse_options(const struct verb *v, int argc, char **argv, void *args);
/* " (did you mean '--json'?)" for an option ("--jsno", "--jsno=x"), or "" (malloc'd either way):
 * the nearest of the global options and v's own, or with v NULL of every verb's. */
char *verb_nearest_option(const struct verb *v, const char *word);
