/* SPDX-License-Identifier: MIT */
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/placement.h"
#include "core/unit-name.h"
#include "stage/state.h"

/* Far beyond any record of units: a file larger than this is not one. */
#define RECORD_MAX (4U << 20)

void state_paths_init(struct state_paths *s, const char *runtime_dir) {
        state_paths_done(s);
        s->runtime_dir = xstrdup(runtime_dir);
        s->lock = xasprintf("%s" STATE_LOCK_SUFFIX, runtime_dir);
        s->unplaced = xasprintf("%s/" STATE_UNPLACED, runtime_dir);
        s->applied_old = xasprintf("%s/" STATE_APPLIED_OLD, runtime_dir);
        s->models = xasprintf("%s/" STATE_MODELS, runtime_dir);
        s->nics = xasprintf("%s/" STATE_NICS, runtime_dir);
        s->hugepages = xasprintf("%s/" STATE_HUGEPAGES, runtime_dir);
        s->irqs = xasprintf("%s/" STATE_IRQS, runtime_dir);
        s->removed = xasprintf("%s/" STATE_GENERATOR_REMOVED, runtime_dir);
}

void state_paths_done(struct state_paths *s) {
        char **all[] = {&s->runtime_dir, &s->lock,      &s->unplaced, &s->applied_old, &s->models,
                        &s->nics,        &s->hugepages, &s->irqs,     &s->removed};
        for (size_t i = 0; i < ELEMENTSOF(all); i++)
                *all[i] = mfree(*all[i]);
}

/* Each line of `text` that is not empty or a comment, in place. */
static char **record_lines(char *text, char ***v, size_t *n, bool (*take)(const char *line)) {
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (*line && *line != '#' && take(line)) {
                        *v = xrealloc(*v, (*n + 2) * sizeof(char *));
                        (*v)[(*n)++] = xstrdup(line);
                        (*v)[*n] = NULL;
                }
        }
        return *v;
}

static bool is_service(const char *line) {
        return streq(line, "*") || unit_name_is_valid_service(line, NULL);
}

char **state_read_removed(const char *removed, bool *ret_all, bool *ret_exists) {
        _cleanup_free_ char *text = NULL;
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;

        *ret_exists = read_file(removed, &text) >= 0;
        record_lines(text, &v, &n, is_service);
        *ret_all = strv_contains(v, "*");
        /* "*" stands for all, not for a unit. */
        for (size_t i = 0, k = 0; i <= n; i++)
                if (!v[i] || !streq(v[i], "*"))
                        v[k++] = v[i];
                else
                        free(v[i]);
        return v;
}

char *state_units_record_text(const struct plan *plan) {
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;
        struct strbuf b = {0};

        /* As the configuration names them: a template's as "tp@%i.service". */
        for (size_t i = 0; i < plan->n_replicas; i++) {
                const struct placement *pl = &plan->replicas[i];
                const char *u = pl->conf && pl->conf->unit ? pl->conf->unit : pl->unit;
                if (!strv_contains(v, u)) {
                        v = xrealloc(v, (n + 2) * sizeof(char *));
                        v[n++] = xstrdup(u);
                        v[n] = NULL;
                }
        }
        strbuf_append(&b, "# the units of numaplan's last plan, which numaplan-generator keeps from starting when it "
                          "cannot place them\n");
        for (size_t i = 0; i < n; i++)
                strbuf_printf(&b, "%s\n", v[i]);
        strv_free(v);
        return strbuf_steal(&b);
}

int state_write_units_record(const char *dir, const struct plan *plan) {
        _cleanup_free_ char *text = state_units_record_text(plan), *path = xasprintf("%s/" STATE_GENERATOR_UNITS, dir);
        int r = write_file_path(path, text, WRITE_IF_CHANGED);
        if (r < 0)
                return log_error_errno(r, "cannot record the plan's units in %s: %m", path);
        return 0;
}

static bool any_line(const char *line) {
        (void) line;
        return true;
}

char **state_read_units_record(const char *dir) {
        _cleanup_free_ char *path = xasprintf("%s/" STATE_GENERATOR_UNITS, dir), *text = NULL;
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;

        if (read_file_max(path, RECORD_MAX, &text) >= 0)
                record_lines(text, &v, &n, any_line);
        return v;
}
