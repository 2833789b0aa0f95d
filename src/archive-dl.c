/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "archive-dl.h"

static void *libarchive_dl;

DLSYM_DEFINE(archive_write_new);
DLSYM_DEFINE(archive_write_set_format_pax_restricted);
DLSYM_DEFINE(archive_write_open_fd);
DLSYM_DEFINE(archive_write_header);
DLSYM_DEFINE(archive_write_data);
DLSYM_DEFINE(archive_write_close);
DLSYM_DEFINE(archive_write_free);
DLSYM_DEFINE(archive_error_string);
DLSYM_DEFINE(archive_entry_new);
DLSYM_DEFINE(archive_entry_free);
DLSYM_DEFINE(archive_entry_set_pathname);
DLSYM_DEFINE(archive_entry_set_size);
DLSYM_DEFINE(archive_entry_set_filetype);
DLSYM_DEFINE(archive_entry_set_perm);
DLSYM_DEFINE(archive_entry_set_mtime);

int dlopen_libarchive(void) {
        return dlopen_many_sym(&libarchive_dl, "libarchive.so.13", "libarchive13",
                               DLSYM_ARG(archive_write_new),
                               DLSYM_ARG(archive_write_set_format_pax_restricted),
                               DLSYM_ARG(archive_write_open_fd),
                               DLSYM_ARG(archive_write_header),
                               DLSYM_ARG(archive_write_data),
                               DLSYM_ARG(archive_write_close),
                               DLSYM_ARG(archive_write_free),
                               DLSYM_ARG(archive_error_string),
                               DLSYM_ARG(archive_entry_new),
                               DLSYM_ARG(archive_entry_free),
                               DLSYM_ARG(archive_entry_set_pathname),
                               DLSYM_ARG(archive_entry_set_size),
                               DLSYM_ARG(archive_entry_set_filetype),
                               DLSYM_ARG(archive_entry_set_perm),
                               DLSYM_ARG(archive_entry_set_mtime),
                               NULL);
}
