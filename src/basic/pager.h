/* SPDX-License-Identifier: MIT */
#pragma once

/* A pager for a long answer on a terminal, as systemctl has one: $SYSTEMD_PAGER, else $PAGER,
 * else less (then more), with LESS=FRSXMK unless set (quit when it fits a screen, colours,
 * long lines cut rather than folded, the screen kept, a verbose prompt, Ctrl-C quits); none when
 * stdout is no terminal, for --no-pager, or for a pager of "" or "cat". */

#include <stdbool.h>

void pager_open(bool disabled);
/* Ends what went to the pager and waits for the reader to quit it. */
void pager_close(void);
