/* SPDX-License-Identifier: MIT */
/* The plain-text tables of show, plan and status: columns as wide as their widest cell, header
 * included, two spaces apart; '>' columns right-aligned; rows wrap after n_columns cells; cells
 * escaped, and as wide as their characters. */

#include "basic/table.h"
#include "basic/util.h"
#include "tap.h"

/* What table_print() writes, as a string. */
static char *printed(const struct table *t, const char *indent) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
                printf("Bail out! open_memstream\n");
                exit(1);
        }
        table_print(t, f, indent);
        fclose(f);
        return buf;
}

int main(void) {
        {
                const char *const headers[] = {"NODE", ">CPUS", "MEMORY"};
                _cleanup_table_ struct table *t = table_new(headers, ELEMENTSOF(headers));
                _cleanup_free_ char *empty = printed(t, NULL);
                is_str(empty, "NODE  CPUS  MEMORY\n", "no rows: the headers, '>' not printed");

                /* Two rows, added one cell at a time. */
                table_add(t, "0");
                table_add(t, "0-3");
                table_addf(t, "%.1f GiB", 64.0);
                table_addf(t, "%d", 1);
                table_add(t, "4-127");
                table_add(t, NULL);
                _cleanup_free_ char *out = printed(t, NULL);
                is_str(out,
                       "NODE   CPUS  MEMORY\n"
                       "0       0-3  64.0 GiB\n"
                       "1     4-127  \n",
                       "widths from the widest cell, header or not; CPUS right-aligned; a NULL cell is empty");
                _cleanup_free_ char *indented = printed(t, "    ");
                is_str(indented,
                       "    NODE   CPUS  MEMORY\n"
                       "    0       0-3  64.0 GiB\n"
                       "    1     4-127  \n",
                       "the indent begins every line");
        }
        {
                /* A header wider than its cells, the last column right-aligned (padded, unlike a
                 * left-aligned last column), and a cell that holds the header's '>'. */
                const char *const headers[] = {"REPLICA", ">PAGES"};
                _cleanup_table_ struct table *t = table_new(headers, ELEMENTSOF(headers));
                table_add(t, "a");
                table_add(t, "7");
                table_add(t, ">b");
                table_add(t, "1234567");
                _cleanup_free_ char *out = printed(t, "");
                is_str(out,
                       "REPLICA    PAGES\n"
                       "a              7\n"
                       ">b       1234567\n",
                       "a right-aligned last column is padded on the left; '>' in a cell is text");
        }
        {
                const char *const headers[] = {"ONLY"};
                _cleanup_table_ struct table *t = table_new(headers, 1);
                for (int i = 0; i < 3; i++)
                        table_addf(t, "%0*d", i + 3, i);
                _cleanup_free_ char *out = printed(t, NULL);
                is_str(out, "ONLY\n000\n0001\n00002\n", "one column: a row per cell, no trailing blanks");
        }
        {
                /* A host's names: what the terminal would take as commands is escaped, a newline
                 * cannot start a row, and UTF-8 counts a column a character. */
                const char *const headers[] = {"IFACE", ">NODE"};
                _cleanup_table_ struct table *t = table_new(headers, ELEMENTSOF(headers));
                table_add(t, "eth\x1b[31m\n\xff");
                table_add(t, "0");
                table_add(t, "caf\xc3\xa9");
                table_add(t, "1");
                table_add(t, "llama\\x2d0");
                table_add(t, "2");
                _cleanup_free_ char *out = printed(t, NULL);
                is_str(out,
                       "IFACE              NODE\n"
                       "eth\\x1b[31m\\n\\xff     0\n"
                       "caf\xc3\xa9                  1\n"
                       "llama\\x2d0            2\n",
                       "control bytes and bytes that are no UTF-8 as C escapes, a backslash as it was, "
                       "and the width of 'caf\xc3\xa9' four");
        }
        return done_testing();
}
