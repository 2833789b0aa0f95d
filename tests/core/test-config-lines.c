/* SPDX-License-Identifier: MIT */
/* The configuration's lines beyond inih's: a value longer than its line (an OpenAI-style
 * warmup-body, a Hugging Face path), and lines joined by a trailing backslash, with every check
 * and every message's line number as for a short line; and every error of a file in one parse,
 * without those that follow from one already said. */

#include <string.h>

#include "basic/util.h"
#include "core/config.h"
#include "tap.h"

static struct config *parse(const char *text, struct error_at *err) {
        struct config *c = NULL;
        *err = (struct error_at){0};
        if (config_parse_string(text, "t.conf", &c, err) < 0)
                return NULL;
        return c;
}

static void long_values(void) {
        struct error_at err;
        struct strbuf body = {0}, text = {0};
        strbuf_printf(&body, "{\"model\": \"llama\", \"messages\": [{\"role\": \"user\", \"content\": \"");
        for (int i = 0; i < 40; i++)
                strbuf_printf(&body, "word%d ", i);
        strbuf_printf(&body, "\"}], \"max_tokens\": 16}");
        strbuf_printf(&text, "[replica a]\nunit = a.service\nwarmup-body = %s ; sent at verify\nmemory = 1G\n", body.s);

        struct config *c = parse(text.s, &err);
        ok(c && c->n_replicas == 1 && streq(c->replicas[0].warmup_body, body.s),
           "a %zu-byte warmup-body on one line: whole, its inline comment taken off as inih does", body.len);
        ok(c && c->replicas[0].memory == 1ULL << 30, "and the lines after it parse");
        config_free(c);
        error_at_done(&err);

        strbuf_done(&text);
        strbuf_printf(&text, "[replica a]\nunit = a.service\nmemory = %s\n", body.s);
        c = parse(text.s, &err);
        ok(!c && err.at.line == 3 && strstr(strempty(err.message), "memory"),
           "a long bad value: refused as a short one, at its line (%u: %s)", err.at.line, strempty(err.message));
        config_free(c);
        error_at_done(&err);
        strbuf_done(&text);
        strbuf_done(&body);
}

static void continuations(void) {
        struct error_at err;
        struct config *c = parse("[replica a]\n"
                                 "unit = a.service\n"
                                 "model = /srv/hf/one.safetensors \\\n"
                                 "        /srv/hf/two.safetensors \\\n"
                                 "        /srv/hf/three.safetensors\n"
                                 "# a comment that ends in a backslash does not go on \\\n"
                                 "memory = 1G\n",
                                 &err);
        ok(c && strv_length(c->replicas[0].models) == 3 && streq(c->replicas[0].models[2], "/srv/hf/three.safetensors"),
           "a value over three lines joined by a trailing backslash: three models");
        ok(c && c->replicas[0].memory == 1ULL << 30, "a comment's backslash joins nothing");
        config_free(c);
        error_at_done(&err);

        c = parse("[replica a]\nunit = a.service\nmodel = /srv/a \\\n  /srv/b\npolicy = strict\n", &err);
        ok(!c && err.at.line == 5, "after a joined line, an error names the file's line: %u", err.at.line);
        config_free(c);
        error_at_done(&err);

        c = parse("[replica a]\nunit = a.service\npolicy = \\\n  strict\n", &err);
        ok(!c && err.at.line == 3, "an error in a joined line names the line it starts at: %u", err.at.line);
        config_free(c);
        error_at_done(&err);

        c = parse("[replica a]\nunit = a.service\nmodel = /srv/a \\\n  /srv/\x01"
                  "b\n",
                  &err);
        ok(!c && strstr(strempty(err.message), "control character"), "a control byte in a joined line is refused");
        config_free(c);
        error_at_done(&err);

        c = parse("[replica a]\nunit = a.service\nmodel = /srv/a \\\n  /srv/b\nsyntax error here\n", &err);
        ok(!c && err.at.line == 5, "inih's own syntax error after a joined line: the file's line, %u", err.at.line);
        config_free(c);
        error_at_done(&err);
}

static void units_of_text(void) {
        char *long_unit = xasprintf(
                "[replica a]\nunit = a.service\nwarmup-body = %0300d\n[replica b]\nunit = \\\n  b.service\n", 0);
        char **units = config_units_of_text(long_unit, strlen(long_unit), "t.conf");
        ok(strv_length(units) == 2 && streq(units[1], "b.service"),
           "the units of a text with a long line and a joined one: a.service, b.service");
        strv_free(units);
        free(long_unit);
}

/* "line:message" of every error in *err, in the order found, one a line. */
static char *all_errors(const struct error_at *err) {
        struct strbuf b = {0};
        strbuf_printf(&b, "%u:%s\n", err->at.line, strempty(err->message));
        for (size_t i = 0; i < err->n_next; i++)
                strbuf_printf(&b, "%u:%s\n", err->next[i].at.line, err->next[i].message);
        return strbuf_steal(&b);
}

static void every_error(void) {
        struct error_at err;
        struct config *c = parse("[replica a]\n"
                                 "unit = a.service\n"
                                 "memory = 48GB\n"
                                 "[replica b]\n"
                                 "unit = b.service\n"
                                 "polcy = bind\n"
                                 "[replica c]\n"
                                 "policy = bind\n",
                                 &err);
        _cleanup_free_ char *said = all_errors(&err);
        bool good = !c && error_at_count(&err) == 3 && strstr(said, "3:bad memory '48GB'") &&
                    strstr(said, "6:unknown key 'polcy' in [replica b] (did you mean 'policy'?)") &&
                    strstr(said, "7:[replica c] has no unit");
        if (!ok(good, "three mistakes in three sections: all three, each at its line"))
                tap_diag("said", said);
        config_free(c);
        error_at_done(&err);

        /* What follows from an error already said is not said again. */
        c = parse("[replica a]\nunit = a/b\nmodel-copies = per-node\nmodel = relative\n"
                  "[replika b]\nunit = b.service\npolicy = wrong\n"
                  "[replica d]\nunit = d.service\n[replica d]\nunit = d.service\n"
                  "[replica e]\n  unit = e.service\n",
                  &err);
        free(said);
        said = all_errors(&err);
        good = !c && error_at_count(&err) == 5 && strstr(said, "2:unit 'a/b") &&
               strstr(said, "4:model 'relative' must be") && strstr(said, "5:unknown section [replika b]") &&
               strstr(said, "10:[replica d] is already defined") && strstr(said, "13:indented line") &&
               !strstr(said, "has no unit") && !strstr(said, "names none") && !strstr(said, "7:");
        if (!ok(good, "a broken section's keys and its whole are not checked: no cascade"))
                tap_diag("said", said);
        config_free(c);
        error_at_done(&err);

        c = parse("memory = 1G\npolicy = bind\n[numaplan]\nheadroom = lots\nsyntax error\n", &err);
        free(said);
        said = all_errors(&err);
        good = !c && error_at_count(&err) == 3 && strstr(said, "1:key 'memory' outside a section") &&
               !strstr(said, "2:") && strstr(said, "4:bad headroom") && strstr(said, "5:syntax error");
        if (!ok(good, "keys before any section: said once; inih's syntax errors each"))
                tap_diag("said", said);
        config_free(c);
        error_at_done(&err);

        struct strbuf text = {0};
        for (int i = 0; i < 30; i++)
                strbuf_printf(&text, "[replica r%d]\nunit = r.service\npolicy = wrong\n", i);
        c = parse(text.s, &err);
        ok(!c && error_at_count(&err) == 30 && err.n_next + 1 == ERROR_AT_KEEP && err.n_left_off == 10,
           "30 errors: %d kept, the rest counted (%zu)", ERROR_AT_KEEP, err.n_left_off);
        config_free(c);
        error_at_done(&err);
        strbuf_done(&text);
}

int main(void) {
        long_values();
        continuations();
        units_of_text();
        every_error();
        return done_testing();
}
