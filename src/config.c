/* SPDX-License-Identifier: MIT */
/* numaplan.conf through inih. Debian's libinih reports no line numbers to the handler, so the
 * reader we hand inih counts lines itself: when inih calls the handler, the line it just read is
 * the key's line. The reader also sees section headers (inih does not report sections without
 * keys) and refuses what inih would silently misread: over-long lines and indented lines, which
 * inih takes as continuations of the previous value. */

#include <ctype.h>
#include <glob.h>
#include <ini.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "config.h"
#include "log.h"
#include "parse-util.h"
#include "unit-name.h"
#include "util.h"

#define BUILTIN "built-in default"

enum section { SECTION_NONE, SECTION_NUMAPLAN, SECTION_REPLICA };

struct parse_ctx {
        struct config *c;
        const char *file;
        FILE *f;          /* the source: a file, */
        const char *text; /* or a string */
        unsigned line;
        char *error;
        unsigned error_line;

        enum section section;
        size_t replica; /* index into c->replicas while section == SECTION_REPLICA */
        char **seen;    /* keys seen in this section (for [numaplan]: in this file) */
        size_t n_seen;
        char **numaplan_seen;
        size_t n_numaplan_seen;
};

void config_error(struct where at, const char *fmt, ...) {
        va_list ap;

        if (at.line)
                fprintf(stderr, "%s:%u: ", at.file, at.line);
        else
                fprintf(stderr, "%s: ", at.file);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

_printf_(2, 3) static int fail(struct parse_ctx *ctx, const char *fmt, ...) {
        va_list ap;

        if (ctx->error)
                return 0;
        va_start(ap, fmt);
        if (vasprintf(&ctx->error, fmt, ap) < 0)
                ctx->error = xstrdup("out of memory");
        va_end(ap);
        ctx->error_line = ctx->line;
        return 0; /* inih: this handler call failed */
}

static struct where here(const struct parse_ctx *ctx) {
        return (struct where){.file = ctx->file, .line = ctx->line};
}

const char *policy_to_string(enum policy p) {
        static const char *const names[] = {"auto", "bind", "preferred", "interleave"};
        return names[p];
}

static int parse_policy(const char *s, enum policy *ret) {
        for (enum policy p = POLICY_AUTO; p <= POLICY_INTERLEAVE; p++)
                if (streq(s, policy_to_string(p))) {
                        *ret = p;
                        return 0;
                }
        return -EINVAL;
}

/* "0000:3b:00.0" or "3b:00.0" into the canonical lower-case, domain-qualified form. */
static int parse_pci_address(const char *s, char ret[24]) {
        unsigned dom = 0, bus, dev, fn;
        char tail;

        if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4) {
                if (strlen(s) < 12)
                        return -EINVAL;
        } else if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &tail) == 3)
                dom = 0;
        else
                return -EINVAL;
        for (const char *p = s; *p; p++)
                if (!isxdigit((unsigned char) *p) && *p != ':' && *p != '.')
                        return -EINVAL;
        if (bus > 0xff || dev > 0x1f || fn > 7 || dom > 0xffffffu)
                return -ERANGE;
        snprintf(ret, 24, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
        return 0;
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

static int set_accelerators(struct parse_ctx *ctx, struct replica_conf *r, const char *value) {
        _cleanup_strv_free_ char **items = split_list(value);
        const char *n;

        r->at_accels = here(ctx);
        if (strv_length(items) == 1 && streq(items[0], "none")) {
                r->accel_mode = ACCEL_NONE;
                return 1;
        }
        if (strv_length(items) == 1 && (n = startswith(items[0], "count:"))) {
                uint64_t v;
                if (parse_uint64(n, 10, &v) < 0 || v == 0 || v > 4096)
                        return fail(ctx, "bad accelerator count '%s': expected count:N with N >= 1", items[0]);
                r->accel_mode = ACCEL_COUNT;
                r->count = (unsigned) v;
                return 1;
        }
        if (!items[0])
                return fail(ctx, "accelerators is empty: list PCI addresses, count:N, or none");
        for (size_t i = 0; items[i]; i++) {
                char pci[24];
                if (parse_pci_address(items[i], pci) < 0)
                        return fail(ctx, "bad PCI address '%s': expected DDDD:BB:DD.F or BB:DD.F", items[i]);
                for (size_t j = 0; j < r->n_accels; j++)
                        if (streq(r->accels[j], pci))
                                return fail(ctx, "accelerator %s is listed twice", pci);
                r->accels = xrealloc(r->accels, (r->n_accels + 1) * sizeof(char *));
                r->accels[r->n_accels++] = xstrdup(pci);
        }
        r->accel_mode = ACCEL_LIST;
        return 1;
}

static int set_overrides(struct parse_ctx *ctx, const char *value) {
        _cleanup_strv_free_ char **items = split_list(value);
        struct config *c = ctx->c;

        c->n_overrides = 0; /* a later file's list replaces an earlier one's */
        for (size_t i = 0; items[i]; i++) {
                struct accel_override o = {.at = here(ctx)};
                char *eq = strchr(items[i], '=');
                if (!eq)
                        return fail(ctx, "bad accelerator-nodes entry '%s': expected PCI=NODE", items[i]);
                *eq = 0;
                if (parse_pci_address(items[i], o.pci) < 0 || parse_int(eq + 1, &o.node) < 0 || o.node < 0)
                        return fail(ctx, "bad accelerator-nodes entry '%s=%s': expected PCI=NODE", items[i], eq + 1);
                c->overrides = xrealloc(c->overrides, (c->n_overrides + 1) * sizeof(*c->overrides));
                c->overrides[c->n_overrides++] = o;
        }
        return 1;
}

static int set_bool(struct parse_ctx *ctx, const char *name, const char *value, bool *ret) {
        if (parse_boolean(value, ret) < 0)
                return fail(ctx, "bad %s '%s': expected yes or no", name, value);
        return 1;
}

static int set_percent(struct parse_ctx *ctx, const char *name, const char *value, unsigned max_bp,
                       unsigned *ret) {
        if (parse_percent(value, ret) < 0 || *ret > max_bp)
                return fail(ctx, "bad %s '%s': expected a percentage such as 95%%", name, value);
        return 1;
}

static int set_duration(struct parse_ctx *ctx, const char *name, const char *value, uint64_t *ret) {
        if (parse_duration_ms(value, ret) < 0 || *ret == 0)
                return fail(ctx, "bad %s '%s': expected a duration such as 120s, 2m or 500ms", name, value);
        return 1;
}

/* Keys common to [replica] and [replicas]. Returns 1 when handled, 0 on error, -1 when unknown. */
static int replica_key(struct parse_ctx *ctx, struct replica_conf *r, const char *name, const char *value) {
        bool b;

        if (streq(name, "unit")) {
                const char *why;
                r->at_unit = here(ctx);
                if (r->is_template) {
                        const char *i = strstr(value, "%i");
                        if (!i || strstr(i + 2, "%i"))
                                return fail(ctx, "unit '%s' of a template must contain %%i once", value);
                        /* Check the name an instance will have before any path is built from it. */
                        _cleanup_free_ char *inst = xasprintf("%.*s0%s", (int) (i - value), value, i + 2);
                        if (!unit_name_is_valid_service(inst, &why))
                                return fail(ctx, "unit '%s' is not a valid service name: its instance '%s' %s",
                                            value, inst, why);
                } else if (!unit_name_is_valid_service(value, &why))
                        return fail(ctx, "unit '%s' is not a valid service name: it %s", value, why);
                r->unit = xstrdup(value);
        } else if (streq(name, "memory")) {
                if (parse_size(value, &r->memory) < 0)
                        return fail(ctx, "bad memory '%s': expected bytes with a binary suffix K, M, G or T",
                                    value);
                r->memory_set = true;
                r->at_memory = here(ctx);
        } else if (streq(name, "model")) {
                if (value[0] != '/')
                        return fail(ctx, "model '%s' must be an absolute path", value);
                r->model = xstrdup(value);
        } else if (streq(name, "policy")) {
                if (parse_policy(value, &r->policy) < 0)
                        return fail(ctx, "bad policy '%s': expected auto, bind, preferred or interleave", value);
                r->policy_set = true;
                r->at_policy = here(ctx);
        } else if (streq(name, "cpus")) {
                const char *n = startswith(value, "cores:");
                uint64_t v = 0;
                r->at_cpus = here(ctx);
                if (streq(value, "node"))
                        r->cores = 0;
                else if (n && parse_uint64(n, 10, &v) >= 0 && v > 0 && v < CPUSET_MAX)
                        r->cores = (unsigned) v;
                else
                        return fail(ctx, "bad cpus '%s': expected node or cores:N", value);
        } else if (streq(name, "memory-nodes")) {
                if (cpuset_parse_list(value, &r->memory_nodes) < 0)
                        return fail(ctx, "bad memory-nodes '%s': expected a node list such as 2 or 2-3", value);
                r->at_memory_nodes = here(ctx);
        } else if (streq(name, "visible-devices")) {
                if (set_bool(ctx, name, value, &b) == 0)
                        return 0;
                r->visible_devices = b;
        } else if (streq(name, "warmup-url")) {
                if (!startswith(value, "http://") && !startswith(value, "https://"))
                        return fail(ctx, "bad warmup-url '%s': expected http:// or https://", value);
                r->warmup_url = xstrdup(value);
        } else if (streq(name, "warmup-body")) {
                r->warmup_body = xstrdup(value);
        } else if (streq(name, "warmup-timeout")) {
                if (set_duration(ctx, name, value, &r->warmup_timeout_ms) == 0)
                        return 0;
                r->warmup_timeout_set = true;
        } else if (streq(name, "min-local")) {
                if (set_percent(ctx, name, value, 10000, &r->min_local_bp) == 0)
                        return 0;
                r->min_local_set = true;
        } else
                return -1;
        return 1;
}

static int numaplan_key(struct parse_ctx *ctx, const char *name, const char *value) {
        struct config *c = ctx->c;

        if (streq(name, "headroom"))
                return set_percent(ctx, name, value, 9900, &c->headroom_bp);
        if (streq(name, "reserve-cpus")) {
                if (streq(value, "none"))
                        cpuset_clear(&c->reserve_cpus);
                else if (cpuset_parse_list(value, &c->reserve_cpus) < 0)
                        return fail(ctx, "bad reserve-cpus '%s': expected a CPU list such as 0,48", value);
                return 1;
        }
        if (streq(name, "policy")) {
                if (parse_policy(value, &c->policy) < 0)
                        return fail(ctx, "bad policy '%s': expected auto, bind, preferred or interleave", value);
                return 1;
        }
        if (streq(name, "visible-devices"))
                return set_bool(ctx, name, value, &c->visible_devices);
        if (streq(name, "min-local"))
                return set_percent(ctx, name, value, 10000, &c->min_local_bp);
        if (streq(name, "warmup-timeout"))
                return set_duration(ctx, name, value, &c->warmup_timeout_ms);
        if (streq(name, "accelerator-nodes"))
                return set_overrides(ctx, value);
        return fail(ctx, "unknown key '%s' in [numaplan]", name);
}

static bool seen_before(char ***seen, size_t *n, const char *name) {
        for (size_t i = 0; i < *n; i++)
                if (streq((*seen)[i], name))
                        return true;
        *seen = xrealloc(*seen, (*n + 1) * sizeof(char *));
        (*seen)[(*n)++] = xstrdup(name);
        return false;
}

static void forget(char ***seen, size_t *n) {
        for (size_t i = 0; i < *n; i++)
                free((*seen)[i]);
        free(*seen);
        *seen = NULL;
        *n = 0;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        struct parse_ctx *ctx = user;

        (void) section; /* the reader tracked it, with its line */
        if (ctx->error)
                return 0;
        switch (ctx->section) {
        case SECTION_NONE:
                return fail(ctx, "key '%s' outside a section", name);
        case SECTION_NUMAPLAN:
                if (seen_before(&ctx->numaplan_seen, &ctx->n_numaplan_seen, name))
                        return fail(ctx, "duplicate key '%s' in [numaplan]", name);
                return numaplan_key(ctx, name, value);
        case SECTION_REPLICA: {
                struct replica_conf *r = &ctx->c->replicas[ctx->replica];
                const char *kind = r->is_template ? "replicas" : "replica";
                if (seen_before(&ctx->seen, &ctx->n_seen, name))
                        return fail(ctx, "duplicate key '%s' in [%s %s]", name, kind, r->name);
                if (streq(name, "accelerators") && !r->is_template)
                        return set_accelerators(ctx, r, value);
                if (streq(name, "per") && r->is_template) {
                        if (streq(value, "accelerator"))
                                r->per = PER_ACCELERATOR;
                        else if (streq(value, "node"))
                                r->per = PER_NODE;
                        else
                                return fail(ctx, "bad per '%s': expected accelerator or node", value);
                        return 1;
                }
                int k = replica_key(ctx, r, name, value);
                if (k < 0)
                        return fail(ctx, "unknown key '%s' in [%s %s]", name, kind, r->name);
                return k;
        }
        }
        return 0;
}

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

        forget(&ctx->seen, &ctx->n_seen);
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
                fail(ctx, "unknown section [%s]: expected [numaplan], [replica NAME] or [replicas NAME]", inner);
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
        c->replicas[c->n_replicas] = (struct replica_conf){
                .name = xstrdup(name),
                .is_template = streq(kind, "replicas"),
                .at = here(ctx),
                .visible_devices = -1,
        };
        ctx->replica = c->n_replicas++;
        ctx->section = SECTION_REPLICA;
}

/* inih's line source (fgets semantics). Stops the parse after the first error we found. */
static char *reader(char *str, int num, void *stream) {
        struct parse_ctx *ctx = stream;

        if (ctx->error)
                return NULL;
        if (ctx->f) {
                if (!fgets(str, num, ctx->f))
                        return NULL;
        } else {
                const char *p = ctx->text;
                if (!*p)
                        return NULL;
                size_t len = strcspn(p, "\n");
                len += p[len] == '\n';
                if (len > (size_t) num - 1)
                        len = (size_t) num - 1;
                memcpy(str, p, len);
                str[len] = 0;
                ctx->text += len;
        }
        ctx->line++;

        size_t len = strlen(str);
        bool at_end = ctx->f ? feof(ctx->f) : !*ctx->text;
        if (len > 0 && str[len - 1] != '\n' && !at_end) {
                fail(ctx, "line longer than %d bytes (inih's limit)", num - 1);
                return NULL;
        }

        const char *s = str;
        if (ctx->line == 1 && startswith(s, "\xEF\xBB\xBF"))
                s += 3; /* inih skips a UTF-8 byte order mark */
        const char *first = s;
        s += strspn(s, " \t\r\n");
        if (*s && s != first && !strchr(";#", *s)) {
                fail(ctx, "indented line: inih would read it as a continuation of the previous value");
                return NULL;
        }
        if (*s == '[')
                section_header(ctx, s);
        return ctx->error ? NULL : str;
}

static int parse_source(struct parse_ctx *ctx) {
        int line = ini_parse_stream(reader, ctx, handler, ctx);

        forget(&ctx->seen, &ctx->n_seen);
        forget(&ctx->numaplan_seen, &ctx->n_numaplan_seen);
        if (line > 0 && (!ctx->error || (unsigned) line < ctx->error_line)) {
                config_error((struct where){ctx->file, (unsigned) line},
                             "syntax error: expected [section], key = value, or a comment");
                free(ctx->error);
                ctx->error = NULL;
                return -EINVAL;
        }
        if (ctx->error) {
                config_error((struct where){ctx->file, ctx->error_line}, "%s", ctx->error);
                free(ctx->error);
                ctx->error = NULL;
                return -EINVAL;
        }
        return 0;
}

static struct config *config_new(void) {
        struct config *c = xmalloc0(sizeof(*c));
        c->files = xmalloc0(sizeof(char *));
        c->headroom_bp = 1000;
        c->policy = POLICY_AUTO;
        c->visible_devices = true;
        c->min_local_bp = 9500;
        c->warmup_timeout_ms = 120 * 1000;
        return c;
}

static const char *add_file(struct config *c, const char *name) {
        size_t n = strv_length(c->files);
        c->files = xrealloc(c->files, (n + 2) * sizeof(char *));
        c->files[n] = xstrdup(name);
        c->files[n + 1] = NULL;
        return c->files[n];
}

/* Running as root, a file anyone else can write would let them choose what root writes into
 * /etc/systemd/system: refuse it, like sudo and sshd refuse theirs. */
static int check_owner(const char *path, int fd) {
        struct stat st;

        if (geteuid() != 0)
                return 0;
        if (fstat(fd, &st) < 0)
                return log_error_errno(-errno, "%s: %m", path);
        if (!S_ISREG(st.st_mode))
                return 0; /* -c /dev/null and the like: nobody writes a configuration into those */
        if (st.st_uid != 0) {
                config_error((struct where){path, 0}, "owned by uid %u, not root: refused (numaplan runs as root)",
                             (unsigned) st.st_uid);
                return -EPERM;
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
                config_error((struct where){path, 0}, "writable by group or others (mode %04o): refused",
                             (unsigned) (st.st_mode & 07777));
                return -EPERM;
        }
        return 0;
}

static int parse_file(struct config *c, const char *path, bool missing_ok) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f) {
                if (errno == ENOENT && missing_ok)
                        return 0;
                int r = -errno;
                config_error((struct where){path, 0}, "cannot open: %s", strerror(errno));
                return r == -ENOENT ? -ENOENT : -EINVAL;
        }
        int r = check_owner(path, fileno(f));
        if (r < 0)
                return r;
        /* Drop-in headers name the file: the same file must give the same bytes from any cwd. */
        _cleanup_free_ char *abs = realpath(path, NULL);
        struct parse_ctx ctx = {.c = c, .file = add_file(c, abs ? abs : path), .f = f};
        return parse_source(&ctx);
}

/* SPEC's default: one replica per compute accelerator (or per node with CPUs on a host without
 * any); the planner picks which, since only it knows the host. */
static void add_default(struct config *c) {
        c->builtin_default = true;
        c->replicas = xrealloc(c->replicas, sizeof(*c->replicas));
        c->replicas[0] = (struct replica_conf){
                .name = xstrdup("inference"),
                .is_template = true,
                .per = PER_ACCELERATOR,
                .at = {BUILTIN, 0},
                .unit = xstrdup("inference@%i.service"),
                .at_unit = {BUILTIN, 0},
                .visible_devices = -1,
        };
        c->n_replicas = 1;
}

/* Checks a section as a whole once all its keys are read; sizes models (the one I/O here). */
static int finish(struct config *c, bool stat_models) {
        for (size_t i = 0; i < c->n_replicas; i++) {
                struct replica_conf *r = &c->replicas[i];
                const char *kind = r->is_template ? "replicas" : "replica";
                if (!r->unit) {
                        config_error(r->at, "[%s %s] has no unit", kind, r->name);
                        return -EINVAL;
                }
                if (r->model && !r->memory_set && stat_models) {
                        struct stat st;
                        if (stat(r->model, &st) < 0) {
                                config_error(r->at, "[%s %s]: cannot size model %s (%s): set memory =", kind, r->name,
                                             r->model, strerror(errno));
                                return -EINVAL;
                        }
                        r->memory = (uint64_t) st.st_size;
                }
        }
        if (c->n_replicas == 0)
                add_default(c);
        return 0;
}

int config_parse_string(const char *text, const char *name, struct config **ret) {
        _cleanup_config_ struct config *c = config_new();
        struct parse_ctx ctx = {.c = c, .file = add_file(c, name), .text = text};

        int r = parse_source(&ctx);
        if (r < 0)
                return r;
        r = finish(c, false);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int config_load(const char *path, struct config **ret) {
        _cleanup_config_ struct config *c = config_new();
        int r;

        if (path)
                r = parse_file(c, path, false);
        else {
                glob_t g = {0};
                r = parse_file(c, CONFIG_FILE, true);
                if (r >= 0 && glob(CONFIG_DROPIN_DIR "/*.conf", 0, NULL, &g) == 0)
                        for (size_t i = 0; r >= 0 && i < g.gl_pathc; i++) /* glob sorts */
                                r = parse_file(c, g.gl_pathv[i], false);
                globfree(&g);
        }
        if (r < 0)
                return r;
        r = finish(c, true);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

struct config *config_free(struct config *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_replicas; i++) {
                struct replica_conf *r = &c->replicas[i];
                free(r->name);
                free(r->unit);
                for (size_t j = 0; j < r->n_accels; j++)
                        free(r->accels[j]);
                free(r->accels);
                free(r->model);
                free(r->warmup_url);
                free(r->warmup_body);
        }
        free(c->replicas);
        free(c->overrides);
        strv_free(c->files);
        free(c);
        return NULL;
}

char *config_sources(const struct config *c) {
        struct strbuf b = {0};

        for (size_t i = 0; c->files[i]; i++)
                strbuf_printf(&b, "%s%s", i ? ", " : "", c->files[i]);
        if (b.len == 0)
                strbuf_append(&b, "the built-in default");
        return strbuf_steal(&b);
}
