/* SPDX-License-Identifier: MIT */
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include "basic/dlopen-util.h"

#define LIBARCHIVE_SYMBOLS(X) \
        X(archive_write_new) \
        X(archive_write_set_format_pax_restricted) \
        X(archive_write_open_fd) \
        X(archive_write_header) \
        X(archive_write_data) \
        X(archive_write_close) \
        X(archive_write_free) \
        X(archive_error_string) \
        X(archive_entry_new) \
        X(archive_entry_free) \
        X(archive_entry_set_pathname) \
        X(archive_entry_set_size) \
        X(archive_entry_set_filetype) \
        X(archive_entry_set_perm) \
        X(archive_entry_set_mtime) \
        X(archive_entry_set_symlink)

LIBARCHIVE_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libarchive(void);
