/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

#include "basic/dlopen-util.h"

#define LIBSYSTEMD_SYMBOLS(X) \
        X(sd_bus_new) \
        X(sd_bus_set_address) \
        X(sd_bus_start) \
        X(sd_bus_open_system) \
        X(sd_bus_flush_close_unref) \
        X(sd_bus_set_method_call_timeout) \
        X(sd_bus_call_method) \
        X(sd_bus_get_property) \
        X(sd_bus_get_property_string) \
        X(sd_bus_get_property_strv) \
        X(sd_bus_get_property_trivial) \
        X(sd_bus_message_unref) \
        X(sd_bus_message_read) \
        X(sd_bus_message_read_array) \
        X(sd_bus_message_enter_container) \
        X(sd_bus_message_exit_container) \
        X(sd_bus_message_skip) \
        X(sd_bus_message_read_strv) \
        X(sd_bus_match_signal) \
        X(sd_bus_slot_unref) \
        X(sd_bus_process) \
        X(sd_bus_wait) \
        X(sd_bus_error_free) \
        X(sd_bus_path_encode)

LIBSYSTEMD_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libsystemd(void);

/* sd-bus's own cleanup helpers call the library directly; these call it through the pointers. */
static inline void bus_unrefp(sd_bus **b) {
        if (*b)
                sym_sd_bus_flush_close_unref(*b);
}
static inline void bus_message_unrefp(sd_bus_message **m) {
        if (*m)
                sym_sd_bus_message_unref(*m);
}
static inline void bus_error_freep(sd_bus_error *e) {
        if (sym_sd_bus_error_free)
                sym_sd_bus_error_free(e);
}
static inline void bus_slot_unrefp(sd_bus_slot **s) {
        if (*s)
                sym_sd_bus_slot_unref(*s);
}
#define _cleanup_bus_ __attribute__((cleanup(bus_unrefp)))
#define _cleanup_bus_message_ __attribute__((cleanup(bus_message_unrefp)))
#define _cleanup_bus_error_ __attribute__((cleanup(bus_error_freep)))
#define _cleanup_bus_slot_ __attribute__((cleanup(bus_slot_unrefp)))
