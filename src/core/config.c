/* SPDX-License-Identifier: MIT */
/* numaplan.conf through inih, from text. Debian's libinih reports no line numbers to the
 * handler, so the line source we hand inih counts lines itself: when inih calls the handler, the
 * line it just read is the key's line. The line source also sees section headers (inih does not
 * report sections without keys) and refuses what inih would silently misread: over-long lines,
 * NUL bytes, and indented lines, which inih takes as continuations of the previous value. */

#include <ctype.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/escape.h"
#include "basic/parse-util.h"
#include "basic/util.h"
#include "core/config.h"
#include "core/unit-name.h"

#define BUILTIN "built-in default"

/* SECTION_BROKEN: after a header that failed, or a key outside any section, up to the next
 * header: its keys are passed over, since what they belong to is unknown. */
enum section { SECTION_NONE, SECTION_NUMAPLAN, SECTION_REPLICA, SECTION_BROKEN };

struct parse_ctx {
        struct config *c;
        const char *file;
        const char *text, *end; /* what is left to read */
        unsigned line;          /* where the logical line being parsed starts */
        unsigned read;          /* the file's lines read so far */
        struct error_at *err;   /* every error found, in the order found */
        unsigned n_failed;      /* how many */
        bool line_failed;       /* the logical line being parsed has one: one a line is said */
        bool stop;              /* a NUL byte: not a text file, read no further */
        unsigned first_refused; /* inih's number of the first line the handler refused, or 0 */

        enum section section;
        struct replica_conf *replica; /* while section == SECTION_REPLICA */
        const char *value;            /* of the key being parsed, for the hints of fail() */
        char ***units;                /* config_units_of_text(): every unit = read, in any section */
        size_t n_units;

        /* Lines joined by a trailing backslash, and values longer than inih's line: inih is given
         * "key = " and a stand-in (LONG_VALUE and an index, which no file can hold: a control byte
         * is refused), and the handler takes the value from here. */
        char **long_values;
        size_t n_long;
        unsigned *first_line; /* [inih's line number] the file's line its logical line starts at */
        size_t n_lines;
};

#define LONG_VALUE "\x01"

/* Says an error at the line being parsed, and goes on: the admin gets every mistake of a file
 * in one run. The section it stands in is broken, and is checked no further as a whole. */
_printf_(2, 3) static int fail(struct parse_ctx *ctx, const char *fmt, ...) {
        va_list ap;

        if (ctx->line_failed)
                return 0;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        /* The mistake behind many a bad value: a "# comment" after it, which inih keeps. */
        bool comment = ctx->value && (strstr(ctx->value, " #") || strstr(ctx->value, "\t#"));
        error_at_add(ctx->err, (struct where){ctx->file, ctx->line}, "%s%s", msg,
                     comment ? " (after a value only \" ;\" starts a comment, as inih reads it: the '#' and what "
                               "follows are part of the value)"
                             : "");
        ctx->line_failed = true;
        ctx->n_failed++;
        if (ctx->section == SECTION_REPLICA)
                ctx->replica->broken = true;
        return 0; /* inih: this handler call failed */
}

/* ---- values ---- */

/* A value parser: 1 when the value was stored in *dst, 0 after fail(). */
typedef int (*value_parser)(struct parse_ctx *ctx, const char *key, const char *value, void *dst);

const char *policy_to_string(enum policy p) {
        static const char *const names[] = {"auto", "bind", "preferred", "interleave"};
        return names[p];
}

static int value_policy(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        (void) key;
        for (enum policy p = POLICY_AUTO; p <= POLICY_INTERLEAVE; p++)
                if (streq(value, policy_to_string(p))) {
                        *(enum policy *) dst = p;
                        return 1;
                }
        return fail(ctx, "bad policy '%s': expected auto, bind, preferred or interleave", value);
}

static int value_per(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        (void) key;
        if (streq(value, "accelerator"))
                *(enum per *) dst = PER_ACCELERATOR;
        else if (streq(value, "node"))
                *(enum per *) dst = PER_NODE;
        else
                return fail(ctx, "bad per '%s': expected accelerator or node", value);
        return 1;
}

static int value_model_copies(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        if (streq(value, "none"))
                *(enum model_copies *) dst = MODEL_COPIES_NONE;
        else if (streq(value, "per-node"))
                *(enum model_copies *) dst = MODEL_COPIES_PER_NODE;
        else
                return fail(ctx, "bad %s '%s': expected none or per-node", key, value);
        return 1;
}

static int value_boolean(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        if (parse_boolean(value, dst) < 0)
                return fail(ctx, "bad %s '%s': expected yes or no", key, value);
        return 1;
}

static int percent_at_most(struct parse_ctx *ctx, const char *key, const char *value, unsigned max_bp, unsigned *ret) {
        unsigned v;
        int r = parse_percent(value, &v);
        /* A percentage too large is told as such, with the range, not as one mistyped. */
        if (r == -ERANGE || (r >= 0 && v > max_bp))
                return fail(ctx, "bad %s '%s': over %u%%: expected 0%% to %u%%", key, value,
                            r == -ERANGE ? 100 : max_bp / 100, max_bp / 100);
        if (r < 0)
                return fail(ctx, "bad %s '%s': expected a percentage such as 95%%", key, value);
        *ret = v;
        return 1;
}

static int value_percent(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        return percent_at_most(ctx, key, value, 10000, dst);
}

/* A headroom of 100% would leave no memory to plan with. */
static int value_headroom(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        return percent_at_most(ctx, key, value, 9900, dst);
}

static int value_duration(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        uint64_t v;
        if (parse_duration_ms(value, &v) < 0 || v == 0)
                return fail(ctx, "bad %s '%s': expected a duration such as 120s, 2m or 500ms", key, value);
        *(uint64_t *) dst = v;
        return 1;
}

static int value_size(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        size_t n = strlen(value);
        if (parse_size(value, dst) >= 0)
                return 1;
        if (n > 2 && value[n - 1] == 'B' && strchr("KMGTkmgt", value[n - 2]))
                return fail(ctx, "bad %s '%s': sizes are binary, so write %.*s or %.*siB (%.*s = %.*s x 1024^%d bytes)",
                            key, value, (int) n - 1, value, (int) n - 1, value, (int) n - 1, value, (int) n - 2, value,
                            (int) (strchr("KMGT", toupper((unsigned char) value[n - 2])) - "KMGT") + 1);
        return fail(ctx, "bad %s '%s': expected bytes with a binary suffix K, M, G or T (or KiB, MiB, GiB, TiB)", key,
                    value);
}

static int parse_set(struct parse_ctx *ctx, const char *key, const char *value, void *dst, const char *example) {
        struct cpuset s;
        if (streq(value, "none"))
                cpuset_clear(&s);
        else if (cpuset_parse_list(value, &s) < 0)
                return fail(ctx, "bad %s '%s': expected %s", key, value, example);
        *(struct cpuset *) dst = s;
        return 1;
}

static int value_cpu_list(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        return parse_set(ctx, key, value, dst, "a CPU list such as 0,48");
}

static int value_node_list(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        return parse_set(ctx, key, value, dst, "a node list such as 2 or 2-3");
}

static int value_cpus(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        const char *n = startswith(value, "cores:");
        uint64_t v = 0;

        if (streq(value, "node"))
                *(unsigned *) dst = 0;
        else if (n && parse_uint64(n, 10, &v) >= 0 && v > 0 && v < CPUSET_MAX)
                *(unsigned *) dst = (unsigned) v;
        else
                return fail(ctx, "bad %s '%s': expected node or cores:N", key, value);
        return 1;
}

static int value_string(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        (void) ctx;
        (void) key;
        free(*(char **) dst);
        *(char **) dst = xstrdup(value);
        return 1;
}

/* Splits a list value on commas and blanks; the caller frees. */
static char **split_list(const char *value) {
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;

        for (const char *p = value; *p;) {
                p += strspn(p, ", \t");
                size_t len = strcspn(p, ", \t");
                if (len == 0)
                        break;
                v = xrealloc(v, (n + 2) * sizeof(char *));
                v[n++] = xstrndup(p, len);
                v[n] = NULL;
                p += len;
        }
        return v;
}

/* One path or more, separated by blanks or commas, each absolute. */
static int value_paths(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        char **v = split_list(value);
        if (!v[0]) {
                strv_free(v);
                return fail(ctx, "%s is empty: name the model's file or files, or its directory", key);
        }
        for (char **p = v; *p; p++)
                if ((*p)[0] != '/') {
                        _cleanup_free_ char *bad = xstrdup(*p);
                        strv_free(v);
                        return fail(ctx, "%s '%s' must be an absolute path", key, bad);
                }
        strv_free(*(char ***) dst);
        *(char ***) dst = v;
        return 1;
}

/* "16G" of the system's default huge pages, or "16G:1G" of 1 GiB pages. */
static int value_hugepages(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        _cleanup_free_ char *size = xstrdup(value);
        char *colon = strchr(size, ':');
        uint64_t page = 0;

        if (colon) {
                *colon = 0;
                if (parse_size(colon + 1, &page) < 0 || page < 4096 || (page & (page - 1)) ||
                    page > (UINT64_C(16) << 30))
                        return fail(ctx, "bad %s '%s': the page size after ':' must be a power of two such as 2M or 1G",
                                    key, value);
        }
        struct hugepages_want *want = dst;
        uint64_t bytes;
        if (parse_size(size, &bytes) < 0 || bytes == 0)
                return fail(ctx, "bad %s '%s': expected SIZE or SIZE:PAGESIZE, such as 16G or 16G:1G", key, value);
        if (page && bytes % page)
                return fail(ctx, "bad %s '%s': not a whole number of %s pages", key, value, colon + 1);
        *want = (struct hugepages_want){bytes, page / 1024};
        return 1;
}

/* A template's %i is its instance (http://127.0.0.1:818%i/ for replicas side by side). */
static int value_url(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        if (!startswith(value, "http://") && !startswith(value, "https://"))
                return fail(ctx, "bad %s '%s': expected http:// or https://", key, value);
        if (strstr(value, "%i") && !ctx->replica->is_template)
                return fail(ctx, "%s '%s': %%i belongs to a [replicas] template", key, value);
        return value_string(ctx, key, value, dst);
}

/* A container's name or ID as docker and podman accept them ([a-zA-Z0-9][a-zA-Z0-9_.-]*), and %i
 * in a template; nothing that would need quoting in the engine's URL. */
static int value_container(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        for (const char *p = value; *p; p++) {
                bool word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
                if (startswith(p, "%i"))
                        p++;
                else if (!word && !(p > value && strchr("_.-", *p)))
                        return fail(ctx,
                                    "bad %s '%s': a container name is letters, digits and '_.-', not starting with "
                                    "'_.-'",
                                    key, value);
        }
        if (!*value || strlen(value) > 128)
                return fail(ctx, "bad %s '%s': expected the container's name (docker run --name NAME)", key, value);
        if (strstr(value, "%i") && !ctx->replica->is_template)
                return fail(ctx, "%s '%s': %%i belongs to a [replicas] template", key, value);
        return value_string(ctx, key, value, dst);
}

static int value_unit(struct parse_ctx *ctx, const char *key, const char *value_as_written, void *dst) {
        /* As systemctl takes it: no suffix means the service. */
        _cleanup_free_ char *mangled = unit_name_mangle(value_as_written);
        const char *value = mangled, *why;

        if (ctx->replica->is_template) {
                const char *i = strstr(value, "%i");
                if (!i || strstr(i + 2, "%i"))
                        return fail(ctx, "%s '%s' of a template must contain %%i once", key, value);
                /* Check the name an instance will have before any path is built from it. */
                _cleanup_free_ char *inst = unit_template_instance(value, "0");
                if (!unit_name_is_valid_service(inst, &why))
                        return fail(ctx, "%s '%s' is not a valid service name: its instance '%s' %s", key, value, inst,
                                    why);
        } else if (!unit_name_is_valid_service(value, &why))
                return fail(ctx, "%s '%s' is not a valid service name: it %s", key, value, why);
        return value_string(ctx, key, value, dst);
}

static int canonical_pci(const char *s, char ret[PCI_ADDRESS_MAX]) {
        struct pci_address a;
        int r = pci_address_parse(s, true, &a);
        if (r < 0)
                return r;
        pci_address_format(&a, ret);
        return 0;
}

static void free_accelerators(void *p) {
        struct accelerator_choice *a = p;
        strv_free_n(a->pci, a->n);
        *a = (struct accelerator_choice){0};
}

static int value_accelerators(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        struct accelerator_choice *a = dst;
        _cleanup_strv_free_ char **items = split_list(value);
        const char *n;

        free_accelerators(a);
        if (strv_length(items) == 1 && streq(items[0], "none"))
                return 1; /* ACCEL_NONE */
        if (strv_length(items) == 1 && (n = startswith(items[0], "count:"))) {
                uint64_t v;
                if (parse_uint64(n, 10, &v) < 0 || v == 0 || v > 4096)
                        return fail(ctx, "bad accelerator count '%s': expected count:N with N >= 1", items[0]);
                *a = (struct accelerator_choice){.mode = ACCEL_COUNT, .count = (unsigned) v};
                return 1;
        }
        if (!items[0])
                return fail(ctx, "%s is empty: list PCI addresses, count:N, or none", key);
        for (size_t i = 0; items[i]; i++) {
                char pci[PCI_ADDRESS_MAX];
                if (canonical_pci(items[i], pci) < 0)
                        return fail(ctx, "bad PCI address '%s': expected DDDD:BB:DD.F or BB:DD.F", items[i]);
                for (size_t j = 0; j < a->n; j++)
                        if (streq(a->pci[j], pci))
                                return fail(ctx, "accelerator %s is listed twice", pci);
                a->pci = xrealloc(a->pci, (a->n + 1) * sizeof(char *));
                a->pci[a->n++] = xstrdup(pci);
        }
        a->mode = ACCEL_LIST;
        return 1;
}

static void free_overrides(void *p) {
        struct accel_overrides *o = p;
        free(o->v);
        *o = (struct accel_overrides){0};
}

static int value_overrides(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        _cleanup_strv_free_ char **items = split_list(value);
        struct accel_overrides *list = dst;

        free_overrides(list); /* a later file's list replaces an earlier one's */
        if (strv_length(items) == 1 && streq(items[0], "none"))
                return 1;
        for (size_t i = 0; items[i]; i++) {
                struct accel_override o = {.at = {ctx->file, ctx->line}};
                char *eq = strchr(items[i], '=');
                if (!eq)
                        return fail(ctx, "bad %s entry '%s': expected PCI=NODE", key, items[i]);
                *eq = 0;
                if (canonical_pci(items[i], o.pci) < 0 || parse_int(eq + 1, &o.node) < 0 || o.node < 0)
                        return fail(ctx, "bad %s entry '%s=%s': expected PCI=NODE", key, items[i], eq + 1);
                list->v = xrealloc(list->v, (list->n + 1) * sizeof(*list->v));
                list->v[list->n++] = o;
        }
        return 1;
}

const char *nics_mode_to_string(enum nics_mode m) {
        static const char *const names[] = {"auto", "none", "list"};
        return names[m];
}

static void free_nics(void *p) {
        struct nics_choice *n = p;
        strv_free(n->names);
        *n = (struct nics_choice){0};
}

/* A network interface's name as the kernel accepts one (dev_valid_name()): 1 to 15 bytes, not
 * "." or "..", no '/', ':' or blank; and no ',', which would split the lists the servers read. */
static const char *iface_name_problem(const char *s) {
        size_t n = strlen(s);
        if (n > 15)
                return "is longer than an interface name can be (15 bytes)";
        if (streq(s, ".") || streq(s, ".."))
                return "is no interface name";
        if (s[strcspn(s, "/:,= \t")])
                return "holds a character no interface name may ('/', ':', '=', ',' or a blank)";
        return NULL;
}

/* auto, none, or the interfaces of the network adapters to use: "ens1f0np0, ens2f0np0". */
static int value_nics(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        struct nics_choice *n = dst;
        _cleanup_strv_free_ char **items = split_list(value);

        free_nics(n);
        if (strv_length(items) == 1 && (streq(items[0], "auto") || streq(items[0], "none"))) {
                n->mode = streq(items[0], "auto") ? NICS_AUTO : NICS_NONE;
                return 1;
        }
        if (!items[0])
                return fail(ctx, "%s is empty: write auto, none, or the adapters' interface names", key);
        for (size_t i = 0; items[i]; i++) {
                const char *why = iface_name_problem(items[i]);
                if (streq(items[i], "auto") || streq(items[i], "none"))
                        return fail(ctx, "%s '%s': %s stands alone, not in a list of interfaces", key, value, items[i]);
                if (why)
                        return fail(ctx, "bad %s entry '%s': it %s", key, items[i], why);
                for (size_t j = 0; j < i; j++)
                        if (streq(items[j], items[i]))
                                return fail(ctx, "%s names interface %s twice", key, items[i]);
        }
        *n = (struct nics_choice){.mode = NICS_LIST, .names = TAKE_PTR(items)};
        n->n = strv_length(n->names);
        return 1;
}

const char *memory_tiers_to_string(unsigned tiers) {
        static const char *const names[] = {"local", "local+cxl", "local+hbm", "local+cxl+hbm"};
        return names[tiers & (TIERS_CXL | TIERS_HBM)];
}

/* local, then +cxl and +hbm, each once, in either order: the tiers add up, and local (the
 * nodes' own DRAM) is always in. */
static int value_memory_tiers(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        const char *p = startswith(value, "local");
        unsigned tiers = 0;

        while (p && *p) {
                const char *cxl = startswith(p, "+cxl"), *hbm = startswith(p, "+hbm");
                unsigned bit = cxl ? TIERS_CXL : hbm ? TIERS_HBM : 0;
                if (!bit || (tiers & bit))
                        break;
                tiers |= bit;
                p = cxl ? cxl : hbm;
        }
        if (!p || *p)
                return fail(ctx, "bad %s '%s': expected local, local+cxl, local+hbm or local+cxl+hbm", key, value);
        *(unsigned *) dst = tiers;
        return 1;
}

static int value_cpu_kinds(struct parse_ctx *ctx, const char *key, const char *value, void *dst) {
        if (streq(value, "all"))
                *(enum cpu_kinds_mode *) dst = CPU_KINDS_ALL;
        else if (streq(value, "best"))
                *(enum cpu_kinds_mode *) dst = CPU_KINDS_BEST;
        else
                return fail(ctx, "bad %s '%s': expected all or best", key, value);
        return 1;
}

/* What each parser's field owns, freed by config_free(): NULL for a field that owns nothing. */
static void free_string(void *p) {
        free(*(char **) p);
        *(char **) p = NULL;
}
static void free_paths(void *p) {
        strv_free(*(char ***) p);
        *(char ***) p = NULL;
}
#define free_policy NULL
#define free_per NULL
#define free_model_copies NULL
#define free_boolean NULL
#define free_percent NULL
#define free_headroom NULL
#define free_duration NULL
#define free_size NULL
#define free_cpu_list NULL
#define free_node_list NULL
#define free_cpus NULL
#define free_hugepages NULL
#define free_memory_tiers NULL
#define free_cpu_kinds NULL
#define free_unit free_string
#define free_url free_string
#define free_container free_string

/* ---- the key tables ---- */

struct numaplan_item {
        const char *name;
        value_parser parse;
        void (*free)(void *field);
        size_t offset;
        const char *default_value;
};
static const struct numaplan_item numaplan_items[_NUMAPLAN_KEY_MAX] = {
#define ROW(id, name, parser, field, def) \
        [NUMAPLAN_##id] = {name, value_##parser, free_##parser, offsetof(struct config, field), def},
        NUMAPLAN_KEYS(ROW)
#undef ROW
};

struct replica_item {
        const char *name;
        unsigned sections;
        value_parser parse;
        void (*free)(void *field);
        size_t offset;
        const char *default_value;
};
static const struct replica_item replica_items[_REPLICA_KEY_MAX] = {
#define ROW(id, name, sections, parser, field, def) \
        [REPLICA_##id] = {name, sections, value_##parser, free_##parser, offsetof(struct replica_conf, field), def},
        REPLICA_KEYS(ROW)
#undef ROW
};

bool config_irq_affinity_any(const struct config *c) {
        for (size_t i = 0; i < c->n_replicas; i++)
                if (replica_irq_affinity(c, &c->replicas[i]))
                        return true;
        return false;
}

struct config_key_info *config_keys(size_t *ret_n) {
        struct config_key_info *keys = xmalloc0((_NUMAPLAN_KEY_MAX + 2 * _REPLICA_KEY_MAX) * sizeof(*keys));
        size_t n = 0;

        for (size_t i = 0; i < _NUMAPLAN_KEY_MAX; i++)
                keys[n++] =
                        (struct config_key_info){"numaplan", numaplan_items[i].name, numaplan_items[i].default_value};
        for (unsigned in = IN_REPLICA; in <= IN_TEMPLATE; in <<= 1)
                for (size_t i = 0; i < _REPLICA_KEY_MAX; i++)
                        if (replica_items[i].sections & in)
                                keys[n++] =
                                        (struct config_key_info){in == IN_REPLICA ? "replica" : "replicas",
                                                                 replica_items[i].name, replica_items[i].default_value};
        *ret_n = n;
        return keys;
}

/* Sets a section's defaults by parsing each default as if it had been written: the documented
 * default and the applied one cannot drift apart. */
static void apply_numaplan_defaults(struct config *c) {
        struct error_at err = {0};
        struct parse_ctx ctx = {.c = c, .file = BUILTIN, .err = &err};
        for (size_t i = 0; i < _NUMAPLAN_KEY_MAX; i++)
                if (numaplan_items[i].default_value)
                        numaplan_items[i].parse(&ctx, numaplan_items[i].name, numaplan_items[i].default_value,
                                                (char *) c + numaplan_items[i].offset);
        error_at_done(&err);
}

static void apply_replica_defaults(struct config *c, struct replica_conf *r) {
        struct error_at err = {0};
        struct parse_ctx ctx = {.c = c, .file = BUILTIN, .err = &err, .replica = r};
        for (size_t i = 0; i < _REPLICA_KEY_MAX; i++)
                if (replica_items[i].default_value)
                        replica_items[i].parse(&ctx, replica_items[i].name, replica_items[i].default_value,
                                               (char *) r + replica_items[i].offset);
        error_at_done(&err);
}

static int numaplan_key(struct parse_ctx *ctx, const char *name, const char *value) {
        struct config *c = ctx->c;

        for (size_t i = 0; i < _NUMAPLAN_KEY_MAX; i++) {
                if (!streq(name, numaplan_items[i].name))
                        continue;
                /* A later file may override an earlier one's setting, but not its own. */
                if (c->key_at[i].file && streq(c->key_at[i].file, ctx->file))
                        return fail(ctx, "duplicate key '%s' in [numaplan]", name);
                c->key_at[i] = (struct where){ctx->file, ctx->line};
                return numaplan_items[i].parse(ctx, name, value, (char *) c + numaplan_items[i].offset);
        }
        const char *names[_NUMAPLAN_KEY_MAX];
        for (size_t i = 0; i < _NUMAPLAN_KEY_MAX; i++)
                names[i] = numaplan_items[i].name;
        _cleanup_free_ char *hint = suggest(name, names, _NUMAPLAN_KEY_MAX);
        return fail(ctx, "unknown key '%s' in [numaplan]%s", name, hint);
}

static int replica_key(struct parse_ctx *ctx, const char *name, const char *value) {
        struct replica_conf *r = ctx->replica;
        const char *kind = r->is_template ? "replicas" : "replica";
        unsigned in = r->is_template ? IN_TEMPLATE : IN_REPLICA;

        for (size_t i = 0; i < _REPLICA_KEY_MAX; i++) {
                if (!streq(name, replica_items[i].name) || !(replica_items[i].sections & in))
                        continue;
                if (replica_has(r, (enum replica_key) i))
                        return fail(ctx, "duplicate key '%s' in [%s %s]", name, kind, r->name);
                r->key_at[i] = (struct where){ctx->file, ctx->line};
                return replica_items[i].parse(ctx, name, value, (char *) r + replica_items[i].offset);
        }
        const char *names[_REPLICA_KEY_MAX];
        size_t n = 0;
        for (size_t i = 0; i < _REPLICA_KEY_MAX; i++) {
                if (streq(name, replica_items[i].name))
                        return fail(ctx, "key '%s' belongs in [%s NAME] sections, not [%s %s]", name,
                                    r->is_template ? "replica" : "replicas", kind, r->name);
                if (replica_items[i].sections & in)
                        names[n++] = replica_items[i].name;
        }
        _cleanup_free_ char *hint = suggest(name, names, n);
        return fail(ctx, "unknown key '%s' in [%s %s]%s", name, kind, r->name, hint);
}

/* config_units_of_text(): a unit = line, wherever it is, checked as unit = checks it (a
 * template's when it holds %i); anything else passed over. */
static int unit_of_any_section(struct parse_ctx *ctx, const char *name, const char *value) {
        struct replica_conf probe = {.is_template = strstr(value, "%i") != NULL}, *saved = ctx->replica;
        char *unit = NULL;

        ctx->replica = &probe;
        if (streq(name, "unit") && value_unit(ctx, name, value, &unit) > 0) {
                *ctx->units = xrealloc(*ctx->units, (ctx->n_units + 2) * sizeof(char *));
                (*ctx->units)[ctx->n_units++] = unit;
                (*ctx->units)[ctx->n_units] = NULL;
        } else
                free(unit);
        ctx->replica = saved;
        return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        struct parse_ctx *ctx = user;
        const char *stand_in = startswith(value, LONG_VALUE);
        int k;

        (void) section; /* the line source tracked it, with its line */
        if (stand_in && parse_int(stand_in, &k) >= 0 && k >= 0 && (size_t) k < ctx->n_long)
                value = ctx->long_values[k];
        if (ctx->units)
                return unit_of_any_section(ctx, name, value);
        ctx->value = value;
        switch (ctx->section) {
        case SECTION_NONE:
                /* Said once: the keys after it stand outside a section for the same reason. */
                fail(ctx, "key '%s' outside a section", name);
                ctx->section = SECTION_BROKEN;
                break;
        case SECTION_NUMAPLAN:
                numaplan_key(ctx, name, value);
                break;
        case SECTION_REPLICA:
                replica_key(ctx, name, value);
                break;
        case SECTION_BROKEN:
                return 1;
        }
        if (ctx->line_failed && !ctx->first_refused)
                ctx->first_refused = (unsigned) ctx->n_lines;
        return !ctx->line_failed;
}

/* ---- sections and lines ---- */

static bool valid_name(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char) *s) && !strchr("-_.", *s))
                        return false;
        return true;
}

/* A section header line: "[numaplan]", "[replica NAME]", "[replicas NAME]". */
static void section_header(struct parse_ctx *ctx, const char *line) {
        struct config *c = ctx->c;
        const char *end = strchr(line, ']');
        char kind[16] = "", name[200] = "", extra[2] = "";

        /* Until the header is known good: its keys must not land in the section before it. */
        ctx->section = SECTION_BROKEN;
        ctx->replica = NULL;
        if (!end) {
                fail(ctx, "section header without ']'");
                return;
        }
        _cleanup_free_ char *inner = xstrndup(line + 1, (size_t) (end - line - 1));
        int n = sscanf(inner, "%15s %199s %1s", kind, name, extra);
        if (n == 1 && streq(kind, "numaplan")) {
                ctx->section = SECTION_NUMAPLAN;
                return;
        }
        if (n < 1 || (!streq(kind, "replica") && !streq(kind, "replicas"))) {
                static const char *const kinds[] = {"numaplan", "replica", "replicas"};
                _cleanup_free_ char *hint = suggest(kind, kinds, ELEMENTSOF(kinds));
                fail(ctx, "unknown section [%s]%s: expected [numaplan], [replica NAME] or [replicas NAME]", inner,
                     hint);
                return;
        }
        if (n != 2 || !valid_name(name)) {
                fail(ctx, "bad section [%s]: the name must be one word of letters, digits, '-', '_' or '.'", inner);
                return;
        }
        for (size_t i = 0; i < c->n_replicas; i++)
                if (streq(c->replicas[i].name, name)) {
                        fail(ctx, "[%s %s] is already defined at %s:%u", kind, name, c->replicas[i].at.file,
                             c->replicas[i].at.line);
                        return;
                }
        c->replicas = xrealloc(c->replicas, (c->n_replicas + 1) * sizeof(*c->replicas));
        struct replica_conf *r = &c->replicas[c->n_replicas++];
        *r = (struct replica_conf){
                .name = xstrdup(name),
                .is_template = streq(kind, "replicas"),
                .at = {ctx->file, ctx->line},
        };
        apply_replica_defaults(c, r);
        ctx->replica = r;
        ctx->section = SECTION_REPLICA;
}

/* A value may reach a drop-in, where systemd ends a line at a carriage return and ignores a
 * line that is not UTF-8, and messages, which a control byte would repaint: a line that is no
 * comment holds neither, but for tabs and the line's own end ("\r\n" included). */
static bool line_is_safe(struct parse_ctx *ctx, const char *line) {
        _cleanup_free_ char *body = xstrndup(line, strcspn(line, "\n"));
        size_t n = strlen(body);
        if (n && body[n - 1] == '\r')
                body[n - 1] = 0;
        const char *bad = find_unsafe(body, "\t");
        if (!bad)
                return true;
        char byte[2] = {*bad, 0};
        _cleanup_free_ char *shown = name_escape(byte);
        fail(ctx,
             "a control character or a byte that is not UTF-8 (%s) at column %zu: only a comment may hold one, "
             "since a value may reach a drop-in, where systemd would end the line there or ignore the line",
             shown, (size_t) (bad - body) + 1);
        return false;
}

/* The next line of the text, without its end ("\r\n" included), and how far it went. */
static const char *next_line(struct parse_ctx *ctx, size_t *ret_len) {
        const char *p = ctx->text, *nl = memchr(p, '\n', (size_t) (ctx->end - p));
        size_t len = nl ? (size_t) (nl - p) : (size_t) (ctx->end - p);
        ctx->text = nl ? nl + 1 : ctx->end;
        ctx->read++;
        if (len && p[len - 1] == '\r')
                len--;
        *ret_len = len;
        return p;
}

/* One logical line: a line that is no comment and ends with a backslash goes on with the next
 * one, the backslash a blank, as in systemd's unit files. NULL after a NUL byte. */
static char *logical_line(struct parse_ctx *ctx) {
        struct strbuf b = {0};
        for (;;) {
                size_t len;
                const char *p = next_line(ctx, &len);
                if (memchr(p, 0, len)) {
                        fail(ctx, "a NUL byte: not a text file");
                        strbuf_done(&b);
                        return NULL;
                }
                strbuf_printf(&b, "%.*s", (int) len, p);
                const char *s = b.s + strspn(b.s, " \t");
                if (!len || p[len - 1] != '\\' || strchr(";#", *s) || ctx->text >= ctx->end)
                        break;
                b.s[--b.len] = ' ';
        }
        strbuf_printf(&b, "%s", ""); /* an empty last line is a string too */
        return strbuf_steal(&b);
}

/* A key's line too long for inih: "key = " and a stand-in for the value, which is kept as inih
 * would have read it (blanks and an inline " ;" comment taken off). */
static bool stand_in(struct parse_ctx *ctx, const char *line, char *str, int num) {
        size_t key = strcspn(line, "=:");
        if (!line[key] || key + 16 > (size_t) num) {
                fail(ctx, "line longer than %d bytes, and no key = value", num - 1);
                return false;
        }
        const char *v = line + key + 1;
        v += strspn(v, " \t");
        size_t n = strlen(v);
        for (const char *c = v; (c = strchr(c, ';')); c++)
                if (c > v && strchr(" \t", c[-1])) {
                        n = (size_t) (c - v);
                        break;
                }
        while (n && strchr(" \t", v[n - 1]))
                n--;
        ctx->long_values = xrealloc(ctx->long_values, (ctx->n_long + 1) * sizeof(char *));
        ctx->long_values[ctx->n_long] = xstrndup(v, n);
        snprintf(str, (size_t) num, "%.*s= " LONG_VALUE "%zu\n", (int) key, line, ctx->n_long++);
        return true;
}

/* Whether inih takes a line (neither blank, a comment nor a header) for a key's: a '=' or ':'
 * before any inline comment (a ';' after a blank), as inih looks for one. */
static bool has_delimiter(const char *s) {
        bool blank = false;
        for (; *s && !(blank && *s == ';'); s++) {
                if (*s == '=' || *s == ':')
                        return true;
                blank = isspace((unsigned char) *s);
        }
        return false;
}

/* One logical line, read: a header is taken, anything inih would misread refused. Fills `str`
 * with what inih is to read. */
static void take_line(struct parse_ctx *ctx, const char *line, char *str, int num) {
        const char *s = line;
        if (ctx->line == 1 && (unsigned char) s[0] == 0xEF && (unsigned char) s[1] == 0xBB &&
            (unsigned char) s[2] == 0xBF)
                s += 3; /* inih skips a UTF-8 byte order mark */
        const char *start = s;
        s += strspn(s, " \t");
        bool comment = !*s || strchr(";#", *s);
        if (!comment && s != start) {
                fail(ctx, "indented line: inih would read it as a continuation of the previous value");
                return;
        }
        if (!comment && !line_is_safe(ctx, s))
                return;
        bool fits = strlen(line) + 2 <= (size_t) num;
        if (fits)
                snprintf(str, (size_t) num, "%s\n", line);
        if (*s == '[' && !fits) {
                ctx->section = SECTION_BROKEN;
                fail(ctx, "section header longer than %d bytes", num - 1);
        } else if (*s == '[')
                section_header(ctx, s);
        else if (!fits && !comment)
                stand_in(ctx, s, str, num);
        else if (!comment && !has_delimiter(s))
                fail(ctx, "syntax error: expected [section], key = value, or a comment");
        else if (!fits)
                str[0] = '\n', str[1] = 0; /* a long comment */
}

/* inih's line source (fgets semantics). A line with an error reaches inih as a blank one, so that
 * the parse goes on and finds the next; a NUL byte ends it. */
static char *read_line(struct parse_ctx *ctx, char *str, int num) {
        if (ctx->stop || ctx->text >= ctx->end)
                return NULL;
        ctx->line = ctx->read + 1; /* messages name where the line starts */
        ctx->line_failed = false;
        _cleanup_free_ char *line = logical_line(ctx);
        if (!line) {
                ctx->stop = true;
                return NULL;
        }
        ctx->first_line = xrealloc(ctx->first_line, (ctx->n_lines + 2) * sizeof(unsigned));
        ctx->first_line[++ctx->n_lines] = ctx->line;
        take_line(ctx, line, str, num);
        if (ctx->line_failed)
                str[0] = '\n', str[1] = 0;
        return str;
}

static char *reader(char *str, int num, void *stream) {
        struct parse_ctx *ctx = stream;
        char *line = read_line(ctx, str, num);
        if (line || !ctx->units || ctx->text >= ctx->end)
                return line;
        /* Reading only for the units: a line that cannot be read (a NUL byte) is passed over, as a
         * blank one, and what follows it belongs to no section until the next header. */
        ctx->stop = false;
        ctx->section = SECTION_NONE;
        str[0] = '\n';
        str[1] = 0;
        return str;
}

static void parse_ctx_done(struct parse_ctx *ctx) {
        strv_free_n(ctx->long_values, ctx->n_long);
        free(ctx->first_line);
}

/* Made again as each file is read, from all of them. */
static void make_sources(struct config *c) {
        struct strbuf b = {0};

        for (size_t i = 0; c->files[i]; i++) {
                /* A path is any bytes: a newline in one would start a line of the drop-in. */
                _cleanup_free_ char *shown = name_escape(c->files[i]);
                strbuf_printf(&b, "%s%s", i ? ", " : "", shown);
        }
        if (b.len == 0)
                strbuf_append(&b, "the built-in default");
        free(c->sources);
        c->sources = strbuf_steal(&b);
}

int config_parse_text(struct config *c, const char *text, size_t len, const char *name, struct error_at *err) {
        size_t n = strv_length(c->files);
        c->files = xrealloc(c->files, (n + 2) * sizeof(char *));
        c->files[n] = xstrdup(name);
        c->files[n + 1] = NULL;
        make_sources(c);

        struct parse_ctx ctx = {.c = c, .file = c->files[n], .text = text, .end = text + len, .err = err};
        int line = ini_parse_stream(reader, &ctx, handler, &ctx);
        /* inih counts logical lines: the file's line is where that one starts. */
        unsigned at = line > 0 && (size_t) line <= ctx.n_lines ? ctx.first_line[line] : (unsigned) line;
        parse_ctx_done(&ctx);
        /* inih's first error, when it is none the handler refused: a line the line source let
         * through that inih would not read. */
        if (line > 0 && (unsigned) line != ctx.first_refused)
                return error_at_add(err, (struct where){ctx.file, at},
                                    "syntax error: expected [section], key = value, or a comment");
        return ctx.n_failed > 0 ? -EINVAL : 0;
}

char **config_units_of_text(const char *text, size_t len, const char *name) {
        _cleanup_config_ struct config *c = config_new();
        char **units = xmalloc0(sizeof(char *));
        struct error_at err = {0};
        struct parse_ctx ctx = {.c = c, .file = name, .text = text, .end = text + len, .err = &err, .units = &units};

        (void) ini_parse_stream(reader, &ctx, handler, &ctx);
        parse_ctx_done(&ctx);
        error_at_done(&err);
        return units;
}

struct config *config_new(void) {
        struct config *c = xmalloc0(sizeof(*c));
        c->files = xmalloc0(sizeof(char *));
        make_sources(c);
        apply_numaplan_defaults(c);
        return c;
}

/* The built-in default: one replica per compute accelerator (or per node with CPUs on a host
 * without any); the planner picks which, since only it knows the host. */
static void add_default(struct config *c) {
        c->builtin_default = true;
        c->replicas = xrealloc(c->replicas, sizeof(*c->replicas));
        struct replica_conf *r = &c->replicas[0];
        *r = (struct replica_conf){.name = xstrdup("inference"), .is_template = true, .at = {BUILTIN, 0}};
        apply_replica_defaults(c, r);
        r->unit = xstrdup("inference@%i.service");
        r->key_at[REPLICA_UNIT] = r->at;
        c->n_replicas = 1;
}

int config_finish(struct config *c, struct error_at *err) {
        int ret = 0;

        for (size_t i = 0; i < c->n_replicas; i++) {
                const struct replica_conf *r = &c->replicas[i];
                /* A section with an error already said is not checked as a whole: a unit = that did
                 * not parse is no missing one. */
                if (r->broken)
                        continue;
                if (!r->unit)
                        ret = error_at_add(err, r->at, "[%s %s] has no unit", r->is_template ? "replicas" : "replica",
                                           r->name);
                else if (r->model_copies != MODEL_COPIES_NONE && !r->models)
                        ret = error_at_add(
                                err, r->key_at[REPLICA_MODEL_COPIES],
                                "model-copies = per-node copies the model, and [%s %s] names none: add model "
                                "= PATH",
                                r->is_template ? "replicas" : "replica", r->name);
        }
        if (c->n_replicas == 0)
                add_default(c);
        return ret;
}

bool config_wants_nics(const struct config *c) {
        for (size_t i = 0; i < c->n_replicas; i++)
                if (replica_nics(c, &c->replicas[i])->mode != NICS_NONE)
                        return true;
        return false;
}

int config_parse_string(const char *text, const char *name, struct config **ret, struct error_at *err) {
        _cleanup_config_ struct config *c = config_new();

        int r = config_parse_text(c, text, strlen(text), name, err);
        if (config_finish(c, err) < 0 || r < 0)
                return -EINVAL;
        *ret = TAKE_PTR(c);
        return 0;
}

struct config *config_free(struct config *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_replicas; i++) {
                struct replica_conf *r = &c->replicas[i];
                free(r->name);
                free(r->model_warning);
                for (size_t k = 0; k < _REPLICA_KEY_MAX; k++)
                        if (replica_items[k].free)
                                replica_items[k].free((char *) r + replica_items[k].offset);
        }
        for (size_t k = 0; k < _NUMAPLAN_KEY_MAX; k++)
                if (numaplan_items[k].free)
                        numaplan_items[k].free((char *) c + numaplan_items[k].offset);
        free(c->replicas);
        strv_free(c->files);
        free(c->sources);
        free(c);
        return NULL;
}

const char *config_sources(const struct config *c) {
        return c->sources;
}
