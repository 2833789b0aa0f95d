/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "basic/terminal.h"
#include "basic/util.h"
#include "cli/output.h"

json_object *json_warnings(const struct warnings *w) {
        static const char *const subject_keys[] = {
                [SUBJECT_HOST] = NULL, [SUBJECT_NODE] = "node", [SUBJECT_PCI] = "pci", [SUBJECT_REPLICA] = "replica"};
        json_object *a = json_object_new_array();

        for (size_t i = 0; i < w->n; i++) {
                const struct warning *x = &w->v[i];
                const struct warning_kind *k = &warning_kinds[x->code];
                json_object *o = json_object_new_object();
                json_object_object_add(o, "code", json_object_new_string(k->code));
                json_object_object_add(o, "severity", json_object_new_string(severity_to_string(k->severity)));
                json_object_object_add(o, "message", json_object_new_string(x->message));
                if (x->subject && subject_keys[k->subject]) {
                        int node;
                        json_object_object_add(o, subject_keys[k->subject],
                                               k->subject == SUBJECT_NODE && parse_int(x->subject, &node) >= 0
                                                       ? json_object_new_int(node)
                                                       : json_object_new_string(x->subject));
                }
                json_object_array_add(a, o);
        }
        return a;
}

struct print_ctx {
        const char *indent;
        bool quiet;
};

/* "warning: code: message", errors red, warnings yellow, notices plain (the severity and code in
 * colour), the message wrapped. Continuation lines go two blanks in: under show's heading past its
 * indent, and under plan's flush-left lines past the severity, so each entry's start stands out. */
static void print_warning(const struct warning *first, const char *text, void *userdata) {
        const struct print_ctx *c = userdata;
        enum severity s = warning_kinds[first->code].severity;
        const char *code = warning_code(first), *sev = severity_to_string(s);

        if (c->quiet && s != SEVERITY_ERROR) /* -q: errors only */
                return;
        _cleanup_free_ char *head = xasprintf("%s%s%s: %s%s: ", c->indent,
                                              color_on(stdout, s == SEVERITY_ERROR     ? ANSI_RED
                                                               : s == SEVERITY_WARNING ? ANSI_YELLOW
                                                                                       : ""),
                                              sev, code, s == SEVERITY_NOTICE ? "" : color_off(stdout));
        size_t lead = strlen(c->indent) + (*c->indent ? 0 : strlen(sev) + 2);
        _cleanup_free_ char *more = xasprintf("%*s", (int) lead + 2, "");
        print_wrapped(stdout, head, strlen(c->indent) + strlen(sev) + strlen(code) + 4, text, more);
}

void print_warnings(const struct warnings *w, const char *heading, const char *indent) {
        struct print_ctx c = {.indent = strempty(indent), .quiet = log_get_max_level() < LOG_NOTICE};

        if (heading && (c.quiet ? warnings_count(w, SEVERITY_ERROR) : w->n) > 0)
                fputs(heading, stdout);
        warnings_for_text(w, log_get_max_level() >= LOG_INFO, print_warning, &c);
}

static enum output_format promised;
static bool document_printed;

void output_promise(enum output_format f) {
        promised = f;
}

void output_printed(void) {
        document_printed = true;
}

void output_finish(int exit_code) {
        const char *why = log_first_error();

        if (exit_code == 0 || promised == OUTPUT_TEXT || document_printed || json_printed())
                return;
        if (!why)
                why = "failed (see the messages on stderr)";
        if (promised == OUTPUT_TAP) {
                printf("Bail out! %s\n", why);
                return;
        }
        _cleanup_json_ json_object *o = json_object_new_object(), *e = json_object_new_object();
        json_object_object_add(e, "code", json_object_new_int(exit_code));
        json_object_object_add(e, "message", json_object_new_string(why));
        json_object_object_add(o, "error", json_object_get(e));
        json_print(o);
}
