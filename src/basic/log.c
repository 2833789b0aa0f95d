/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "basic/log.h"

static int max_level = LOG_NOTICE;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_internal(int level, int error, const char *fmt, ...) {
        va_list ap;

        if (level > max_level)
                return error;

        /* %m in the format reads errno: point it at the error being reported. */
        int saved = errno;
        if (error != 0)
                errno = error < 0 ? -error : error;
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
