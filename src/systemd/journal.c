/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* sd-journal.h brings syslog.h, whose LOG_* macros basic/log.h's names would collide with: this
 * file speaks to libsystemd only, and its callers pass log.h's levels, which are syslog's. */
#define SD_JOURNAL_SUPPRESS_LOCATION /* sd_journal_sendv() itself, not a macro adding CODE_FILE= */
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

#include "basic/dlopen-util.h"
#include "systemd/journal.h"

#define LIBSYSTEMD_JOURNAL_SYMBOLS(X) X(sd_journal_sendv) X(sd_pid_get_unit)
LIBSYSTEMD_JOURNAL_SYMBOLS(DLSYM_PROTOTYPE)
LIBSYSTEMD_JOURNAL_SYMBOLS(DLSYM_DEFINE)

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

const char *const journal_message_ids[_JOURNAL_KIND_MAX] = {
        [JOURNAL_APPLY] = "ec2fc912cc4f4a4f9f5293ad0b8ede1b",   [JOURNAL_REMOVE] = "02e9e0ec3d98423e8bf5b48f55b1362f",
        [JOURNAL_VERIFY] = "a19230ef74904c308de8abb910f9613f",  [JOURNAL_PREPARE] = "c5cf8806459a439889c8eafbc8541403",
        [JOURNAL_MIGRATE] = "d9ce25374ef4497c9f4c4c90d3b40096",
};

static bool enabled;

/* libsystemd, when it is there: dlopen_many_sym() would call its absence an error, and a journal
 * entry missing is none. */
static bool libsystemd_present(void) {
        static void *handle;
        void *dl = dlopen("libsystemd.so.0", RTLD_LAZY | RTLD_NODELETE);
        if (!dl)
                return false;
        dlclose(dl);
        return dlopen_many_sym(&handle, "libsystemd.so.0", "libsystemd0", LIBSYSTEMD_JOURNAL_SYMBOLS(DLSYM_ARG) NULL) >=
               0;
}

void journal_enable(void) {
        enabled = access(JOURNAL_SOCKET, W_OK) == 0 && libsystemd_present();
}

bool journal_enabled(void) {
        return enabled;
}

bool journal_event(enum journal_kind kind, int priority, const char *unit, const char *outcome, char *const *fields,
                   const char *fmt, ...) {
        if (!enabled)
                return false;
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *text = xvasprintf(fmt, ap);
        va_end(ap);

        size_t n_fields = 0;
        while (fields && fields[n_fields])
                n_fields++;
        char *own[] = {
                xasprintf("MESSAGE=%s", text),       xasprintf("MESSAGE_ID=%s", journal_message_ids[kind]),
                xasprintf("PRIORITY=%d", priority),  xstrdup("SYSLOG_IDENTIFIER=numaplan"),
                xasprintf("NUMAPLAN_UNIT=%s", unit), xasprintf("NUMAPLAN_OUTCOME=%s", outcome),
        };
        struct iovec *iov = xmalloc0((ELEMENTSOF(own) + n_fields) * sizeof(*iov));
        for (size_t i = 0; i < ELEMENTSOF(own); i++)
                iov[i] = (struct iovec){own[i], strlen(own[i])};
        for (size_t i = 0; i < n_fields; i++)
                iov[ELEMENTSOF(own) + i] = (struct iovec){fields[i], strlen(fields[i])};
        int r = sym_sd_journal_sendv(iov, (int) (ELEMENTSOF(own) + n_fields));
        free(iov);
        for (size_t i = 0; i < ELEMENTSOF(own); i++)
                free(own[i]);
        return r >= 0;
}

char *journal_stream_unit(void) {
        /* systemd sets JOURNAL_STREAM=DEV:INODE to the stream it connected stdout and stderr to:
         * the same file on stderr means the unit's journal, not a pipe or a terminal it handed
         * down. */
        const char *js = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;
        char *unit = NULL;
        int end = 0;

        if (!js || sscanf(js, "%llu:%llu%n", &dev, &ino, &end) != 2 || js[end] || fstat(STDERR_FILENO, &st) < 0 ||
            st.st_dev != dev || st.st_ino != ino)
                return NULL;
        journal_enable();
        if (!enabled || sym_sd_pid_get_unit(0, &unit) < 0)
                return NULL;
        return unit;
}
