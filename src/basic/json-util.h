/* SPDX-License-Identifier: MIT */
#pragma once

#include <json-c/json.h>

#include <stdbool.h>
#include <stdint.h>

struct cpuset;

static inline void json_object_putp(json_object **o) {
        if (*o)
                json_object_put(*o);
}
#define _cleanup_json_ __attribute__((cleanup(json_object_putp)))

/* The version of every --json document's format, its first key "format_version". Keys added
 * keep it; a key removed or renamed, or a value whose type or meaning changes, raises it. The
 * schemas in schemas/ describe each verb's document at this version. */
#define JSON_FORMAT_VERSION 1

/* Prints one JSON object on stdout as a document: "format_version" first, then its keys;
 * pretty, "/" unescaped, newline-terminated, and valid UTF-8 whatever its strings hold (each
 * byte that is no UTF-8 as U+FFFD, utf8_sanitize()). */
void json_print(json_object *o);
/* Whether json_print() printed one. */
bool json_printed(void);
/* A CPU or node set as a kernel list string, "0-3,8". */
json_object *json_cpuset(const struct cpuset *s);
json_object *json_string_or_null(const char *s);
/* Byte and page counts: unsigned, so 2^63 and above do not print negative. */
json_object *json_uint64(uint64_t v);
/* {"0": v[0], "3": v[3]}: the counts of an array by node, those that are not zero. */
json_object *json_by_node(const uint64_t *v, size_t n);
/* {"keys[0]": values[0], ...}: an object of n int members, printed byte for byte as json-c prints
 * one (every flag, any depth), but one json object whatever n is: a node's distances to each of
 * 1,024 nodes are one object, not 1,024. For printing only (it has no members to look up), and
 * keys and values are not copied: they must outlive the object. */
json_object *json_int_members(const int *keys, const int *values, size_t n);
