/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan's command line, for main(). */

#include <stdbool.h>

/* Whether a word of argv after argv[0] is a command: then numaplan is numaplan, whatever its name
 * (a drop-in runs `prepare` with the generator's path). */
bool cli_names_command(int argc, char **argv);
/* The global options, then the verb with its own; returns the exit code. */
int cli_main(int argc, char **argv);
