/* SPDX-License-Identifier: MIT */
/* Messages: on stderr only, prefixed by their level, shown up to the maximum level; %m naming the
 * error passed in; the first error remembered even when not shown; and "file:line: message" for
 * errors in what the admin wrote. */

#include "basic/log.h"
#include "basic/util.h"
#include "capture.h"
#include "child.h"
#include "tap.h"

/* What `fn` logs on stderr, and (nothing on stdout) that stdout stays the verb's. */
static char *logged(void (*fn)(void)) {
        struct capture out, err;
        capture_begin(&out, STDOUT_FILENO);
        capture_begin(&err, STDERR_FILENO);
        fn();
        char *e = capture_end(&err);
        _cleanup_free_ char *o = capture_end(&out);
        if (*o)
                printf("# stdout got '%s'\n", shown(o));
        return *o ? mfree(e) : e;
}

struct first_error_case {
        void (*fn)(void);
        int fd;
};

static int first_error_child(void *arg) {
        const struct first_error_case *c = arg;
        log_set_max_level(LOG_ERR - 1); /* nothing printed: remembered all the same */
        c->fn();
        const char *e = log_first_error();
        return e ? (int) write(c->fd, e, strlen(e)) : -ENOENT;
}

/* The first error a fresh process remembers after `fn`, or NULL: the memory is the process's, so
 * each case runs in a child of its own. */
static char *first_error_after(void (*fn)(void)) {
        int p[2];
        if (pipe(p) < 0)
                abort();
        struct first_error_case c = {fn, p[1]};
        int r = run_child(first_error_child, &c, NULL);
        close(p[1]);
        char buf[512];
        ssize_t n = read(p[0], buf, sizeof(buf) - 1);
        close(p[0]);
        if (r == -ENOENT)
                return NULL;
        if (r < 0 || n != r)
                return xstrdup("(the child died)");
        buf[n] = 0;
        return xstrdup(buf);
}

static void each_level(void) {
        log_error("e%d", 1);
        log_warning("w%d", 2);
        log_notice("n%d", 3);
        log_info("i%d", 4);
        log_debug("d%d", 5);
}

static void with_errno(void) {
        errno = EAGAIN;
        int r = log_error_errno(-ENOENT, "cannot open %s: %m", "x.conf");
        printf("%s", r == -ENOENT && errno == EAGAIN ? "" : "returned wrong or clobbered errno");
        r = log_warning_errno(EACCES, "positive: %m");
        printf("%s", r == EACCES && errno == EAGAIN ? "" : "positive error mishandled");
}

static void at_lines(void) {
        log_error_at((struct where){"/etc/numaplan.conf", 12}, "unknown key '%s'", "nodess");
        log_error_at((struct where){"/etc/numaplan.conf", 0}, "not a regular file");
        log_error_at((struct where){NULL, 0}, "written nowhere");
        struct error_at e = {0};
        error_at_set(&e, (struct where){"b.conf", 3}, "from the core");
        int r = log_error_at_done(&e);
        printf("%s", r == -EINVAL && !e.message ? "" : "log_error_at_done did not free or return -EINVAL");
}

static void first_is_at(void) {
        log_warning("a warning is not an error");
        log_error_at((struct where){"a.conf", 7}, "bad %s", "value");
        log_error("a later error");
}
static void first_is_remembered(void) {
        log_remember_error("usage: %s", "numaplan plan");
        log_error("a later error");
}
static void first_is_errno(void) {
        log_debug_errno(-EIO, "debug is no error: %m");
        log_error_errno(-EBADFD, "%s: %m", "fifo");
        log_error_at((struct where){"a.conf", 7}, "later");
}
static void no_error(void) {
        log_warning("only a warning");
        log_notice("and a notice");
}

int main(void) {
        /* First, while this process has no error its children would inherit. */
        _cleanup_free_ char *f1 = first_error_after(first_is_at), *f2 = first_error_after(first_is_remembered),
                            *f3 = first_error_after(first_is_errno), *f4 = first_error_after(no_error);
        ok(log_first_error() == NULL, "no error yet");
        is_int(log_get_max_level(), LOG_NOTICE, "notices and above by default");

        _cleanup_free_ char *notice = logged(each_level);
        is_str(notice, "numaplan: error: e1\nnumaplan: warning: w2\nnumaplan: n3\n",
               "default: error, warning and notice, on stderr, each prefixed");
        log_set_max_level(LOG_DEBUG);
        _cleanup_free_ char *debug = logged(each_level);
        is_str(debug, "numaplan: error: e1\nnumaplan: warning: w2\nnumaplan: n3\nnumaplan: i4\nnumaplan: d5\n",
               "LOG_DEBUG: all five");
        log_set_max_level(LOG_WARNING);
        _cleanup_free_ char *warning = logged(each_level);
        is_str(warning, "numaplan: error: e1\nnumaplan: warning: w2\n", "LOG_WARNING: errors and warnings");
        log_set_max_level(LOG_ERR - 1);
        _cleanup_free_ char *quiet = logged(each_level);
        is_str(quiet, "", "below LOG_ERR: nothing");
        is_str(log_first_error(), "e1", "the first error is remembered, printed or not");

        log_set_max_level(LOG_NOTICE);
        _cleanup_free_ char *m = logged(with_errno);
        is_str(m,
               "numaplan: error: cannot open x.conf: No such file or directory\nnumaplan: warning: positive: "
               "Permission denied\n",
               "%%m is the error passed (negative or positive); it is returned and errno kept");
        is_str(log_first_error(), "e1", "a later error does not replace the first");

        _cleanup_free_ char *at = logged(at_lines);
        is_str(at,
               "/etc/numaplan.conf:12: unknown key 'nodess'\n"
               "/etc/numaplan.conf: not a regular file\n"
               "written nowhere\n"
               "b.conf:3: from the core\n",
               "log_error_at: file:line: message, file: message for line 0, the message alone for no file; "
               "log_error_at_done frees");
        log_set_max_level(LOG_ERR - 1);
        _cleanup_free_ char *at_quiet = logged(at_lines);
        is_str(at_quiet, "", "log_error_at below LOG_ERR prints nothing");

        is_str(f1, "a.conf:7: bad value", "the first error of log_error_at, with its place; warnings are none");
        is_str(f2, "usage: numaplan plan", "a usage error remembered with log_remember_error()");
        is_str(f3, "fifo: File descriptor in bad state", "with %%m expanded; a debug message with an error is none");
        is_str(f4, NULL, "warnings and notices only: no first error");
        return done_testing();
}
