/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan.conf as parsed: [numaplan] settings, [replica NAME] sections and [replicas NAME]
 * templates, each value checked and each key's file and line kept for later error messages.
 * numaplan.conf(5) documents every key. */

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"

enum policy { POLICY_AUTO, POLICY_BIND, POLICY_PREFERRED, POLICY_INTERLEAVE };
enum per { PER_ACCELERATOR, PER_NODE };
enum accel_mode { ACCEL_NONE, ACCEL_LIST, ACCEL_COUNT };

/* Where something was written: for "path:line: message". */
struct where {
        const char *file; /* one of config.files, or "built-in default" */
        unsigned line;
};

struct replica_conf {
        char *name;
        bool is_template;
        enum per per; /* templates only */
        struct where at; /* the section header */

        char *unit; /* templates: contains %i */
        struct where at_unit;
        enum accel_mode accel_mode;
        char **accels; /* normalized "dddd:bb:dd.f" */
        size_t n_accels;
        unsigned count;
        struct where at_accels;
        uint64_t memory;
        bool memory_set;
        struct where at_memory;
        char *model;
        enum policy policy;
        bool policy_set;
        struct where at_policy;
        unsigned cores; /* cpus = cores:N; 0 for cpus = node */
        struct where at_cpus;
        struct cpuset memory_nodes; /* memory-nodes: added to the mask on request (rule 6) */
        struct where at_memory_nodes;
        int visible_devices; /* -1: [numaplan]'s */
        char *warmup_url, *warmup_body;
        uint64_t warmup_timeout_ms;
        bool warmup_timeout_set;
        unsigned min_local_bp;
        bool min_local_set;
};

struct accel_override {
        char pci[24];
        int node;
        struct where at;
};

struct config {
        char **files; /* read, in order; NULL-terminated */
        bool builtin_default; /* no replica sections anywhere: SPEC's default template */

        unsigned headroom_bp;
        struct cpuset reserve_cpus;
        enum policy policy;
        bool visible_devices;
        unsigned min_local_bp;
        uint64_t warmup_timeout_ms;
        struct accel_override *overrides; /* accelerator-nodes */
        size_t n_overrides;

        struct replica_conf *replicas; /* in file order */
        size_t n_replicas;
};

#define CONFIG_FILE "/etc/numaplan/numaplan.conf"
#define CONFIG_DROPIN_DIR "/etc/numaplan/conf.d"

/* Reads `path`, or CONFIG_FILE and CONFIG_DROPIN_DIR/ *.conf when NULL (absent files are an empty
 * configuration). Errors are printed as "path:line: message"; returns -EINVAL (bad
 * configuration), -EPERM (an unsafe file when running as root) or -ENOENT (no -c file). With no
 * replica section anywhere, the built-in default template is added. */
int config_load(const char *path, struct config **ret);
/* Parses configuration text as if read from `name` (tests, and the built-in default). */
int config_parse_string(const char *text, const char *name, struct config **ret);
struct config *config_free(struct config *c);
static inline void config_freep(struct config **c) {
        config_free(*c);
}
#define _cleanup_config_ __attribute__((cleanup(config_freep)))

const char *policy_to_string(enum policy p);
/* "the files" for a drop-in header: "/etc/numaplan/numaplan.conf" or "a, b", or "the built-in default". */
char *config_sources(const struct config *c);

/* A replica's effective settings: its own, else [numaplan]'s. */
static inline enum policy replica_policy(const struct config *c, const struct replica_conf *r) {
        return r->policy_set ? r->policy : c->policy;
}
static inline bool replica_visible_devices(const struct config *c, const struct replica_conf *r) {
        return r->visible_devices >= 0 ? r->visible_devices : c->visible_devices;
}
static inline unsigned replica_min_local(const struct config *c, const struct replica_conf *r) {
        return r->min_local_set ? r->min_local_bp : c->min_local_bp;
}
static inline uint64_t replica_warmup_timeout(const struct config *c, const struct replica_conf *r) {
        return r->warmup_timeout_set ? r->warmup_timeout_ms : c->warmup_timeout_ms;
}

/* Prints "file:line: message" (or "file: message" without a line) on stderr. */
void config_error(struct where at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
