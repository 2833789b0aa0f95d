/* SPDX-License-Identifier: MIT */
#pragma once

/* What numaplan did to a replica unit, as structured entries in systemd's journal, so that
 * `journalctl NUMAPLAN_UNIT=llama@0.service` shows one replica's history: its drop-in written or
 * removed, each verdict of verify, each move of its pages. Every entry has MESSAGE_ID= (one per
 * kind of event, explained in numaplan.catalog), NUMAPLAN_UNIT=, NUMAPLAN_OUTCOME=, PRIORITY=
 * and SYSLOG_IDENTIFIER=numaplan, and the fields its kind adds. The generator writes none: it
 * keeps to the kernel log. */

#include <stdbool.h>

#include "basic/util.h"

enum journal_kind {
        JOURNAL_APPLY,   /* a drop-in created, updated, kept (unchanged) or removed; or failed */
        JOURNAL_REMOVE,  /* a drop-in removed by remove; or failed */
        JOURNAL_VERIFY,  /* verify's verdict: ok, or failed */
        JOURNAL_PREPARE, /* a start's move of the model's page cache: ok, partial, or failed */
        JOURNAL_MIGRATE, /* a running replica's pages moved: ok, or failed (under min-local) */
        _JOURNAL_KIND_MAX,
};

/* The MESSAGE_ID of each kind, 32 hex digits (the catalog's keys). */
extern const char *const journal_message_ids[_JOURNAL_KIND_MAX];

/* From now on, events go to the journal, if this host's journal listens (its socket exists)
 * and libsystemd is there; else they go nowhere, silently. The caller decides that the run
 * acts on this host's systemd (numaplan(8), JOURNAL). */
void journal_enable(void);
bool journal_enabled(void);

/* One entry about `unit`, the message printf-style; `fields` ("KEY=value", NULL-terminated, or
 * NULL) are added as they are. Whether the journal took it: nothing is sent when not enabled,
 * and a journal that refuses it is no error of numaplan's (the verb's report says the same). */
bool journal_event(enum journal_kind kind, int priority, const char *unit, const char *outcome, char *const *fields,
                   const char *fmt, ...) _printf_(6, 7);

/* The unit that this process runs in (an ExecStartPre= of it), when its stderr is that unit's
 * journal stream, with the journal enabled: then prepare's report is that unit's entry. NULL
 * otherwise (a terminal, a pipe, a test); caller frees. */
char *journal_stream_unit(void);
