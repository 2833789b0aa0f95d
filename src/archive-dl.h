/* SPDX-License-Identifier: MIT */
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include "dlopen-util.h"

DLSYM_PROTOTYPE(archive_write_new);
DLSYM_PROTOTYPE(archive_write_set_format_pax_restricted);
DLSYM_PROTOTYPE(archive_write_open_fd);
DLSYM_PROTOTYPE(archive_write_header);
DLSYM_PROTOTYPE(archive_write_data);
DLSYM_PROTOTYPE(archive_write_close);
DLSYM_PROTOTYPE(archive_write_free);
DLSYM_PROTOTYPE(archive_error_string);
DLSYM_PROTOTYPE(archive_entry_new);
DLSYM_PROTOTYPE(archive_entry_free);
DLSYM_PROTOTYPE(archive_entry_set_pathname);
DLSYM_PROTOTYPE(archive_entry_set_size);
DLSYM_PROTOTYPE(archive_entry_set_filetype);
DLSYM_PROTOTYPE(archive_entry_set_perm);
DLSYM_PROTOTYPE(archive_entry_set_mtime);

int dlopen_libarchive(void);
