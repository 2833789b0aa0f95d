/* SPDX-License-Identifier: MIT */
#pragma once

/* A pager for a long answer on a terminal, as systemctl has one: $SYSTEMD_PAGER, else $PAGER,
 * split into words and run without a shell; when that cannot start, or none is set, pager, less,
 * then more; when none can, the answer is copied to the terminal as it is, never lost. None when
 * stdout or stderr is no terminal, TERM is unset or "dumb", for --no-pager, or for a pager of ""
 * or "cat". less gets LESS=$SYSTEMD_LESS, else FRSXMK, whatever $LESS says (quit when it fits a
 * screen, colours, long lines cut rather than folded, the screen kept, a verbose prompt, Ctrl-C
 * quits), and LESSCHARSET=$SYSTEMD_LESSCHARSET, else utf-8 in a UTF-8 locale.
 *
 * Secure mode, for a numaplan run with privileges someone else lent (sudo, pkexec, or an
 * effective UID that is not the real one), since a pager's shell escape would be a root shell: the
 * pager gets LESSSECURE=1, which less honours (no !command, |, v, :e), and of pager, less and
 * more only less is tried, never the pager $SYSTEMD_PAGER or $PAGER names (it may be set for
 * everyone, and not know LESSSECURE). It is on when $SYSTEMD_PAGERSECURE is true, or is unset
 * under sudo, pkexec or a changed EUID; SYSTEMD_PAGERSECURE=0 turns it off. */

#include <stdbool.h>

void pager_open(bool disabled);
/* Ends what went to the pager and waits for the reader to quit it. */
void pager_close(void);

/* The pager's command line split into words as a shell would, without one: blanks part words,
 * quotes ('...' and "...") and backslashes keep them; no variables, no globs. A quote not closed
 * ends with the line. NULL-terminated, never NULL; no words for blanks only. */
char **pager_words(const char *command);
/* Secure mode from $SYSTEMD_PAGERSECURE (`env`, NULL when unset) and whether privileges were lent
 * (`lent`): the variable when it is a boolean, else `lent` when unset, else (not a boolean) on. */
bool pager_secure_mode(const char *env, bool lent);
