/* SPDX-License-Identifier: MIT */
#pragma once

/* Libraries that only some verbs need (libsystemd, libcurl, libarchive, libnuma) are loaded on
 * first use, as systemd does for its optional libraries: `numaplan show` then starts as fast as
 * `numactl --hardware` instead of paying for some 40 shared objects it never calls. Each wrapper
 * declares sym_<function> pointers of the library's own types, so calls stay type-checked. */

#define DLSYM_PROTOTYPE(symbol) extern __typeof__(symbol) *sym_##symbol
#define DLSYM_DEFINE(symbol) __typeof__(symbol) *sym_##symbol
#define DLSYM_ARG(symbol) (void **) &sym_##symbol, #symbol

/* Opens `soname` once (the handle lives in *handle) and resolves the NULL-terminated list of
 * DLSYM_ARG pairs. Logs and returns -EOPNOTSUPP when the library or a symbol is missing. */
int dlopen_many_sym(void **handle, const char *soname, const char *package, ...);
