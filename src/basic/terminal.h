/* SPDX-License-Identifier: MIT */
#pragma once

/* The terminal's manners, as systemctl has them: colour only on a terminal (never for NO_COLOR,
 * SYSTEMD_COLORS=0 or --no-color; always for SYSTEMD_COLORS=1), and long lines wrapped at its
 * width, for stdout and stderr apart. Both are decided once, before a pager takes stdout. */

#include <stdbool.h>
#include <stdio.h>

#define ANSI_RED "\033[0;1;31m"
#define ANSI_YELLOW "\033[0;1;33m"
#define ANSI_GREEN "\033[0;32m"
#define ANSI_NORMAL "\033[0m"

/* --no-color. */
void colors_disable(void);
/* Whether what goes to `f` (stdout or stderr) gets colour. */
bool colors_enabled(FILE *f);
/* `ansi` when `f` gets colour, else "": printf("%sFAIL%s", color_on(f, ANSI_RED), color_off(f)). */
const char *color_on(FILE *f, const char *ansi);
const char *color_off(FILE *f);
/* The width to wrap `f`'s long lines at: $COLUMNS, else its terminal's; 0 when it is no terminal
 * (a pipe, a file: one line a message, for grep). */
unsigned terminal_columns(FILE *f);
/* Prints `head` (already coloured as the caller wants; `head_width` characters on screen), then
 * `text` wrapped at `f`'s width, each continuation line after `indent`; then a newline. */
void print_wrapped(FILE *f, const char *head, size_t head_width, const char *text, const char *indent);
