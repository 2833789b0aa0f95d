/* SPDX-License-Identifier: MIT */
#include "cpuset.h"
#include "json-util.h"
#include "topology.h"
#include "util.h"

void json_print(json_object *o) {
        fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                        JSON_C_TO_STRING_NOSLASHESCAPE),
              stdout);
        fputc('\n', stdout);
}

json_object *json_cpuset(const struct cpuset *s) {
        _cleanup_free_ char *t = cpuset_format(s);
        return json_object_new_string(t);
}

json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

json_object *json_warnings(const struct warning *w, size_t n) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_new_object();
                json_object_object_add(o, "code", json_object_new_string(w[i].code));
                json_object_object_add(o, "message", json_object_new_string(w[i].message));
                json_object_array_add(a, o);
        }
        return a;
}
