/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan's command line, for main(), and what `numaplan help` and a verb's option parser ask of
 * it. */

#include <stdbool.h>
#include <stdio.h>

struct verb;

/* Whether a word of argv after argv[0] is a command: then numaplan is numaplan, whatever its name
 * (a drop-in runs `prepare` with the generator's path). */
bool cli_names_command(int argc, char **argv);
/* The global options, then the verb with its own; returns the exit code. */
int cli_main(int argc, char **argv);

/* numaplan --help: the commands, the global options and the exit codes. */
void cli_help(FILE *f);
/* The verb of exactly that name, or NULL. */
const struct verb *cli_find_verb(const char *name);
/* " (did you mean 'plan'?)" for "pln", or "" (malloc'd either way): the nearest verb. */
char *cli_nearest_verb(const char *word);
