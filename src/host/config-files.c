/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/warnings.h"
#include "host/config-files.h"
#include "host/model-files.h"

/* Far beyond any real configuration; a file larger than this is not one. */
#define CONFIG_SIZE_MAX (4U << 20)

/* Running as root, a file anyone else can write would let them choose what root writes into
 * /etc/systemd/system: refuse it, like sudo and sshd refuse theirs. */
static int check_owner(const char *path, const struct stat *st, struct error_at *err) {
        if (geteuid() != 0 || !S_ISREG(st->st_mode))
                return 0; /* -c /dev/null and the like: nobody writes a configuration into those */
        if (st->st_uid != 0) {
                error_at_add(err, (struct where){path, 0}, "owned by uid %u, not root: refused (numaplan runs as root)",
                             (unsigned) st->st_uid);
                return -EPERM;
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                error_at_add(err, (struct where){path, 0}, "writable by group or others (mode %04o): refused",
                             (unsigned) (st->st_mode & 07777));
                return -EPERM;
        }
        return 0;
}

/* What a configuration can be read from: a regular file, or /dev/null for an empty one. A FIFO
 * would block, /dev/zero never end, and a directory is a mistake for its conf.d. */
static const char *unreadable_type(const struct stat *st) {
        if (S_ISREG(st->st_mode) || (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3)))
                return NULL;
        return file_type_name(st->st_mode);
}

/* Parses one file into c, adding what is wrong with it or in it to *err, said once every file
 * is read; -ENOENT, -EPERM or -EINVAL then. Another -errno was said (not the admin's mistake). */
static int parse_file(struct config *c, const char *path, bool missing_ok, struct error_at *err) {
        /* O_NONBLOCK: opening a FIFO must not wait for a writer before its type is checked. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        _cleanup_free_ char *text = NULL;
        struct stat st;
        size_t len;

        if (fd < 0) {
                if (errno == ENOENT && missing_ok)
                        return 0;
                int r = -errno;
                error_at_add(err, (struct where){path, 0}, "cannot open: %s", strerror(errno));
                return r == -ENOENT ? -ENOENT : -EINVAL;
        }
        if (fstat(fd, &st) < 0)
                return log_error_errno(-errno, "%s: %m", path);
        const char *type = unreadable_type(&st);
        if (type)
                return error_at_add(err, (struct where){path, 0}, "is %s, not a configuration file: refused", type);
        int r = check_owner(path, &st, err);
        if (r < 0)
                return r;
        r = read_fd_all(fd, CONFIG_SIZE_MAX, 0, &text, &len);
        if (r < 0)
                return error_at_add(err, (struct where){path, 0}, "cannot read: %s", strerror(-r));
        /* Drop-in headers name the file: the same file must give the same bytes from any cwd. */
        _cleanup_free_ char *abs = realpath(path, NULL);
        if (find_unsafe(abs ? abs : path, NULL)) /* said now: `abs` is gone once the errors are */
                return log_error_at((struct where){abs ? abs : path, 0},
                                    "a control character or a byte that is not UTF-8 in the configuration's path: "
                                    "refused, since the drop-ins name the file they come from");
        return config_parse_text(c, text, len, abs ? abs : path, err);
}

/* A model's files as the configuration names them, escaped, for a message. */
static char *models_shown(char *const *models) {
        struct strbuf b = {0};
        for (size_t i = 0; models[i]; i++) {
                _cleanup_free_ char *shown = name_escape(models[i]);
                strbuf_printf(&b, "%s%s", i ? ", " : "", shown);
        }
        return strbuf_steal(&b);
}

/* A model's size: what the replica will map at least, and its memory when memory = is not set. A
 * model not there yet, or empty, is a warning (model-missing) when memory = says how much the
 * replica needs, since it may arrive before the server starts; but not one to copy: a copy of
 * nothing is an error. Every error is added to *err. */
static void size_model(struct replica_conf *r, struct error_at *err) {
        const char *kind = r->is_template ? "replicas" : "replica", *what = NULL;
        _cleanup_free_ char *bad = NULL, *shown = NULL, *all = models_shown(r->models);
        struct where at = replica_where(r, REPLICA_MODEL);

        int k = model_files_size(r->models, &r->model_bytes, &r->model_copy_bytes, &bad, &what);
        shown = name_escape(bad);
        if (k == -EBADFD) {
                error_at_add(err, at,
                             "[%s %s]: model %s is %s, not a model's file (a regular file, or a directory of them)",
                             kind, r->name, shown, what);
                return;
        }
        _cleanup_free_ char *why = k < 0 ? xasprintf("%s cannot be read (%s)", shown, strerror(-k))
                                         : xasprintf("%s holds no data (0 bytes in files)", all);
        if (k < 0)
                r->model_bytes = r->model_copy_bytes = 0;
        if (r->model_bytes == 0 && r->model_copies == MODEL_COPIES_PER_NODE)
                error_at_add(err, at,
                             "[%s %s]: model-copies = per-node would copy model %s, and %s: a copy of nothing; "
                             "put the model there first, or set model-copies = none",
                             kind, r->name, all, why);
        else if (k < 0 && !replica_has(r, REPLICA_MEMORY))
                error_at_add(err, at, "[%s %s]: cannot size model %s (%s): set memory =", kind, r->name, shown,
                             strerror(-k));
        else if (r->model_bytes == 0)
                r->model_warning = xasprintf("%s:%u: [%s %s]: model %s; %s", at.file, at.line, kind, r->name, why,
                                             replica_has(r, REPLICA_MEMORY)
                                                     ? "planned with memory = all the same, as the model may be there "
                                                       "before the server starts"
                                                     : "so it sizes no memory: set memory =");
        if (!replica_has(r, REPLICA_MEMORY))
                r->memory = r->model_bytes;
}

static int size_models(struct config *c) {
        struct error_at err = {0};
        for (size_t i = 0; i < c->n_replicas; i++)
                if (c->replicas[i].models)
                        size_model(&c->replicas[i], &err);
        return error_at_count(&err) > 0 ? log_error_at_done(&err) : 0;
}

void config_model_warnings(const struct config *c, struct warnings *w) {
        for (size_t i = 0; i < c->n_replicas; i++)
                if (c->replicas[i].model_warning)
                        warnings_add(w, WARNING_MODEL_MISSING, c->replicas[i].name, "%s", c->replicas[i].model_warning);
}

char **config_files(const char *path) {
        char **v = xmalloc0(2 * sizeof(char *));
        size_t n = 0;
        glob_t g = {0};

        if (path) {
                v[0] = xstrdup(path);
                return v;
        }
        v[n++] = xstrdup(CONFIG_FILE);
        if (glob(CONFIG_DROPIN_DIR "/*.conf", 0, NULL, &g) == 0) { /* glob sorts */
                v = xrealloc(v, (g.gl_pathc + 2) * sizeof(char *));
                for (size_t i = 0; i < g.gl_pathc; i++)
                        v[n++] = xstrdup(g.gl_pathv[i]);
        }
        v[n] = NULL;
        globfree(&g);
        return v;
}

int config_load(const char *path, struct config **ret) {
        _cleanup_config_ struct config *c = config_new();
        _cleanup_strv_free_ char **files = config_files(path);
        struct error_at err = {0};
        int r = 0;

        /* Every file, every error in them, each at its line, said at once: one run shows the admin
         * all there is to fix. The default file may be absent: an empty configuration. */
        for (size_t i = 0; files[i]; i++) {
                int k = parse_file(c, files[i], !path && i == 0, &err);
                if (k < 0 && k != -ENOENT && k != -EPERM && k != -EINVAL) {
                        if (error_at_count(&err) > 0)
                                log_error_at_done(&err);
                        return k;
                }
                if (r == 0)
                        r = k;
        }
        if (config_finish(c, &err) < 0 && r == 0)
                r = -EINVAL;
        if (r < 0) {
                log_error_at_done(&err);
                return r;
        }
        r = size_models(c);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}
