/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "basic/util.h"
#include "capture.h"

void capture_begin(struct capture *c, int fd) {
        fflush(stdout);
        fflush(stderr);
        c->fd = fd;
        c->saved = dup(fd);
        c->mem = memfd_create("capture", MFD_CLOEXEC);
        if (c->saved < 0 || c->mem < 0 || dup2(c->mem, fd) < 0)
                abort();
}

char *capture_end(struct capture *c) {
        struct strbuf b = {0};
        char buf[4096];
        ssize_t n;

        fflush(stdout);
        fflush(stderr);
        if (dup2(c->saved, c->fd) < 0 || lseek(c->mem, 0, SEEK_SET) < 0)
                abort();
        close(c->saved);
        while ((n = read(c->mem, buf, sizeof(buf) - 1)) > 0) {
                buf[n] = 0;
                strbuf_append(&b, buf);
        }
        close(c->mem);
        return strbuf_steal(&b);
}
