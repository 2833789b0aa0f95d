/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

/* Names that others chose (files in a model directory, paths on the command line) go into
 * messages and the journal escaped, so that a newline or an escape sequence in a name cannot
 * forge a line or repaint a terminal: control bytes, backslash and bytes that are not UTF-8 are
 * written as C escapes (\n, \t, \\, \xNN); everything else, UTF-8 included, stays as it is. */

/* A malloc'd escaped copy of `s` ("(null)" for NULL). */
char *name_escape(const char *s);
/* The same for a message that holds such names among numaplan's own words: its backslashes (a
 * systemd unit's "\x2d") stay as they are, so that it is valid UTF-8 with no control byte, as JSON
 * and the journal need, and reads as it was written. */
char *text_escape(const char *s);
/* The first byte of `s` that may not reach a unit file or a terminal as it is (a C0 or C1
 * control, DEL, or a byte of no valid UTF-8 sequence), but for the ASCII controls in `allowed`
 * (such as "\t"); NULL when there is none. */
const char *find_unsafe(const char *s, const char *allowed);

/* Text for a reader that takes UTF-8 only (a JSON parser, Prometheus): a malloc'd copy of `s` in
 * which each byte that is not part of a valid UTF-8 sequence (a stray continuation byte, a
 * truncated or overlong sequence, a surrogate, a code point past U+10FFFF) is replaced by U+FFFD,
 * the replacement character. Valid UTF-8 passes through unchanged, control characters included:
 * escaping those is the format's business. "" for NULL. */
char *utf8_sanitize(const char *s);
/* Whether utf8_sanitize() would leave `s` as it is: no copy needed. */
bool utf8_valid(const char *s);
