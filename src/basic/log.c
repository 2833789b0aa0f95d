/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "basic/log.h"

static int max_level = LOG_NOTICE;
/* The first error said, for a --json or --tap document when a command fails. */
static char *first_error;

static void remember(const char *prefix, const char *fmt, va_list ap) {
        if (first_error)
                return;
        char *msg = xvasprintf(fmt, ap);
        first_error = xasprintf("%s%s", prefix, msg);
        free(msg);
}

const char *log_first_error(void) {
        return first_error;
}

void log_remember_error(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        remember("", fmt, ap);
        va_end(ap);
}

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_internal(int level, int error, const char *fmt, ...) {
        va_list ap;

        /* %m in the format reads errno: point it at the error being reported. */
        int saved = errno;
        if (error != 0)
                errno = error < 0 ? -error : error;
        if (level <= LOG_ERR) {
                va_start(ap, fmt);
                remember("", fmt, ap);
                va_end(ap);
                if (error != 0)
                        errno = error < 0 ? -error : error;
        }
        if (level > max_level) {
                errno = saved;
                return error;
        }
        fputs(level <= LOG_ERR ? "numaplan: error: " : level == LOG_WARNING ? "numaplan: warning: " : "numaplan: ",
              stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        errno = saved;
        return error;
}

int log_error_at(struct where at, const char *fmt, ...) {
        va_list ap;

        char prefix[4096];
        if (at.line)
                snprintf(prefix, sizeof(prefix), "%s:%u: ", strempty(at.file), at.line);
        else
                snprintf(prefix, sizeof(prefix), "%s: ", strempty(at.file));
        va_start(ap, fmt);
        remember(prefix, fmt, ap);
        va_end(ap);
        if (at.line)
                fprintf(stderr, "%s:%u: ", strempty(at.file), at.line);
        else
                fprintf(stderr, "%s: ", strempty(at.file));
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return -EINVAL;
}

int log_error_at_done(struct error_at *e) {
        log_error_at(e->at, "%s", e->message ? e->message : "error");
        error_at_done(e);
        return -EINVAL;
}
