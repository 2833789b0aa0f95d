/* SPDX-License-Identifier: MIT */
/* Fills numaplan.bash.in's blanks from the verb table, so that the completion offers each
 * command's options exactly as the command takes them. Usage: options INPUT OUTPUT */

#include <stdio.h>

#include "basic/util.h"
#include "cli/verbs.h"

/* "-c | --config" for every option (of any verb, each once) whose value's name is one of
 * `kinds` (NULL: any value), or none of them with `others`. */
static void patterns(struct strbuf *b, const char *const *kinds, bool others) {
        char **seen = xmalloc0(sizeof(char *));
        size_t n = 0;
        for (size_t i = 0; i < n_verbs; i++)
                for (const struct verb_option *o = verbs[i]->options; o->name; o++) {
                        bool kind = false;
                        for (size_t k = 0; kinds && kinds[k] && o->arg; k++)
                                kind = kind || streq(o->arg, kinds[k]);
                        if (!o->has_value || (kinds && kind == others) || strv_contains(seen, o->name))
                                continue;
                        seen = xrealloc(seen, (n + 2) * sizeof(char *));
                        seen[n++] = xstrdup(o->name);
                        seen[n] = NULL;
                        if (o->short_name)
                                strbuf_printf(b, "%s-%c", b->len ? " | " : "", o->short_name);
                        strbuf_printf(b, "%s--%s", b->len ? " | " : "", o->name);
                }
        strv_free(seen);
}

static char *fill(const char *blank) {
        static const char *const files[] = {"FILE", NULL}, *const dirs[] = {"DIR", NULL},
                                 *const paths[] = {"FILE", "DIR", NULL};
        struct strbuf b = {0};

        if (streq(blank, "COMMANDS"))
                for (size_t i = 0; i < n_verbs; i++)
                        strbuf_printf(&b, "%s%s", i ? " " : "", verbs[i]->name);
        else if (streq(blank, "VERB_OPTIONS"))
                for (size_t i = 0; i < n_verbs; i++) {
                        strbuf_printf(&b, "%s\t\t[%s]=\"", i ? "\n" : "", verbs[i]->name);
                        for (const struct verb_option *o = verbs[i]->options; o->name; o++) {
                                if (o->short_name)
                                        strbuf_printf(&b, "-%c ", o->short_name);
                                strbuf_printf(&b, "--%s%s", o->name, o[1].name ? " " : "");
                        }
                        strbuf_append(&b, "\"");
                }
        else if (streq(blank, "FILE_OPTIONS"))
                patterns(&b, files, false);
        else if (streq(blank, "DIR_OPTIONS")) {
                patterns(&b, dirs, false);
                if (b.len) { /* after the global ones */
                        char *s = strbuf_steal(&b);
                        strbuf_printf(&b, " | %s", s);
                        free(s);
                }
        } else if (streq(blank, "OTHER_VALUE_OPTIONS"))
                patterns(&b, paths, true);
        else if (streq(blank, "VALUE_OPTIONS"))
                patterns(&b, NULL, false);
        else
                return NULL;
        return strbuf_steal(&b);
}

int main(int argc, char **argv) {
        _cleanup_free_ char *in = NULL;
        size_t len = 0;
        FILE *f;

        if (argc != 3 || !(f = fopen(argv[1], "re")))
                return 2;
        for (char buf[4096]; (len = fread(buf, 1, sizeof(buf), f)) > 0;) {
                size_t have = in ? strlen(in) : 0;
                in = xrealloc(in, have + len + 1);
                memcpy(in + have, buf, len);
                in[have + len] = 0;
        }
        fclose(f);
        _cleanup_fclose_ FILE *out = fopen(argv[2], "we");
        if (!out || !in)
                return 1;
        for (const char *p = in; *p;) {
                const char *at = strchr(p, '@'), *end = at ? strchr(at + 1, '@') : NULL;
                _cleanup_free_ char *name = end ? xstrndup(at + 1, (size_t) (end - at - 1)) : NULL, *value = NULL;
                if (name && (value = fill(name))) {
                        fprintf(out, "%.*s%s", (int) (at - p), p, value);
                        p = end + 1;
                } else if (at) {
                        fprintf(out, "%.*s", (int) (at - p + 1), p);
                        p = at + 1;
                } else {
                        fputs(p, out);
                        break;
                }
        }
        return ferror(out) ? 1 : 0;
}
