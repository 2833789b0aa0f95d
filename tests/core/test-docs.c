/* SPDX-License-Identifier: MIT */
/* The man pages and the tables agree: every configuration key of core/config.h is documented in
 * numaplan.conf(5) under its section, and every key documented there is in the table; every
 * warning code of core/warnings.h is in numaplan(8)'s WARNINGS, and nothing else is; every check
 * of core/verify-checks.h is in numaplan(8)'s list under verify, and nothing else is, and the
 * example alerting rules name only checks that exist.
 * Usage: test-docs FIXTURES_DIR SOURCE_ROOT */

#include <ctype.h>

#include "basic/util.h"
#include "core/config.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"
#include "core/verify-checks.h"
#include "core/warnings.h"
#include "tap.h"
#include "tmproot.h"

/* The tag words of every ".TP" paragraph under the .SH heading that starts with `heading`: the
 * words of the line after ".TP", their roff quotes and font requests removed. */
static char **tags_under(const char *page, const char *heading) {
        char **tags = xmalloc0(sizeof(char *));
        size_t n = 0;
        bool in = false, tag_next = false;

        for (const char *p = page; *p;) {
                const char *eol = strchrnul(p, '\n');
                _cleanup_free_ char *line = xstrndup(p, (size_t) (eol - p));
                p = *eol ? eol + 1 : eol;

                if (startswith(line, ".SH ")) {
                        const char *h = line + 4 + (line[4] == '"');
                        in = startswith(h, heading) != NULL;
                        tag_next = false;
                        continue;
                }
                if (!in)
                        continue;
                if (streq(line, ".TP")) {
                        tag_next = true;
                        continue;
                }
                if (!tag_next)
                        continue;
                tag_next = false;
                /* ".B headroom=" or ".BR visible-devices= \", \" min-local=" */
                char *s = line;
                if (s[0] == '.')
                        s += strcspn(s, " ");
                for (char *w = strtok(s, " \t\""); w; w = strtok(NULL, " \t\"")) {
                        size_t len = strlen(w);
                        while (len && (w[len - 1] == ',' || w[len - 1] == ':'))
                                w[--len] = 0;
                        if (len && isalpha((unsigned char) w[0])) {
                                tags = xrealloc(tags, (n + 2) * sizeof(char *));
                                tags[n++] = xstrdup(w);
                                tags[n] = NULL;
                        }
                }
        }
        return tags;
}

static bool has(char **v, const char *s) {
        for (; v && *v; v++)
                if (streq(*v, s))
                        return true;
        return false;
}

static void config_keys_documented(const char *page) {
        static const char *const headings[][2] = {
                {"numaplan", "[numaplan] SECTION"},
                {"replica", "[replica NAME] SECTIONS"},
                {"replicas", "[replicas NAME] SECTIONS"},
        };
        size_t n;
        _cleanup_free_ struct config_key_info *keys = config_keys(&n);
        _cleanup_strv_free_ char **replica_tags = tags_under(page, headings[1][1]);

        for (size_t h = 0; h < ELEMENTSOF(headings); h++) {
                _cleanup_strv_free_ char **tags = tags_under(page, headings[h][1]);
                bool replicas = streq(headings[h][0], "replicas");
                unsigned in_table = 0;

                for (size_t i = 0; i < n; i++) {
                        if (!streq(keys[i].section, headings[h][0]))
                                continue;
                        in_table++;
                        _cleanup_free_ char *tag = xasprintf("%s=", keys[i].name);
                        /* [replicas] documents its own keys and inherits [replica]'s. */
                        bool found = has(tags, tag) || (replicas && has(replica_tags, tag));
                        ok(found, "[%s] %s is documented in numaplan.conf(5)", keys[i].section, tag);
                }
                for (char **t = tags; *t; t++) {
                        bool known = false;
                        for (size_t i = 0; i < n && !known; i++) {
                                _cleanup_free_ char *tag = xasprintf("%s=", keys[i].name);
                                known = streq(keys[i].section, headings[h][0]) && streq(tag, *t);
                        }
                        ok(known, "numaplan.conf(5)'s [%s] %s is a key numaplan knows", headings[h][0], *t);
                }
                ok(in_table > 0, "[%s] has keys in the table", headings[h][0]);
        }
}

/* The text of the .TP paragraph whose tag is `tag` ("headroom=") under the heading: its lines
 * joined by blanks, roff's requests (".B", ".BR") and escapes ("\-", "\e") taken out. */
static char *paragraph_text(const char *page, const char *heading, const char *tag) {
        struct strbuf b = {0};
        bool in = false, mine = false, tag_next = false;

        for (const char *p = page; *p;) {
                const char *eol = strchrnul(p, '\n');
                _cleanup_free_ char *line = xstrndup(p, (size_t) (eol - p));
                p = *eol ? eol + 1 : eol;
                if (startswith(line, ".SH ")) {
                        in = startswith(line + 4 + (line[4] == '"'), heading) != NULL;
                        mine = false;
                        continue;
                }
                if (!in)
                        continue;
                if (streq(line, ".TP") || startswith(line, ".SS") || streq(line, ".PP")) {
                        tag_next = streq(line, ".TP");
                        mine = false;
                        continue;
                }
                if (tag_next) {
                        tag_next = false;
                        mine = strstr(line, tag) != NULL;
                        continue;
                }
                if (!mine)
                        continue;
                const char *t = line;
                if (t[0] == '.')
                        t += strcspn(t, " ");
                for (; *t; t++)
                        if (*t == '\\' && t[1])
                                strbuf_putc(&b, *++t == 'e' ? '\\' : *t);
                        else if (*t != '"')
                                strbuf_putc(&b, *t);
                strbuf_putc(&b, ' ');
        }
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

/* Each key's default, as the table applies it, is the one numaplan.conf(5) states: "Default
 * V.", "V (default)" or "V, the default", with the [numaplan] key's for a replica's. */
static void defaults_documented(const char *page) {
        size_t n;
        _cleanup_free_ struct config_key_info *keys = config_keys(&n);
        for (size_t i = 0; i < n; i++) {
                if (!keys[i].default_value)
                        continue;
                const char *heading = streq(keys[i].section, "numaplan")  ? "[numaplan] SECTION"
                                      : streq(keys[i].section, "replica") ? "[replica NAME] SECTIONS"
                                                                          : "[replicas NAME] SECTIONS";
                _cleanup_free_ char *tag = xasprintf("%s=", keys[i].name), *text = paragraph_text(page, heading, tag);
                if (!*text && streq(keys[i].section, "replicas")) {
                        free(text);
                        text = paragraph_text(page, "[replica NAME] SECTIONS", tag);
                }
                const char *v = keys[i].default_value;
                _cleanup_free_ char *a = xasprintf("Default %s.", v), *b = xasprintf("%s (default)", v),
                                    *c = xasprintf("%s , the default", v), *d = xasprintf("%s, the default", v);
                bool stated = strstr(text, a) || strstr(text, b) || strstr(text, c) || strstr(text, d);
                ok(stated, "[%s] %s: the table's default, %s, is the one numaplan.conf(5) states", keys[i].section, tag,
                   v);
                if (!stated)
                        tap_diag("paragraph", text);
        }
}

static void warning_codes_documented(const char *page) {
        _cleanup_strv_free_ char **tags = tags_under(page, "WARNINGS");

        for (size_t i = 0; i < _WARNING_MAX; i++)
                ok(has(tags, warning_kinds[i].code), "warning %s is documented in numaplan(8)", warning_kinds[i].code);
        for (char **t = tags; *t; t++) {
                bool known = false;
                for (size_t i = 0; i < _WARNING_MAX && !known; i++)
                        known = streq(warning_kinds[i].code, *t);
                ok(known, "numaplan(8) documents %s, a code numaplan has", *t);
        }
}

/* The tags of the .TP paragraphs of the indented list (.RS ... .RE) that follows the line
 * starting with `item` (".B verify"). */
static char **tags_of_list(const char *page, const char *item) {
        const char *at = strstr(page, item), *rs = at ? strstr(at, "\n.RS\n") : NULL,
                   *re = rs ? strstr(rs, "\n.RE\n") : NULL;
        if (!re)
                return xmalloc0(sizeof(char *));
        _cleanup_free_ char *list = xasprintf(".SH LIST\n%.*s", (int) (re - rs), rs);
        return tags_under(list, "LIST");
}

/* verify's schema names every check, in the table's order, and holds as many. */
static void checks_in_schema(const char *schema) {
        _cleanup_free_ char *want = NULL;
        struct strbuf b = {0};
        for (unsigned i = 0; i < N_CHECKS; i++)
                strbuf_printf(&b, "%s\"%s\"", i ? ", " : "", check_name(i));
        want = xasprintf("\"name\": {\"enum\": [%s]}", b.s);
        strbuf_done(&b);
        ok(strstr(schema, want) != NULL, "verify.schema.json, as the build makes it, names every check, in order");
        _cleanup_free_ char *count = xasprintf("\"minItems\": %u, \"maxItems\": %u", N_CHECKS, N_CHECKS);
        ok(strstr(schema, count) != NULL, "and wants every one of them for each unit");
}

static void checks_documented(const char *page, const char *rules) {
        _cleanup_strv_free_ char **tags = tags_of_list(page, "\n.B verify ");

        for (unsigned i = 0; i < N_CHECKS; i++)
                ok(has(tags, check_name(i)), "check %s is documented in numaplan(8) under verify", check_name(i));
        for (char **t = tags; *t; t++) {
                bool known = false;
                for (unsigned i = 0; i < N_CHECKS && !known; i++)
                        known = streq(check_name(i), *t);
                ok(known, "numaplan(8) documents check %s, which verify has", *t);
        }
        /* check="name" and check=~"a|b|c" */
        unsigned named = 0;
        for (const char *p = rules; (p = strstr(p, "check="));) {
                p += strlen("check=");
                p += *p == '~';
                if (*p++ != '"')
                        continue;
                size_t len = strcspn(p, "\"");
                _cleanup_free_ char *names = xstrndup(p, len);
                for (char *w = strtok(names, "|"); w; w = strtok(NULL, "|")) {
                        bool known = false;
                        for (unsigned i = 0; i < N_CHECKS && !known; i++)
                                known = streq(check_name(i), w);
                        ok(known, "the alerting rules name check %s, which verify has", w);
                        named++;
                }
                p += len;
        }
        ok(named > 0, "the alerting rules name checks (%u)", named);
}

int main(int argc, char **argv) {
        if (argc < 3) {
                printf("Bail out! usage: test-docs FIXTURES_DIR SOURCE_ROOT\n");
                return 1;
        }
        _cleanup_free_ char *conf_path = xasprintf("%s/man/numaplan.conf.5", argv[2]),
                            *man_path = xasprintf("%s/man/numaplan.8", argv[2]);
        _cleanup_free_ char *rules_path = xasprintf("%s/prometheus/numaplan.rules.yml", argv[2]),
                            *schema_path = getenv("NUMAPLAN_SCHEMA_DIR")
                                                   ? xasprintf("%s/verify.schema.json", getenv("NUMAPLAN_SCHEMA_DIR"))
                                                   : xasprintf("%s/build/schemas/verify.schema.json", argv[2]);
        _cleanup_free_ char *conf = read_whole(conf_path), *man = read_whole(man_path), *rules = read_whole(rules_path),
                            *schema = read_whole(schema_path);
        if (!conf || !man || !rules || !schema) {
                printf("Bail out! cannot read %s, %s, %s or %s\n", conf_path, man_path, rules_path, schema_path);
                return 1;
        }
        checks_in_schema(schema);
        config_keys_documented(conf);
        defaults_documented(conf);
        warning_codes_documented(man);
        checks_documented(man, rules);
        return done_testing();
}
