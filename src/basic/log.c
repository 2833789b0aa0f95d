/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/terminal.h"

int log_max_level = LOG_NOTICE;
/* The kernel log, for a generator (log_open_kmsg()); -1: stderr. */
static int kmsg_fd = -1;
static const char *kmsg_ident;
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
        log_max_level = level;
}

int log_get_max_level(void) {
        return log_max_level;
}

int log_open_kmsg(const char *ident) {
        int fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        kmsg_fd = fd;
        kmsg_ident = ident;
        return 0;
}

/* One record per message: "<PRI>ident[PID]: prefix message", in one write(), as journald reads
 * the kernel log (facility daemon, as systemd's own generators log). */
static void kmsg_write(int level, const char *prefix, const char *fmt, va_list ap) {
        char buf[1024];
        int n = snprintf(buf, sizeof(buf), "<%d>%s[%d]: %s", (3 << 3) | level, kmsg_ident, (int) getpid(), prefix);
        if (n < 0 || (size_t) n >= sizeof(buf))
                return;
        int m = vsnprintf(buf + n, sizeof(buf) - (size_t) n, fmt, ap);
        if (m < 0)
                return;
        size_t len = (size_t) n + (size_t) m < sizeof(buf) - 1 ? (size_t) n + (size_t) m : sizeof(buf) - 2;
        buf[len++] = '\n';
        (void) !write(kmsg_fd, buf, len);
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
        if (level > log_max_level) {
                errno = saved;
                return error;
        }
        if (kmsg_fd >= 0) {
                va_start(ap, fmt);
                kmsg_write(level, level <= LOG_ERR ? "error: " : level == LOG_WARNING ? "warning: " : "", fmt, ap);
                va_end(ap);
                errno = saved;
                return error;
        }
        /* One write a message: stderr is unbuffered, and a generator's lines are read line by line. */
        va_start(ap, fmt);
        _cleanup_free_ char *message = xvasprintf(fmt, ap);
        va_end(ap);
        const char *what = level <= LOG_ERR ? "error: " : level == LOG_WARNING ? "warning: " : "";
        _cleanup_free_ char *head = xasprintf("numaplan: %s%s%s",
                                              color_on(stderr, level <= LOG_ERR       ? ANSI_RED
                                                               : level == LOG_WARNING ? ANSI_YELLOW
                                                                                      : ""),
                                              what, *what ? color_off(stderr) : "");
        print_wrapped(stderr, head, strlen("numaplan: ") + strlen(what), message, "    ");
        errno = saved;
        return error;
}

int log_error_at(struct where at, const char *fmt, ...) {
        va_list ap;

        char prefix[4096] = "";
        /* The file's name is anyone's choice: escaped, so that it forges no line. */
        _cleanup_free_ char *file = at.file ? name_escape(at.file) : NULL;
        if (file && at.line) /* no file: written nowhere, so no "file:" to name */
                snprintf(prefix, sizeof(prefix), "%s:%u: ", file, at.line);
        else if (file)
                snprintf(prefix, sizeof(prefix), "%s: ", file);
        va_start(ap, fmt);
        remember(prefix, fmt, ap);
        va_end(ap);
        if (LOG_ERR > log_max_level)
                return -EINVAL;
        if (kmsg_fd >= 0) {
                va_start(ap, fmt);
                _cleanup_free_ char *msg = xvasprintf(fmt, ap);
                va_end(ap);
                log_error("%s%s", prefix, msg);
                return -EINVAL;
        }
        va_start(ap, fmt);
        _cleanup_free_ char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        /* The place in red on a terminal, the message wrapped under it. */
        _cleanup_free_ char *head = xasprintf("%s%s%s", color_on(stderr, ANSI_RED), prefix, color_off(stderr));
        print_wrapped(stderr, head, strlen(prefix), msg, "    ");
        return -EINVAL;
}

int log_error_at_done(struct error_at *e) {
        size_t n = 1 + e->n_next;
        struct ranked {
                struct error_at_next e;
                size_t file; /* the first error's index with the same file: files keep the order read */
        };
        _cleanup_free_ struct ranked *v = xmalloc0(n * sizeof(*v));

        for (size_t i = 0; i < n; i++) {
                v[i].e = i == 0 ? (struct error_at_next){e->at, e->message} : e->next[i - 1];
                v[i].file = i;
                for (size_t j = 0; j < i && v[i].file == i; j++)
                        if (streq_ptr(v[j].e.at.file, v[i].e.at.file))
                                v[i].file = v[j].file;
        }
        /* Kept in the order they were found, said in the order they stand: by file, then line
         * (an insertion sort, stable). */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && (v[j].file < v[j - 1].file ||
                                             (v[j].file == v[j - 1].file && v[j].e.at.line < v[j - 1].e.at.line));
                     j--) {
                        struct ranked t = v[j];
                        v[j] = v[j - 1];
                        v[j - 1] = t;
                }
        for (size_t i = 0; i < n; i++)
                log_error_at(v[i].e.at, "%s", v[i].e.message ? v[i].e.message : "error");
        if (e->n_left_off > 0)
                log_error("and %zu more error%s", e->n_left_off, e->n_left_off == 1 ? "" : "s");
        error_at_done(e);
        return -EINVAL;
}

static void say_oom(void) {
        static const char msg[] = "numaplan: out of memory\n";
        (void) !write(STDERR_FILENO, msg, sizeof(msg) - 1);
}

/* The pure half's allocator says out-of-memory through this layer. */
__attribute__((constructor)) static void set_oom_hook(void) {
        oom_hook = say_oom;
}
