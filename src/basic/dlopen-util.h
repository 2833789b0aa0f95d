/* SPDX-License-Identifier: MIT */
#pragma once

/* Libraries that only some commands need (libpci, libsystemd, libcurl, libarchive, libnuma) are
 * loaded on first use, as systemd does for its optional libraries: `numaplan show` then starts as
 * fast as `numactl --hardware` instead of paying for some 40 shared objects it may never call.
 *
 * Each wrapper lists its functions once, as an X-macro, and gets from that list sym_<function>
 * pointers of the library's own types (so calls stay type-checked), their definitions, and the
 * loader:
 *
 *     #define LIBFOO_SYMBOLS(X) X(foo_open) X(foo_close)
 *     LIBFOO_SYMBOLS(DLSYM_PROTOTYPE)                      (in the header)
 *     LIBFOO_SYMBOLS(DLSYM_DEFINE)                         (in the .c file)
 *     dlopen_many_sym(&dl, "libfoo.so.1", "libfoo1", LIBFOO_SYMBOLS(DLSYM_ARG) NULL);
 */

#define DLSYM_PROTOTYPE(symbol) extern __typeof__(symbol) *sym_##symbol;
#define DLSYM_DEFINE(symbol) __typeof__(symbol) *sym_##symbol;
#define DLSYM_ARG(symbol) (void **) &sym_##symbol, #symbol,

/* Opens `soname` once (the handle lives in *handle) and resolves the NULL-terminated list of
 * DLSYM_ARG pairs. Logs and returns -EOPNOTSUPP when the library or a symbol is missing. */
int dlopen_many_sym(void **handle, const char *soname, const char *package, ...);
