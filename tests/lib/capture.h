/* SPDX-License-Identifier: MIT */
#pragma once

/* What a function prints on stdout or stderr, for tests of messages and documents: the descriptor
 * goes into a memory file until capture_end(). */

struct capture {
        int fd, saved, mem;
};

/* Redirects `fd` (1 or 2, flushed first). Aborts on failure: a test's setup. */
void capture_begin(struct capture *c, int fd);
/* Puts `fd` back and returns what was written to it meanwhile (malloc'd). */
char *capture_end(struct capture *c);
