/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>

#include "basic/dlopen-util.h"

/* udev's hardware database, for PCI names: libpci loads libudev anyway. */
#define LIBUDEV_SYMBOLS(X) \
        X(udev_new) \
        X(udev_unref) \
        X(udev_hwdb_new) \
        X(udev_hwdb_unref) \
        X(udev_hwdb_get_properties_list_entry) \
        X(udev_list_entry_get_next) \
        X(udev_list_entry_get_name) \
        X(udev_list_entry_get_value)

LIBUDEV_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libudev(void);
