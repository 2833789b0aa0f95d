/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan.conf as parsed: [numaplan] settings, [replica NAME] sections and [replicas NAME]
 * templates, each value checked and each key's file and line kept for later error messages.
 * Pure: text in, structs out; reading the files is host/config-files.c's.
 *
 * Every key is one row of a table below (section, name, parser, destination, default), in the
 * manner of systemd's ConfigTableItem: adding a key is a row here, its field, and its text in
 * numaplan.conf(5); a test checks that the table and the man page list the same keys. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"
#include "basic/util.h"
#include "core/pci.h"

enum policy { POLICY_AUTO, POLICY_BIND, POLICY_PREFERRED, POLICY_INTERLEAVE };
enum per { PER_ACCELERATOR, PER_NODE };
enum accel_mode { ACCEL_NONE, ACCEL_LIST, ACCEL_COUNT };
enum model_copies { MODEL_COPIES_NONE, MODEL_COPIES_PER_NODE };
enum nics_mode { NICS_AUTO, NICS_NONE, NICS_LIST };
/* cpu-kinds = all | best: a replica's CPUs of every kind of core, or of its nodes' most capable
 * kind only (core/cpu-kinds.h). */
enum cpu_kinds_mode { CPU_KINDS_ALL, CPU_KINDS_BEST };
/* memory-tiers = local[+cxl][+hbm]: the slower or special memory a replica may use besides its
 * nodes' DRAM. Bits; 0 is local. */
enum { TIERS_CXL = 1u << 0, TIERS_HBM = 1u << 1 };

/* nics = auto | none | LIST: which network adapters a replica's servers are told to use. */
struct nics_choice {
        enum nics_mode mode;
        char **names; /* NICS_LIST: interface names, as written; NULL-terminated */
        size_t n;
};

/* The keys of [numaplan]: X(ID, name, parser, field of struct config, default). */
#define NUMAPLAN_KEYS(X) \
        X(HEADROOM, "headroom", headroom, headroom_bp, "10%") \
        X(RESERVE_CPUS, "reserve-cpus", cpu_list, reserve_cpus, "none") \
        X(POLICY, "policy", policy, policy, "auto") \
        X(VISIBLE_DEVICES, "visible-devices", boolean, visible_devices, "yes") \
        X(MIN_LOCAL, "min-local", percent, min_local_bp, "95%") \
        X(WARMUP_TIMEOUT, "warmup-timeout", duration, warmup_timeout_ms, "120s") \
        X(ACCELERATOR_NODES, "accelerator-nodes", overrides, overrides, "none") \
        X(NICS, "nics", nics, nics, "auto") \
        X(IRQ_AFFINITY, "irq-affinity", boolean, irq_affinity, "no") \
        X(MEMORY_TIERS, "memory-tiers", memory_tiers, memory_tiers, "local") \
        X(CPU_KINDS, "cpu-kinds", cpu_kinds, cpu_kinds, "all")

/* The keys of [replica NAME] and [replicas NAME]: X(ID, name, sections, parser, field of struct
 * replica_conf, default). A NULL default leaves the key unset: required (unit), taken from
 * [numaplan] (policy, visible-devices, min-local, warmup-timeout, nics, irq-affinity, memory-tiers,
 * cpu-kinds), or derived
 * (memory). */
#define REPLICA_KEYS(X) \
        X(UNIT, "unit", IN_BOTH, unit, unit, NULL) \
        X(ACCELERATORS, "accelerators", IN_REPLICA, accelerators, accelerators, "none") \
        X(PER, "per", IN_TEMPLATE, per, per, "accelerator") \
        X(MEMORY, "memory", IN_BOTH, size, memory, NULL) \
        X(MODEL, "model", IN_BOTH, paths, models, NULL) \
        X(MODEL_COPIES, "model-copies", IN_BOTH, model_copies, model_copies, "none") \
        X(POLICY, "policy", IN_BOTH, policy, policy, NULL) \
        X(CPUS, "cpus", IN_BOTH, cpus, cores, "node") \
        X(MEMORY_NODES, "memory-nodes", IN_BOTH, node_list, memory_nodes, "none") \
        X(VISIBLE_DEVICES, "visible-devices", IN_BOTH, boolean, visible_devices, NULL) \
        X(WARMUP_URL, "warmup-url", IN_BOTH, url, warmup_url, NULL) \
        X(WARMUP_BODY, "warmup-body", IN_BOTH, string, warmup_body, "{}") \
        X(WARMUP_TIMEOUT, "warmup-timeout", IN_BOTH, duration, warmup_timeout_ms, NULL) \
        X(MIN_LOCAL, "min-local", IN_BOTH, percent, min_local_bp, NULL) \
        X(HUGEPAGES, "hugepages", IN_BOTH, hugepages, hugepages, NULL) \
        X(CONTAINER, "container", IN_BOTH, container, container, NULL) \
        X(OPENMP, "openmp", IN_BOTH, boolean, openmp, "no") \
        X(NICS, "nics", IN_BOTH, nics, nics, NULL) \
        X(IRQ_AFFINITY, "irq-affinity", IN_BOTH, boolean, irq_affinity, NULL) \
        X(MEMORY_TIERS, "memory-tiers", IN_BOTH, memory_tiers, memory_tiers, NULL) \
        X(CPU_KINDS, "cpu-kinds", IN_BOTH, cpu_kinds, cpu_kinds, NULL)

enum { IN_REPLICA = 1 << 0, IN_TEMPLATE = 1 << 1, IN_BOTH = IN_REPLICA | IN_TEMPLATE };

#define CONFIG_KEY_ENUM(id, ...) NUMAPLAN_##id,
enum numaplan_key { NUMAPLAN_KEYS(CONFIG_KEY_ENUM) _NUMAPLAN_KEY_MAX };
#undef CONFIG_KEY_ENUM
#define CONFIG_KEY_ENUM(id, ...) REPLICA_##id,
enum replica_key { REPLICA_KEYS(CONFIG_KEY_ENUM) _REPLICA_KEY_MAX };
#undef CONFIG_KEY_ENUM

struct replica_conf {
        char *name;
        bool is_template;
        bool broken;                           /* an error was said in it: checked no further */
        struct where at;                       /* the section header */
        struct where key_at[_REPLICA_KEY_MAX]; /* where each key was set; .file NULL when not */

        char *unit; /* templates: contains %i */
        enum per per;
        struct accelerator_choice {
                enum accel_mode mode;
                char **pci; /* ACCEL_LIST: canonical "dddd:bb:dd.f" */
                size_t n;
                unsigned count; /* ACCEL_COUNT: accelerators = count:N */
        } accelerators;
        uint64_t memory;
        char **models;                  /* files or directories, absolute; NULL-terminated, or NULL */
        uint64_t model_bytes;           /* their size, all files of the directories (host/config-files.c) */
        uint64_t model_copy_bytes;      /* the same in whole pages: what a copy of them takes in a tmpfs */
        char *model_warning;            /* host/config-files.c: its model is missing or empty (model-missing) */
        enum model_copies model_copies; /* per-node: each node of its replicas holds its own copy */
        struct hugepages_want {
                uint64_t bytes;   /* hugepages = SIZE[:PAGESIZE]: a pool of this much */
                uint64_t page_kb; /* of pages this size; 0: the system's default */
        } hugepages;
        enum policy policy;
        unsigned cores;             /* cpus = cores:N; 0 for cpus = node */
        struct cpuset memory_nodes; /* added to the mask on request (PLACEMENT rule 6) */
        bool visible_devices;
        char *warmup_url, *warmup_body;
        uint64_t warmup_timeout_ms;
        unsigned min_local_bp;
        char *container; /* the container the unit's client starts (docker run --name); may hold %i */
        bool openmp;     /* set OMP_NUM_THREADS, OMP_PROC_BIND and OMP_PLACES for its CPUs */
        struct nics_choice nics;
        bool irq_affinity;     /* apply steers its devices' interrupts to its CPUs */
        unsigned memory_tiers; /* TIERS_* */
        enum cpu_kinds_mode cpu_kinds;
};

struct accel_override {
        char pci[PCI_ADDRESS_MAX];
        int node;
        struct where at;
};

struct config {
        char **files;         /* read, in order; NULL-terminated */
        char *sources;        /* what config_sources() returns: said in every drop-in, so made once */
        bool builtin_default; /* no replica sections anywhere: the built-in default template */
        struct where key_at[_NUMAPLAN_KEY_MAX];

        unsigned headroom_bp;
        struct cpuset reserve_cpus;
        enum policy policy;
        bool visible_devices;
        unsigned min_local_bp;
        uint64_t warmup_timeout_ms;
        struct accel_overrides {
                struct accel_override *v; /* accelerator-nodes */
                size_t n;
        } overrides;
        struct nics_choice nics; /* every replica's, unless its section says otherwise */
        bool irq_affinity;
        unsigned memory_tiers; /* TIERS_*, every replica's unless its section says otherwise */
        /* every replica's cpu-kinds, unless its section says otherwise */
        enum cpu_kinds_mode cpu_kinds;

        struct replica_conf *replicas; /* in file order */
        size_t n_replicas;
};

/* One row of the tables above, for documentation and suggestions. */
struct config_key_info {
        const char *section; /* "numaplan", "replica" or "replicas" */
        const char *name;
        const char *default_value; /* NULL: see numaplan.conf(5) */
};
/* Every key of every section, [numaplan]'s first (malloc'd); *ret_n gets the count. */
struct config_key_info *config_keys(size_t *ret_n);

/* An empty configuration: [numaplan]'s defaults, no replicas, no files. */
struct config *config_new(void);
/* Parses one file's text (`name` for messages and drop-in headers) into `c`, after the files
 * parsed before it: a later file's [numaplan] keys override an earlier one's; a replica section
 * is defined once. -EINVAL with every error of the file added to *err, each at its line (a
 * section with one is marked broken, and the keys of a header that failed are passed over). */
int config_parse_text(struct config *c, const char *text, size_t len, const char *name, struct error_at *err);
/* Checks every section as a whole once all files are parsed (each has a unit), but those
 * broken, adding each error to *err; and adds the built-in default when there is no replica
 * section. */
int config_finish(struct config *c, struct error_at *err);
/* The units a configuration's text names (NULL-terminated, as written, a template's with its
 * %i), for a boot whose configuration does not parse: every unit = line inih reads, in any
 * section or none, that is a valid unit = value; the lines that cannot be read are passed over. */
char **config_units_of_text(const char *text, size_t len, const char *name);
/* config_new() + config_parse_text() + config_finish(), the errors of both in *err: for tests
 * and the built-in default. */
int config_parse_string(const char *text, const char *name, struct config **ret, struct error_at *err);
struct config *config_free(struct config *c);
static inline void config_freep(struct config **c) {
        config_free(*c);
}
#define _cleanup_config_ _cleanup_(config_freep)

const char *policy_to_string(enum policy p);
/* The files for a drop-in header: "/etc/numaplan/numaplan.conf" or "a, b", or "the built-in default";
 * each path as text_escape() writes it, on one line. The configuration's own: do not free. */
const char *config_sources(const struct config *c);

static inline bool replica_has(const struct replica_conf *r, enum replica_key k) {
        return r->key_at[k].file != NULL;
}
/* Where a key was set, else the section header: the line an error about it names. */
static inline struct where replica_where(const struct replica_conf *r, enum replica_key k) {
        return replica_has(r, k) ? r->key_at[k] : r->at;
}

/* A replica's effective settings: its own, else [numaplan]'s. */
static inline enum policy replica_policy(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_POLICY) ? r->policy : c->policy;
}
static inline bool replica_visible_devices(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_VISIBLE_DEVICES) ? r->visible_devices : c->visible_devices;
}
static inline unsigned replica_min_local(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_MIN_LOCAL) ? r->min_local_bp : c->min_local_bp;
}
static inline const struct nics_choice *replica_nics(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_NICS) ? &r->nics : &c->nics;
}
/* The line that set a replica's nics: its own, else [numaplan]'s (NULL file: the default). */
static inline struct where replica_nics_where(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_NICS) ? r->key_at[REPLICA_NICS] : c->key_at[NUMAPLAN_NICS];
}
/* Whether any replica's adapters are chosen (nics = auto or a list): the host's are read then. */
bool config_wants_nics(const struct config *c);
const char *nics_mode_to_string(enum nics_mode m);
static inline bool replica_irq_affinity(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_IRQ_AFFINITY) ? r->irq_affinity : c->irq_affinity;
}
static inline unsigned replica_memory_tiers(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_MEMORY_TIERS) ? r->memory_tiers : c->memory_tiers;
}
/* The line that set a replica's memory-tiers: its own, else [numaplan]'s (NULL file: the default). */
static inline struct where replica_memory_tiers_where(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_MEMORY_TIERS) ? r->key_at[REPLICA_MEMORY_TIERS]
                                                    : c->key_at[NUMAPLAN_MEMORY_TIERS];
}
static inline enum cpu_kinds_mode replica_cpu_kinds(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_CPU_KINDS) ? r->cpu_kinds : c->cpu_kinds;
}
/* The line that set a replica's cpu-kinds: its own, else [numaplan]'s (NULL file: the default). */
static inline struct where replica_cpu_kinds_where(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_CPU_KINDS) ? r->key_at[REPLICA_CPU_KINDS] : c->key_at[NUMAPLAN_CPU_KINDS];
}
/* "local", "local+cxl", "local+hbm" or "local+cxl+hbm". */
const char *memory_tiers_to_string(unsigned tiers);
/* Whether any replica, or [numaplan], asks for irq-affinity = yes. */
bool config_irq_affinity_any(const struct config *c);
static inline uint64_t replica_warmup_timeout(const struct config *c, const struct replica_conf *r) {
        return replica_has(r, REPLICA_WARMUP_TIMEOUT) ? r->warmup_timeout_ms : c->warmup_timeout_ms;
}
