/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/pager.h"
#include "basic/parse-util.h"
#include "basic/terminal.h"
#include "basic/util.h"

#define BUILT_IN "(built-in)"

static pid_t pager_pid;

char **pager_words(const char *s) {
        _cleanup_strbuf_ struct strbuf word = {0};
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;
        bool in_word = false;
        char quote = 0;

        for (; *s; s++) {
                if (quote == '\'' && *s != '\'') {
                        strbuf_putc(&word, *s);
                        continue;
                }
                if (*s == '\\' && s[1] && quote != '\'') {
                        strbuf_putc(&word, *++s);
                        in_word = true;
                        continue;
                }
                if (quote) {
                        if (*s == quote)
                                quote = 0;
                        else
                                strbuf_putc(&word, *s);
                        continue;
                }
                if (strchr(" \t\n\r", *s)) {
                        if (in_word) {
                                v = xrealloc(v, (n + 2) * sizeof(char *));
                                v[n++] = strbuf_steal(&word);
                                v[n] = NULL;
                        }
                        in_word = false;
                        continue;
                }
                in_word = true;
                if (*s == '\'' || *s == '"')
                        quote = *s;
                else
                        strbuf_putc(&word, *s);
        }
        if (in_word) {
                v = xrealloc(v, (n + 2) * sizeof(char *));
                v[n++] = strbuf_steal(&word);
                v[n] = NULL;
        }
        return v;
}

/* A boolean as systemd reads its variables: parse_boolean()'s words and their initials. */
static int env_boolean(const char *s, bool *ret) {
        if (strlen(s) == 1 && strchr("yYtTnNfF", s[0])) {
                *ret = strchr("yYtT", s[0]) != NULL;
                return 0;
        }
        return parse_boolean(s, ret);
}

bool pager_secure_mode(const char *env, bool lent) {
        bool b;

        if (!env)
                return lent;
        if (env_boolean(env, &b) < 0)
                return true;
        return b;
}

/* Privileges someone else lent: sudo and pkexec say who asked; a set-user-ID program has an
 * effective UID that is not the real one. */
static bool privileges_lent(void) {
        return getenv("SUDO_UID") || getenv("PKEXEC_UID") || geteuid() != getuid();
}

/* systemd's test of a UTF-8 locale, in the pager's process (setlocale() there changes nothing
 * of numaplan's): $SYSTEMD_UTF8 when set, else the locale's codeset; the C locale that nothing
 * chose counts as UTF-8. */
static bool locale_is_utf8(void) {
        const char *e = secure_getenv("SYSTEMD_UTF8"), *set;
        bool b;

        if (e && env_boolean(e, &b) >= 0)
                return b;
        if (!setlocale(LC_ALL, ""))
                return true;
        set = nl_langinfo(CODESET);
        if (!set || streq(set, "UTF-8"))
                return true;
        set = setlocale(LC_CTYPE, NULL);
        if (!set)
                return true;
        return (streq(set, "C") || streq(set, "POSIX")) && !getenv("LC_ALL") && !getenv("LC_CTYPE") && !getenv("LANG");
}

/* Tells numaplan which program is tried next: the last name it reads before the pipe closes (on
 * an exec that worked, by O_CLOEXEC) is the one that runs. */
static void tell(int names, const char *name) {
        size_t n = strlen(name) + 1;
        while (n > 0) {
                ssize_t k = write(names, name, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return;
                name += k;
                n -= (size_t) k;
        }
}

static void try_exec(int names, char **argv) {
        tell(names, argv[0]);
        execvp(argv[0], argv);
        if (errno != ENOENT)
                log_warning_errno(-errno, "Failed to run the pager '%s', trying the next: %m", argv[0]);
}

static void pager_environment(const char *less_opts, bool secure) {
        const char *charset = getenv("SYSTEMD_LESSCHARSET");

        (void) setenv("LESS", less_opts, 1);
        if (!charset && locale_is_utf8())
                charset = "utf-8";
        if (charset)
                (void) setenv("LESSCHARSET", charset, 1);
        /* less then refuses !command, |, v, :e and the like: no shell or editor with lent rights. */
        if (secure)
                (void) setenv("LESSSECURE", "1", 1);
}

/* The pager's side: its stdin is the pipe; `words`, the pager the environment names and may run,
 * is tried first; in secure mode only less follows. When none can run, it copies the pipe to the
 * terminal, so that the answer is never lost. */
__attribute__((noreturn)) static void run_pager(int in, int names, char **words, bool secure, const char *less_opts,
                                                pid_t parent) {
        static const char *const fallbacks[] = {"pager", "less", "more"};
        char buf[4096];
        ssize_t n;

        if (dup2(in, STDIN_FILENO) < 0)
                _exit(EXIT_FAILURE);
        (void) signal(SIGINT, SIG_DFL);
        (void) signal(SIGPIPE, SIG_DFL);
        /* Gone with numaplan, rather than left to fight the shell for the terminal. */
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
                _exit(EXIT_SUCCESS);
        pager_environment(less_opts, secure);
        if (words)
                try_exec(names, words);
        for (size_t i = 0; i < ELEMENTSOF(fallbacks); i++)
                if (!secure || streq(fallbacks[i], "less"))
                        try_exec(names, (char *[]){(char *) fallbacks[i], NULL});
        tell(names, BUILT_IN);
        close(names);
        while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
                if (n > 0 && write(STDOUT_FILENO, buf, (size_t) n) != n)
                        break;
        _exit(EXIT_SUCCESS);
}

/* The name of the program the pager's process runs: the last one it told. */
static char *pager_ran(int names) {
        _cleanup_strbuf_ struct strbuf all = {0};
        char buf[256];
        ssize_t n;

        while ((n = read(names, buf, sizeof(buf))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        break;
                strbuf_append_n(&all, buf, (size_t) n);
        }
        if (all.len == 0 || all.s[all.len - 1] != 0)
                return NULL;
        const char *last = all.s + all.len - 1;
        while (last > all.s && last[-1])
                last--;
        return xstrdup(last);
}

/* Whether the pager's process runs less: the program it executed, links resolved (Debian's
 * "pager" is less under another name), else the name it told. */
static bool runs_less(pid_t pid, const char *name) {
        char path[64], exe[4096];
        const char *base;

        if (!name || streq(name, BUILT_IN))
                return false;
        snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
        ssize_t n = readlink(path, exe, sizeof(exe) - 1);
        if (n > 0) {
                exe[n] = 0;
                name = exe;
        }
        base = strrchr(name, '/');
        return streq(base ? base + 1 : name, "less");
}

/* Whether a pager is wanted at all, and which the environment names (*ret_words, NULL for none). */
static bool pager_wanted(bool disabled, char ***ret_words) {
        const char *term = getenv("TERM"), *pager = getenv("SYSTEMD_PAGER");
        char **words;

        *ret_words = NULL;
        if (disabled || pager_pid > 0 || !isatty(STDOUT_FILENO) || !isatty(STDERR_FILENO) || !term ||
            streq(term, "dumb"))
                return false;
        if (!pager)
                pager = getenv("PAGER");
        if (!pager)
                return true;
        words = pager_words(pager);
        if (!words[0] || (streq(words[0], "cat") && !words[1])) {
                strv_free(words);
                return false;
        }
        *ret_words = words;
        return true;
}

void pager_open(bool disabled) {
        _cleanup_strv_free_ char **words = NULL;
        _cleanup_close_ int names_in = -1;
        int fd[2], names[2];

        if (!pager_wanted(disabled, &words))
                return;
        /* Its own variable cannot be turned off by whoever runs a set-user-ID numaplan. */
        bool secure = pager_secure_mode(secure_getenv("SYSTEMD_PAGERSECURE"), privileges_lent());
        if (secure) {
                /* $PAGER may be set for everyone, and know nothing of LESSSECURE: only less. */
                strv_free(words);
                words = NULL;
        }
        const char *less_opts = getenv("SYSTEMD_LESS");
        if (!less_opts)
                less_opts = "FRSXMK";
        /* Decided now, while stdout is the terminal. */
        (void) colors_enabled(stdout);
        (void) terminal_columns(stdout);
        if (pipe2(fd, O_CLOEXEC) < 0)
                return;
        if (pipe2(names, O_CLOEXEC) < 0) {
                close(fd[0]);
                close(fd[1]);
                return;
        }
        fflush(stdout);
        pid_t parent = getpid(), pid = fork();
        if (pid == 0) {
                close(fd[1]);
                close(names[0]);
                run_pager(fd[0], names[1], words, secure, less_opts, parent);
        }
        close(fd[0]);
        close(names[1]);
        names_in = names[0];
        if (pid < 0 || dup2(fd[1], STDOUT_FILENO) < 0) {
                close(fd[1]);
                if (pid > 0)
                        (void) waitpid(pid, NULL, 0);
                return;
        }
        close(fd[1]);
        pager_pid = pid;
        /* A reader who quits early ends the answer, not numaplan's exit code. */
        signal(SIGPIPE, SIG_IGN);
        /* less without K stays on Ctrl-C, and so must numaplan, which feeds it (as systemctl). */
        _cleanup_free_ char *ran = pager_ran(names_in);
        if (runs_less(pid, ran) && !strchr(less_opts, 'K'))
                signal(SIGINT, SIG_IGN);
}

void pager_close(void) {
        if (pager_pid <= 0)
                return;
        fflush(stdout);
        fclose(stdout);
        /* A pager stopped (Ctrl-Z) would never read the end. */
        (void) kill(pager_pid, SIGCONT);
        while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
                ;
        pager_pid = 0;
}
