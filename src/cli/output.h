/* SPDX-License-Identifier: MIT */
#pragma once

/* What several verbs print alike: the run's warnings. */

#include <json-c/json.h>

#include "core/warnings.h"

/* [{"code", "severity", "message", and "node", "pci" or "replica" when about one}] */
json_object *json_warnings(const struct warnings *w);
/* Every warning on stdout, after `heading` when there is one: "severity: code: message", errors
 * first, each code once (warnings_for_text(); -v: each in full, -q: errors only), each line after
 * `indent` (show's section) or flush left (plan). */
void print_warnings(const struct warnings *w, const char *heading, const char *indent);

/* --json and --tap promise one document on stdout, also when the command fails: a verb says
 * which it promised, and main() prints the failure as that document when the verb printed none:
 * {"error": {"code": EXIT, "message": "..."}}, or TAP's "Bail out! ...". */
enum output_format { OUTPUT_TEXT, OUTPUT_JSON, OUTPUT_TAP };
void output_promise(enum output_format f);
void output_printed(void);
void output_finish(int exit_code);
