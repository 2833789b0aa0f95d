/* SPDX-License-Identifier: MIT */
/* The unified diff of --diff: worked examples in diff -u's exact form, then random pairs of
 * texts, each diff applied strictly (every line where its hunk header says, no fuzz, no offset)
 * to the old text must give the new one, with each change's old lines before its new ones. */
#include <stdlib.h>

#include "basic/diff.h"
#include "basic/util.h"
#include "tap.h"

static char *diff(const char *old, const char *new) {
        struct strbuf b = {0};
        diff_unified(&b, "a", old, "b", new);
        return b.s ? strbuf_steal(&b) : xstrdup("");
}

static char **lines(const char *text, size_t *ret_n) {
        char **v = NULL;
        size_t n = 0;
        for (const char *p = text ? text : ""; *p;) {
                const char *e = strchrnul(p, '\n');
                v = xrealloc(v, (n + 1) * sizeof(char *));
                v[n++] = xstrndup(p, (size_t) (e - p));
                p = *e ? e + 1 : e;
        }
        *ret_n = n;
        return v;
}

static void lines_free(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

/* Applies `d` to `old` as patch(1) with --fuzz=0 would, and nothing looser: each hunk at its
 * stated line, its counts exact. Returns the new text, or NULL with *why set. */
static char *apply_strictly(const char *old, const char *d, const char **why) {
        size_t n_old, n_d, at = 0;
        char **a = lines(old, &n_old), **h = lines(d, &n_d);
        struct strbuf out = {0};
        char *result = NULL;

        *why = NULL;
        for (size_t k = 0; k < n_d && !*why;) {
                if (startswith(h[k], "--- ") || startswith(h[k], "+++ ")) {
                        k++;
                        continue;
                }
                unsigned long a0, na, b0, nb;
                if (sscanf(h[k], "@@ -%lu,%lu +%lu,%lu @@", &a0, &na, &b0, &nb) != 4) {
                        *why = "a line outside any hunk";
                        break;
                }
                size_t start = na ? a0 - 1 : a0, seen_old = 0, seen_new = 0;
                bool added = false;
                if (start < at || start > n_old) {
                        *why = "a hunk before the previous one, or past the end";
                        break;
                }
                for (; at < start; at++)
                        strbuf_printf(&out, "%s\n", a[at]);
                for (k++; k < n_d && strchr(" +-", h[k][0]) && !startswith(h[k], "--- ") && !*why; k++) {
                        const char *text = h[k] + 1;
                        if (h[k][0] == '+') {
                                strbuf_printf(&out, "%s\n", text);
                                seen_new++;
                                added = true;
                                continue;
                        }
                        if (at >= n_old || !streq(a[at], text))
                                *why = "a context or removed line that is not the old text's";
                        else if (h[k][0] == '-' && added)
                                *why = "an old line after a new one within a change (diff -u has them first)";
                        else if (h[k][0] == ' ') {
                                strbuf_printf(&out, "%s\n", text);
                                seen_new++;
                                added = false;
                        }
                        at++;
                        seen_old++;
                }
                if (!*why && (seen_old != na || seen_new != nb))
                        *why = "a hunk header whose counts are not its lines'";
        }
        if (!*why) {
                for (; at < n_old; at++)
                        strbuf_printf(&out, "%s\n", a[at]);
                result = out.s ? strbuf_steal(&out) : xstrdup("");
        }
        strbuf_done(&out);
        lines_free(a, n_old);
        lines_free(h, n_d);
        return result;
}

static char *random_text(unsigned *seed) {
        static const char *const words[] = {"[Service]", "NUMAMask=0", "NUMAMask=1", "", "AllowedCPUs=0-3"};
        struct strbuf b = {0};
        unsigned n = (unsigned) rand_r(seed) % 16;
        for (unsigned i = 0; i < n; i++)
                strbuf_printf(&b, "%s\n", words[rand_r(seed) % ELEMENTSOF(words)]);
        return b.s ? strbuf_steal(&b) : xstrdup("");
}

int main(void) {
        _cleanup_free_ char *changed = diff("x\na\nb\nc\ny\n", "x\na\nB\nc\ny\n");
        is_str(changed,
               "--- a\n+++ b\n"
               "@@ -1,5 +1,5 @@\n x\n a\n-b\n+B\n c\n y\n",
               "a changed line: its old form first, then its new one, as diff -u prints it");
        _cleanup_free_ char *block = diff("1\n2\n3\n", "one\ntwo\n3\n");
        is_str(block, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n-1\n-2\n+one\n+two\n 3\n",
               "a changed block: all its old lines, then all its new ones");
        _cleanup_free_ char *created = diff(NULL, "a\n");
        is_str(created, "--- /dev/null\n+++ b\n@@ -0,0 +1,1 @@\n+a\n", "a new file, against /dev/null");
        _cleanup_free_ char *removed = diff("a\n", NULL);
        is_str(removed, "--- a\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n", "a removed file, against /dev/null");
        _cleanup_free_ char *same = diff("a\n", "a\n");
        is_str(same, "", "equal texts: nothing");

        unsigned seed = 20261201, bad = 0;
        const char *first_why = NULL;
        char *first_old = NULL, *first_new = NULL;
        for (unsigned i = 0; i < 3000; i++) {
                char *old = random_text(&seed), *new = random_text(&seed), *d = diff(old, new);
                const char *why;
                char *got = apply_strictly(old, d, &why);
                if (!why && !streq(got, new))
                        why = "the result is not the new text";
                if (why && bad++ == 0) {
                        first_why = why;
                        first_old = xstrdup(old);
                        first_new = xstrdup(new);
                }
                free(got);
                free(d);
                free(old);
                free(new);
        }
        if (!ok(bad == 0, "3000 random pairs: each diff applies strictly to the old text and gives the new one"))
                printf("#   %u failed; the first: %s\n#   old: %s\n#   new: %s\n", bad, first_why, first_old,
                       first_new);
        free(first_old);
        free(first_new);
        return done_testing();
}
