/* SPDX-License-Identifier: MIT */
#pragma once

/* A plain-text table: columns sized to their widest cell (in characters), two spaces apart.
 * Columns whose header starts with '>' are right-aligned (the '>' is not printed). */

#include <stdio.h>

struct table;

struct table *table_new(const char *const *headers, size_t n_columns);
/* Appends one cell; rows wrap after n_columns cells. The cell text is copied as text_escape()
 * writes it (basic/escape.h): a control byte or a byte that is no UTF-8, which a host's names may
 * hold, can neither break a row nor reach the terminal. */
void table_add(struct table *t, const char *cell);
void table_addf(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A cell printed in colour: `ansi` (basic/terminal.h's color_on(), "" for none) before it, the
 * colour reset after it; its width is the text's. */
void table_add_colored(struct table *t, const char *ansi, const char *cell);
void table_print(const struct table *t, FILE *f, const char *indent);
void table_free(struct table *t);
static inline void table_freep(struct table **t) {
        if (*t)
                table_free(*t);
}
#define _cleanup_table_ __attribute__((cleanup(table_freep)))
