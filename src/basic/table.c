/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "basic/escape.h"
#include "basic/table.h"
#include "basic/util.h"

struct table {
        size_t n_columns;
        char **cells;        /* headers first, then rows */
        const char **colors; /* each cell's ANSI sequence, or NULL */
        size_t n_cells;
};

struct table *table_new(const char *const *headers, size_t n_columns) {
        struct table *t = xmalloc0(sizeof(*t));
        t->n_columns = n_columns;
        for (size_t i = 0; i < n_columns; i++)
                table_add(t, headers[i]);
        return t;
}

void table_add_colored(struct table *t, const char *ansi, const char *cell) {
        t->cells = xrealloc(t->cells, (t->n_cells + 1) * sizeof(char *));
        t->colors = xrealloc(t->colors, (t->n_cells + 1) * sizeof(char *));
        t->colors[t->n_cells] = ansi && *ansi ? ansi : NULL;
        t->cells[t->n_cells++] = text_escape(cell ? cell : "");
}

void table_add(struct table *t, const char *cell) {
        table_add_colored(t, NULL, cell);
}

void table_addf(struct table *t, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        char *s = xvasprintf(fmt, ap);
        va_end(ap);
        table_add(t, s);
        free(s);
}

static const char *header_text(const struct table *t, size_t col) {
        const char *h = t->cells[col];
        return h[0] == '>' ? h + 1 : h;
}

/* A cell's width in characters: its cells are UTF-8 (text_escape() saw to it), one column a code
 * point, so that "café" lines up with "cafe". */
static size_t width_of(const char *s) {
        size_t n = 0;
        for (; *s; s++)
                n += ((unsigned char) *s & 0xc0) != 0x80;
        return n;
}

static void pad(FILE *f, size_t n) {
        while (n-- > 0)
                fputc(' ', f);
}

void table_print(const struct table *t, FILE *f, const char *indent) {
        size_t *width = xmalloc0(t->n_columns * sizeof(size_t));

        for (size_t i = 0; i < t->n_cells; i++) {
                size_t col = i % t->n_columns;
                size_t w = width_of(i < t->n_columns ? header_text(t, col) : t->cells[i]);
                if (w > width[col])
                        width[col] = w;
        }
        for (size_t i = 0; i < t->n_cells; i++) {
                size_t col = i % t->n_columns;
                bool right = t->cells[col][0] == '>';
                bool last = col == t->n_columns - 1;
                const char *s = i < t->n_columns ? header_text(t, col) : t->cells[i];
                size_t w = width_of(s);

                if (col == 0)
                        fputs(indent ? indent : "", f);
                if (right)
                        pad(f, width[col] - w);
                fprintf(f, "%s%s%s", t->colors[i] ? t->colors[i] : "", s, t->colors[i] ? "\033[0m" : "");
                if (!right && !last)
                        pad(f, width[col] - w);
                fputs(last ? "\n" : "  ", f);
        }
        free(width);
}

void table_free(struct table *t) {
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i]);
        free(t->cells);
        free(t->colors);
        free(t);
}
