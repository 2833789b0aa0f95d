/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "basic/escape.h"
#include "core/warnings.h"

#define WARNING_KIND(id, code, severity, subject, summary) \
        [WARNING_##id] = {code, SEVERITY_##severity, SUBJECT_##subject, summary},
const struct warning_kind warning_kinds[_WARNING_MAX] = {WARNING_KINDS(WARNING_KIND)};
#undef WARNING_KIND

void warnings_add(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        _cleanup_free_ char *raw = xvasprintf(fmt, ap);
        va_end(ap);
        /* Values read from the host go into the words as the files held them. */
        char *msg = text_escape(raw);
        l->v = xgrow(l->v, l->n, sizeof(*l->v));
        l->v[l->n++] = (struct warning){.code = code, .subject = subject ? xstrdup(subject) : NULL, .message = msg};
}

void warnings_put(struct warnings *l, enum warning_code code, const char *subject, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        _cleanup_free_ char *raw = xvasprintf(fmt, ap);
        va_end(ap);
        char *msg = text_escape(raw);
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].code == code && streq_ptr(l->v[i].subject, subject)) {
                        free(l->v[i].message);
                        l->v[i].message = msg;
                        return;
                }
        warnings_add(l, code, subject, "%s", msg);
        free(msg);
}

bool warnings_has(const struct warnings *l, enum warning_code code, const char *subject) {
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].code == code && streq_ptr(l->v[i].subject, subject))
                        return true;
        return false;
}

size_t warnings_count(const struct warnings *l, enum severity severity) {
        size_t n = 0;
        for (size_t i = 0; i < l->n; i++)
                n += warning_kinds[l->v[i].code].severity >= severity;
        return n;
}

void warnings_done(struct warnings *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].subject);
                free(l->v[i].message);
        }
        free(l->v);
        *l = (struct warnings){0};
}
