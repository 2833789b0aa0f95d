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
        _cleanup_free_ char *text = utf8_sanitize(json_object_to_json_string_ext(
                doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        fputs(text, stdout);
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
