/* SPDX-License-Identifier: MIT */
#pragma once

/* Names that others chose (files in a model directory, paths on the command line) go into
 * messages and the journal escaped, so that a newline or an escape sequence in a name cannot
 * forge a line or repaint a terminal: control bytes, backslash and bytes that are not UTF-8 are
 * written as C escapes (\n, \t, \\, \xNN); everything else, UTF-8 included, stays as it is. */

/* A malloc'd escaped copy of `s` ("(null)" for NULL). */
char *name_escape(const char *s);
