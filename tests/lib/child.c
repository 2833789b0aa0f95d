/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/util.h"
#include "child.h"

int run_child(int (*fn)(void *arg), void *arg, const char *env) {
        int p[2], r;

        if (pipe(p) < 0)
                abort();
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                close(p[0]);
                if (env && putenv(xstrdup(env)) != 0)
                        _exit(1);
                r = fn(arg);
                /* _exit(): neither this process's buffers nor its exit handlers run twice. */
                _exit(write(p[1], &r, sizeof(r)) == (ssize_t) sizeof(r) ? 0 : 1);
        }
        close(p[1]);
        ssize_t n = read(p[0], &r, sizeof(r));
        close(p[0]);
        int status;
        if (waitpid(pid, &status, 0) != pid)
                return CHILD_DIED;
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
                return CHILD_KILLED;
        if (!WIFEXITED(status))
                return CHILD_DIED;
        return WEXITSTATUS(status) == 0 && n == (ssize_t) sizeof(r) ? r : CHILD_DIED;
}
