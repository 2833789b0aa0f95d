/* SPDX-License-Identifier: MIT */

#include "basic/cpuset.h"
#include "basic/escape.h"
#include "basic/json-util.h"
#include "basic/util.h"

static bool printed;

bool json_printed(void) {
        return printed;
}

void json_print(json_object *o) {
        _cleanup_json_ json_object *doc = json_object_new_object();

        /* First, so that a reader sees it before anything it might misread. */
        json_object_object_add(doc, "format_version", json_object_new_int(JSON_FORMAT_VERSION));
        json_object_object_foreach(o, key, value) json_object_object_add(doc, key, json_object_get(value));
        printed = true;
        /* json-c copies a string's bytes from 0x80 up as they are, UTF-8 or not, and a host's
         * names and an admin's files can hold any. JSON's own syntax is ASCII, so a byte that is
         * no UTF-8 can only be inside a string: it becomes U+FFFD there, and every document
         * parses. */
        const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                                       JSON_C_TO_STRING_NOSLASHESCAPE);
        /* A copy only when there is something to replace: show --json of 1,024 nodes is 20 MB. */
        _cleanup_free_ char *fixed = utf8_valid(text) ? NULL : utf8_sanitize(text);
        fputs(fixed ? fixed : text, stdout);
        fputc('\n', stdout);
}

json_object *json_cpuset(const struct cpuset *s) {
        _cleanup_free_ char *t = cpuset_format(s);
        return json_object_new_string(t);
}

json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

json_object *json_uint64(uint64_t v) {
        return json_object_new_uint64(v);
}

json_object *json_by_node(const uint64_t *v, size_t n) {
        json_object *o = json_object_new_object();
        for (size_t i = 0; i < n; i++)
                if (v[i]) {
                        char key[24];
                        snprintf(key, sizeof(key), "%zu", i);
                        json_object_object_add(o, key, json_uint64(v[i]));
                }
        return o;
}

struct int_members {
        const int *keys, *values;
        size_t n;
};

/* v's decimal digits at p, as json-c prints an int; returns the end. */
static char *put_int(char *p, int v) {
        char digits[16], *end = digits + sizeof(digits);
        char *d = put_decimal(end, v < 0 ? 0U - (unsigned) v : (unsigned) v);

        if (v < 0)
                *--d = '-';
        return mempcpy(p, d, (size_t) (end - d));
}

/* What json-c's own object printer writes (json_object.c, json_object_object_to_json_string() and
 * indent()): "{", a newline when pretty, members separated by "," (and a newline when pretty),
 * each after a space when spaced and not pretty, indented one level deeper when pretty (two
 * spaces, or a tab, a level), then the closing indent and "}" (" }" when spaced and not pretty). */
static int int_members_to_json_string(json_object *o, struct printbuf *pb, int level, int flags) {
        const struct int_members *m = json_object_get_userdata(o);
        bool pretty = flags & JSON_C_TO_STRING_PRETTY, spaced = flags & JSON_C_TO_STRING_SPACED;
        char fill = flags & JSON_C_TO_STRING_PRETTY_TAB ? '\t' : ' ';
        size_t step = !pretty ? 0 : fill == '\t' ? 1 : 2, width = step * (size_t) (level + 1);
        /* One member at a time: separator, indent, "KEY": VALUE. */
        _cleanup_free_ char *buf = xmalloc(width + 64);

        if (printbuf_memappend(pb, pretty ? "{\n" : "{", pretty ? 2 : 1) < 0)
                return -1;
        for (size_t i = 0; i < m->n; i++) {
                char *p = buf;
                if (i > 0) {
                        *p++ = ',';
                        if (pretty)
                                *p++ = '\n';
                }
                if (spaced && !pretty)
                        *p++ = ' ';
                memset(p, fill, width);
                p += width;
                *p++ = '"';
                p = put_int(p, m->keys[i]);
                *p++ = '"';
                *p++ = ':';
                if (spaced)
                        *p++ = ' ';
                p = put_int(p, m->values[i]);
                if (printbuf_memappend(pb, buf, (int) (p - buf)) < 0)
                        return -1;
        }
        if (pretty) {
                if (m->n > 0 && printbuf_memappend(pb, "\n", 1) < 0)
                        return -1;
                if (printbuf_memset(pb, -1, fill, (int) (step * (size_t) level)) < 0)
                        return -1;
        }
        return spaced && !pretty ? printbuf_memappend(pb, " }", 2) : printbuf_memappend(pb, "}", 1);
}

static void int_members_free(json_object *o, void *userdata) {
        (void) o;
        free(userdata);
}

json_object *json_int_members(const int *keys, const int *values, size_t n) {
        json_object *o = json_object_new_object();
        struct int_members *m = xmalloc(sizeof(*m));

        *m = (struct int_members){keys, values, n};
        json_object_set_serializer(o, int_members_to_json_string, m, int_members_free);
        return o;
}
