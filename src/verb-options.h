/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

/* One option of a verb, which owns its table: a flag (sets *flag) or one taking a value (sets
 * *value); short_name 0 for a long option only. */
struct verb_option {
        const char *name;
        char short_name;
        bool *flag;
        const char **value;
};

/* Parses argv (argv[0] is the verb) against the verb's table. Returns the index of the first
 * positional argument, or -1 after printing a usage error: an unknown option, a missing value,
 * or more than max_args positional arguments (max_args < 0: any number). */
int verb_parse_options(const char *verb, int argc, char **argv, const struct verb_option *opts, int max_args);
