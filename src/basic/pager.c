/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/pager.h"
#include "basic/terminal.h"
#include "basic/util.h"

static pid_t pager_pid;

/* The pager's side: its stdin is the pipe; when none can run, it copies the pipe to the
 * terminal, so that the answer is never lost. */
__attribute__((noreturn)) static void run_pager(int in, const char *pager) {
        char buf[4096];
        ssize_t n;

        if (dup2(in, STDIN_FILENO) < 0)
                _exit(EXIT_FAILURE);
        setenv("LESS", "FRSXMK", 0);
        setenv("LESSCHARSET", "utf-8", 0);
        if (pager)
                execl("/bin/sh", "sh", "-c", pager, (char *) NULL);
        else {
                execlp("pager", "pager", (char *) NULL);
                execlp("less", "less", (char *) NULL);
                execlp("more", "more", (char *) NULL);
        }
        while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
                if (write(STDOUT_FILENO, buf, (size_t) n) != n)
                        break;
        _exit(EXIT_SUCCESS);
}

void pager_open(bool disabled) {
        const char *pager = getenv("SYSTEMD_PAGER");
        int fd[2];

        if (disabled || pager_pid > 0 || !isatty(STDOUT_FILENO))
                return;
        if (!pager)
                pager = getenv("PAGER");
        if (pager && (!*pager || streq(pager, "cat")))
                return;
        /* Decided now, while stdout is the terminal. */
        (void) colors_enabled(stdout);
        (void) terminal_columns(stdout);
        if (pipe2(fd, O_CLOEXEC) < 0)
                return;
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
                close(fd[0]);
                close(fd[1]);
                return;
        }
        if (pid == 0) {
                close(fd[1]);
                run_pager(fd[0], pager);
        }
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0) {
                close(fd[1]);
                return;
        }
        close(fd[1]);
        pager_pid = pid;
        /* A reader who quits early ends the answer, not numaplan's exit code. */
        signal(SIGPIPE, SIG_IGN);
}

void pager_close(void) {
        if (pager_pid <= 0)
                return;
        fflush(stdout);
        fclose(stdout);
        while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
                ;
        pager_pid = 0;
}
