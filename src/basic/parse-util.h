/* SPDX-License-Identifier: MIT */
#pragma once

/* Values an admin writes in numaplan.conf. Each returns 0 or -EINVAL/-ERANGE and never guesses. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes, with binary suffixes K, M, G, T (case-insensitive) or KiB, MiB, GiB, TiB: "48G" =
 * "48GiB" = 51539607552. Decimal units (GB) are refused: they would be a different number. */
int parse_size(const char *s, uint64_t *ret);
/* "10%", "99.5%" into basis points (10% = 1000); 0..100%. */
int parse_percent(const char *s, unsigned *ret_bp);
/* "120", "120s", "2m", "500ms" into milliseconds. */
int parse_duration_ms(const char *s, uint64_t *ret);
/* yes/no, true/false, on/off, 1/0. */
int parse_boolean(const char *s, bool *ret);

/* The inverse, for messages and headers: "95%" or "99.5%". */
void format_percent(char *buf, size_t n, unsigned bp);
/* part of whole as "99.8%": one decimal, rounded down, so 99.96% does not read as 100.0%. */
char *format_share(uint64_t part, uint64_t whole);
