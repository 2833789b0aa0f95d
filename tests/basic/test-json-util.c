/* SPDX-License-Identifier: MIT */
/* The JSON helpers of --json: counts that stay unsigned above 2^63, counts by node without the
 * zeros, CPU sets as kernel lists, and the one document printed, valid UTF-8 whatever it holds. */

#include <inttypes.h>

#include "basic/cpuset.h"
#include "basic/json-util.h"
#include "basic/util.h"
#include "capture.h"
#include "tap.h"

static const char *plain(json_object *o) {
        return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

static void uint64s(void) {
        static const struct {
                uint64_t v;
                const char *want;
        } cases[] = {
                {0, "0"},
                {INT64_MAX, "9223372036854775807"},
                {UINT64_C(1) << 63, "9223372036854775808"},
                {UINT64_MAX, "18446744073709551615"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_json_ json_object *o = json_uint64(cases[i].v);
                is_str(plain(o), cases[i].want, "%" PRIu64 " prints unsigned", cases[i].v);
                ok(json_object_get_uint64(o) == cases[i].v, "and reads back as %" PRIu64, cases[i].v);
        }
        /* A document with one, parsed again: what a consumer of --json reads. */
        _cleanup_json_ json_object *doc = json_object_new_object();
        json_object_object_add(doc, "bytes", json_uint64(UINT64_MAX - 1));
        _cleanup_json_ json_object *back = json_tokener_parse(plain(doc));
        json_object *v;
        ok(back && json_object_object_get_ex(back, "bytes", &v) && json_object_get_uint64(v) == UINT64_MAX - 1,
           "2^64 - 2 survives a round trip through the text");
}

static void by_node(void) {
        uint64_t v[] = {5, 0, 0, UINT64_C(1) << 63, 0};
        _cleanup_json_ json_object *o = json_by_node(v, ELEMENTSOF(v));
        is_str(plain(o), "{\"0\":5,\"3\":9223372036854775808}", "counts by node index, zeros left out");
        uint64_t zeros[] = {0, 0};
        _cleanup_json_ json_object *z = json_by_node(zeros, ELEMENTSOF(zeros));
        is_str(plain(z), "{}", "all zero: an empty object");
        _cleanup_json_ json_object *none = json_by_node(NULL, 0);
        is_str(plain(none), "{}", "no nodes: an empty object");
        uint64_t many[12] = {0};
        many[11] = 1;
        _cleanup_json_ json_object *m = json_by_node(many, ELEMENTSOF(many));
        is_str(plain(m), "{\"11\":1}", "a two-digit node");
}

static void sets_and_strings(void) {
        struct cpuset s;
        cpuset_parse_list("0-3,8,10-11", &s);
        _cleanup_json_ json_object *o = json_cpuset(&s);
        is_str(plain(o), "\"0-3,8,10-11\"", "a CPU set as the kernel writes its lists");
        cpuset_clear(&s);
        _cleanup_json_ json_object *e = json_cpuset(&s);
        is_str(plain(e), "\"\"", "the empty set is the empty string, as in sysfs");

        ok(json_string_or_null(NULL) == NULL, "NULL stays NULL");
        _cleanup_json_ json_object *doc = json_object_new_object();
        json_object_object_add(doc, "url", json_string_or_null(NULL));
        json_object_object_add(doc, "unit", json_string_or_null("a@0.service"));
        is_str(plain(doc), "{\"url\":null,\"unit\":\"a@0.service\"}", "which a document shows as null");
}

static void printing(void) {
        struct capture c;
        _cleanup_json_ json_object *doc = json_object_new_object();
        json_object_object_add(doc, "path", json_object_new_string("/run/numaplan/applied"));
        json_object_object_add(doc, "bytes", json_uint64(UINT64_MAX));

        ok(!json_printed(), "nothing printed yet");
        capture_begin(&c, STDOUT_FILENO);
        json_print(doc);
        _cleanup_free_ char *out = capture_end(&c);
        ok(json_printed(), "json_printed() says one was");
        ok(strstr(out, "\"/run/numaplan/applied\"") != NULL, "'/' is not escaped");
        ok(strstr(out, "\"bytes\": 18446744073709551615") != NULL, "spaced, and unsigned");
        ok(startswith(out, "{\n") != NULL, "pretty: one member a line");
        size_t n = strlen(out);
        ok(n >= 2 && streq(out + n - 2, "}\n"), "newline-terminated");
        /* Every member given, with its value (a document may begin with members of its own). */
        _cleanup_json_ json_object *back = json_tokener_parse(out);
        bool same = back != NULL;
        json_object_object_foreach(doc, key, value) {
                json_object *v;
                same = same && json_object_object_get_ex(back, key, &v) && json_object_equal(v, value);
        }
        ok(same, "what it prints parses back to the members given, values and all");

        /* Bytes that are no UTF-8, which json-c copies as they are, in a value and in a key. */
        _cleanup_json_ json_object *bytes = json_object_new_object();
        json_object_object_add(bytes, "interface", json_object_new_string("eth\xff\xfe\x1b\xc3\xa9"));
        json_object_object_add(bytes, "k\xc0\xaf", json_object_new_int(1));
        capture_begin(&c, STDOUT_FILENO);
        json_print(bytes);
        _cleanup_free_ char *sane = capture_end(&c);
        ok(strstr(sane, "\"eth\xef\xbf\xbd\xef\xbf\xbd\\u001b\xc3\xa9\"") != NULL &&
                   strstr(sane, "\"k\xef\xbf\xbd\xef\xbf\xbd\": 1") != NULL && !strchr(sane, '\xff'),
           "each byte that is no UTF-8 printed as U+FFFD, in values and keys; UTF-8 and the control escape kept");
}

/* json_int_members() prints what json-c prints for the same object built member by member, with
 * every flag and at any depth, empty or not, negative values too. */
static void int_members(void) {
        static const int keys[] = {0, 1, 33, 1023}, values[] = {10, -21, 255, 2147483647};
        static const int flags[] = {
                JSON_C_TO_STRING_PLAIN,
                JSON_C_TO_STRING_SPACED,
                JSON_C_TO_STRING_PRETTY,
                JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED,
                JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB,
                JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
        };
        size_t sizes[] = {0, 1, ELEMENTSOF(keys)};

        for (size_t s = 0; s < ELEMENTSOF(sizes); s++) {
                /* Each at depth 0, and at depth 3 beside other members, as show --json has them. */
                _cleanup_json_ json_object *want = json_object_new_object(),
                                           *got = json_int_members(keys, values, sizes[s]);
                for (size_t i = 0; i < sizes[s]; i++) {
                        char key[16];
                        snprintf(key, sizeof(key), "%d", keys[i]);
                        json_object_object_add(want, key, json_object_new_int(values[i]));
                }
                _cleanup_json_ json_object *deep_want = json_object_new_object(), *deep_got = json_object_new_object();
                json_object *pair[2] = {deep_want, deep_got}, *members[2] = {want, got};
                for (size_t k = 0; k < 2; k++) {
                        json_object *nodes = json_object_new_array(), *node = json_object_new_object();
                        json_object_object_add(node, "id", json_object_new_int(7));
                        json_object_object_add(node, "distances", json_object_get(members[k]));
                        json_object_object_add(node, "kind", json_object_new_string("cpu+memory"));
                        json_object_array_add(nodes, node);
                        json_object_object_add(pair[k], "nodes", nodes);
                }
                bool same = true;
                for (size_t f = 0; f < ELEMENTSOF(flags); f++) {
                        _cleanup_free_ char *a = xstrdup(json_object_to_json_string_ext(want, flags[f]));
                        _cleanup_free_ char *b = xstrdup(json_object_to_json_string_ext(deep_want, flags[f]));
                        same = same && streq(a, json_object_to_json_string_ext(got, flags[f])) &&
                               streq(b, json_object_to_json_string_ext(deep_got, flags[f]));
                }
                ok(same, "%zu members: json-c's bytes, with every flag, alone and three levels down", sizes[s]);
        }
}

int main(void) {
        uint64s();
        int_members();
        by_node();
        sets_and_strings();
        printing();
        return done_testing();
}
