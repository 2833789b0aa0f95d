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

static bool subject_before(const struct warnings *l, size_t first, size_t i) {
        for (size_t j = first; j < i; j++)
                if (l->v[j].code == l->v[i].code && streq_ptr(l->v[j].subject, l->v[i].subject))
                        return true;
        return false;
}

/* "devices 0000:81:00.0, 0000:11:00.0: SUMMARY (-v prints each)": the `count` warnings of the code
 * of l->v[first], which is the first of them, in one line. */
static char *folded_line(const struct warnings *l, size_t first, size_t count) {
        static const char *const words[][2] = {
                [SUBJECT_HOST] = {NULL, NULL},
                [SUBJECT_NODE] = {"node", "nodes"},
                [SUBJECT_PCI] = {"device", "devices"},
                [SUBJECT_REPLICA] = {"replica", "replicas"},
        };
        const struct warning_kind *k = &warning_kinds[l->v[first].code];
        _cleanup_strbuf_ struct strbuf names = {0};
        size_t named = 0;

        for (size_t i = first; k->subject != SUBJECT_HOST && i < l->n; i++) {
                if (l->v[i].code != l->v[first].code || !l->v[i].subject || subject_before(l, first, i))
                        continue;
                /* Replica names come from the configuration: escaped as the messages are. */
                _cleanup_free_ char *s = text_escape(l->v[i].subject);
                strbuf_printf(&names, "%s%s", named++ ? ", " : "", s);
        }
        if (named)
                return xasprintf("%s %s: %s (-v prints each)", words[k->subject][named > 1], names.s, k->summary);
        return xasprintf("%zu %ss: %s (-v prints each)", count, severity_to_string(k->severity), k->summary);
}

void warnings_for_text(const struct warnings *l, bool each,
                       void (*fn)(const struct warning *first, const char *text, void *userdata), void *userdata) {
        bool done[_WARNING_MAX] = {0};

        for (int s = SEVERITY_ERROR; s >= SEVERITY_NOTICE; s--)
                for (size_t i = 0; i < l->n; i++) {
                        enum warning_code code = l->v[i].code;
                        if (done[code] || (int) warning_kinds[code].severity != s)
                                continue;
                        done[code] = true;
                        size_t count = 0;
                        for (size_t j = i; j < l->n; j++)
                                if (l->v[j].code == code) {
                                        count++;
                                        if (each)
                                                fn(&l->v[i], l->v[j].message, userdata);
                                }
                        if (each)
                                continue;
                        _cleanup_free_ char *folded = count > 1 ? folded_line(l, i, count) : NULL;
                        fn(&l->v[i], folded ? folded : l->v[i].message, userdata);
                }
}

void warnings_done(struct warnings *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->v[i].subject);
                free(l->v[i].message);
        }
        free(l->v);
        *l = (struct warnings){0};
}
