/* SPDX-License-Identifier: MIT */
/* The helpers every file uses: the string buffer, the string-vector helpers, strict number
 * parsing, trailing-space stripping, byte counts for people, and errors kept with their place. */

#include <inttypes.h>

#include "basic/util.h"
#include "tap.h"

static void strbufs(void) {
        struct strbuf b = {0};

        _cleanup_free_ char *none = strbuf_steal(&b);
        is_str(none, "", "an empty buffer gives an empty string, not NULL");
        ok(!b.s && b.len == 0 && b.cap == 0, "stealing leaves the buffer empty");

        strbuf_append(&b, "");
        ok(b.s && b.len == 0 && b.s[0] == 0, "appending nothing still makes a string");
        strbuf_append(&b, "abc");
        strbuf_printf(&b, "-%d-%s", 42, "x");
        is_str(b.s, "abc-42-x", "append and printf concatenate");
        is_int(b.len, strlen("abc-42-x"), "len is the string's length");

        /* Growth past the first allocation, by both functions, byte for byte. */
        char want[5000 + 1];
        for (int i = 0; i < 5000; i++)
                want[i] = (char) ('a' + i % 26);
        want[5000] = 0;
        strbuf_done(&b);
        ok(!b.s && b.len == 0, "done empties it");
        for (int i = 0; i < 5000; i += 100)
                if (i % 200)
                        strbuf_printf(&b, "%.100s", want + i);
                else {
                        char chunk[101];
                        memcpy(chunk, want + i, 100);
                        chunk[100] = 0;
                        strbuf_append(&b, chunk);
                }
        ok(b.len == 5000 && b.cap > b.len && streq(b.s, want),
           "5000 bytes in 100-byte pieces arrive whole and in order");
        _cleanup_free_ char *s = strbuf_steal(&b);
        ok(s && strlen(s) == 5000 && !b.s, "the stolen string is the caller's");

        strbuf_printf(&b, "%s", "");
        ok(b.s && streq(b.s, "") && b.len == 0, "printf of nothing makes an empty string");
        strbuf_done(&b);
}

static void strings(void) {
        char *v[] = {xstrdup("pear"), xstrdup("apple"), xstrdup("fig"), NULL};

        ok(strv_contains(v, "fig") && !strv_contains(v, "fi") && !strv_contains(NULL, "fig"),
           "strv_contains: whole strings only, and NULL holds nothing");
        is_int(strv_length(v), 3, "strv_length counts to the NULL");
        is_int(strv_length(NULL), 0, "strv_length of NULL is 0");
        strv_sort(v, 3);
        ok(streq(v[0], "apple") && streq(v[1], "fig") && streq(v[2], "pear") && !v[3], "strv_sort sorts in place");
        /* qsort() must not be given NULL even for none: the sanitizer build stops here if it is. */
        strv_sort(NULL, 0);
        for (size_t i = 0; i < 3; i++)
                free(v[i]);

        ok(streq_ptr(NULL, NULL) && !streq_ptr("a", NULL) && !streq_ptr(NULL, "a") && streq_ptr("a", "a"),
           "streq_ptr: NULL equals only NULL");
        const char *s = "unit@0.service";
        ok(startswith(s, "unit@") == s + 5 && !startswith(s, "unit@0.service.d") && startswith(s, "") == s,
           "startswith returns the rest, or NULL");
        is_str(strempty(NULL), "", "strempty(NULL)");

        char **w = xmalloc0(3 * sizeof(char *));
        w[0] = xstrdup("a");
        w[1] = xstrdup("b");
        _cleanup_strv_free_ char **owned = TAKE_PTR(w);
        ok(!w && strv_length(owned) == 2, "TAKE_PTR hands the vector over and empties the local");
        _cleanup_free_ char *half = xstrndup("abcdef", 3);
        is_str(half, "abc", "xstrndup stops at n");
        _cleanup_free_ char *f = xasprintf("%s=%u", "n", 7u);
        is_str(f, "n=7", "xasprintf");
        _cleanup_free_ unsigned char *z = xmalloc0(0);
        ok(z != NULL, "xmalloc0(0) is still a pointer");
}

static void uint64s(void) {
        static const struct {
                const char *in;
                unsigned base;
                int r;
                uint64_t v;
        } cases[] = {
                {"0", 10, 0, 0},
                {"42", 10, 0, 42},
                {"18446744073709551615", 10, 0, UINT64_MAX},
                {"18446744073709551616", 10, -ERANGE, 0},
                {"ff", 16, 0, 255},
                {"FF", 16, 0, 255},
                {"7f00", 16, 0, 0x7f00},
                {"ffffffffffffffff", 16, 0, UINT64_MAX},
                {"10000000000000000", 16, -ERANGE, 0},
                {"ff", 10, -EINVAL, 0},
                {"-1", 10, -EINVAL, 0}, /* strtoull would wrap it to 2^64 - 1 */
                {"+1", 10, -EINVAL, 0},
                {" 1", 10, -EINVAL, 0},
                {"1 ", 10, -EINVAL, 0},
                {"1\n", 10, -EINVAL, 0},
                {"", 10, -EINVAL, 0},
                {"12a", 10, -EINVAL, 0},
                {"1.5", 10, -EINVAL, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 12345;
                int r = parse_uint64(cases[i].in, cases[i].base, &v);
                uint64_t want = cases[i].r == 0 ? cases[i].v : 12345;
                if (!ok(r == cases[i].r && v == want, "parse_uint64('%s', %u): %d", shown(cases[i].in), cases[i].base,
                        cases[i].r))
                        printf("#   got r=%d, %" PRIu64 "\n", r, v);
        }
        uint64_t v = 1;
        ok(parse_uint64(NULL, 10, &v) == -EINVAL && v == 1, "parse_uint64(NULL) is -EINVAL");
}

static void ints(void) {
        static const struct {
                const char *in;
                int r, v;
        } cases[] = {
                {"0", 0, 0},
                {"-1", 0, -1}, /* sysfs's numa_node for "no node" */
                {"2147483647", 0, 2147483647},
                {"-2147483648", 0, -2147483647 - 1},
                {"2147483648", -ERANGE, 0},
                {"-2147483649", -ERANGE, 0},
                {"99999999999999999999", -ERANGE, 0},
                {"", -EINVAL, 0},
                {"-", -EINVAL, 0},
                {" 1", -EINVAL, 0},
                {"\t1", -EINVAL, 0},
                {"1 ", -EINVAL, 0},
                {"1\n", -EINVAL, 0},
                {"0x10", -EINVAL, 0},
                {"1e3", -EINVAL, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int v = 777;
                int r = parse_int(cases[i].in, &v);
                int want = cases[i].r == 0 ? cases[i].v : 777;
                if (!ok(r == cases[i].r && v == want, "parse_int('%s'): %d", shown(cases[i].in), cases[i].r))
                        printf("#   got r=%d, %d\n", r, v);
        }
        int v = 5;
        ok(parse_int(NULL, &v) == -EINVAL && v == 5, "parse_int(NULL) is -EINVAL");
}

static void stripping(void) {
        char a[] = " 0-3 \t\r\n\v\f";
        ok(strip_trailing(a) == a && streq(a, " 0-3"), "trailing whitespace goes, leading stays");
        char b[] = "\n\n";
        is_str(strip_trailing(b), "", "all whitespace leaves the empty string");
        char c[] = "";
        is_str(strip_trailing(c), "", "the empty string stays empty");
        /* A captured sysfs file that ends in a NUL after the newline, and one with a NUL before
         * its newline: both are the value and nothing else. */
        char d[] = {'0', '-', '3', '\n', '\0', '\0'};
        is_str(strip_trailing(d), "0-3", "\"0-3\\n\\0\\0\" is 0-3");
        char e[] = {'1', ' ', '\0', '\n', '\0'};
        is_str(strip_trailing(e), "1", "\"1 \\0\\n\" is 1");
        char f[] = "a b";
        is_str(strip_trailing(f), "a b", "inner blanks stay");
}

static void bytes(void) {
        static const struct {
                uint64_t v;
                const char *want;
        } cases[] = {
                {0, "0 B"},
                {1, "1 B"},
                {1023, "1023 B"},
                {1024, "1.0 KiB"},
                {1536, "1.5 KiB"},
                {1048575, "1.0 MiB"}, /* not "1024.0 KiB" */
                {1048000, "1023.4 KiB"},
                {UINT64_C(48) << 30, "48.0 GiB"},
                {(UINT64_C(3) << 40) + (UINT64_C(1) << 39), "3.5 TiB"},
                {UINT64_C(1) << 50, "1.0 PiB"},
                {UINT64_MAX, "16384.0 PiB"}, /* no unit past PiB: the number grows */
                {1280, "1.2 KiB"},           /* 1.25: a half rounds to even, as printf's %.1f does */
                {1331, "1.3 KiB"},           /* 1.2998: rounds up */
                {1792, "1.8 KiB"},           /* 1.75: to even, up */
                {1048524, "1023.9 KiB"},     /* 1023.949: the last below the next unit */
                {1048525, "1.0 MiB"},        /* 1023.950: the first above */
        };
        char buf[FORMAT_BYTES_MAX];
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                format_bytes(buf, sizeof(buf), cases[i].v);
                is_str(buf, cases[i].want, "%" PRIu64 " bytes", cases[i].v);
        }
}

static int set_v(struct error_at *e, struct where at, const char *fmt, ...) _printf_(3, 4);
static int set_v(struct error_at *e, struct where at, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = error_at_setv(e, at, fmt, ap);
        va_end(ap);
        return r;
}

static void errors(void) {
        struct error_at e = {0};

        is_int(error_at_set(&e, (struct where){"a.conf", 3}, "bad %s", "key"), -EINVAL, "error_at_set returns -EINVAL");
        ok(streq(e.message, "bad key") && streq(e.at.file, "a.conf") && e.at.line == 3,
           "with the message and the place");
        /* A second error replaces the first (the sanitizer build sees the first freed). */
        is_int(set_v(&e, (struct where){"b.conf", 0}, "%d is %s", 7, "odd"), -EINVAL, "error_at_setv returns -EINVAL");
        ok(streq(e.message, "7 is odd") && streq(e.at.file, "b.conf") && e.at.line == 0, "and replaces the error held");
        char *held = e.message;
        error_at_done(&e);
        ok(held && !e.message && !e.at.file && e.at.line == 0, "error_at_done empties it");
        error_at_done(&e); /* twice: a double free stops the sanitizer build */

        /* error_at_add(): every error kept, up to ERROR_AT_KEEP, the rest counted. */
        is_int(error_at_add(&e, (struct where){"a.conf", 5}, "first"), -EINVAL, "error_at_add returns -EINVAL");
        ok(streq(e.message, "first") && e.at.line == 5 && e.n_next == 0, "the first is the error held");
        for (int i = 0; i < 30; i++)
                error_at_add(&e, (struct where){"a.conf", (unsigned) i + 6}, "error %d", i);
        ok(error_at_count(&e) == 31 && e.n_next == ERROR_AT_KEEP - 1 && e.n_left_off == 31 - ERROR_AT_KEEP &&
                   streq(e.next[0].message, "error 0") && e.next[0].at.line == 6,
           "31 errors: %d kept in order, %zu counted", ERROR_AT_KEEP, e.n_left_off);
        error_at_done(&e);
        ok(error_at_count(&e) == 0 && !e.next, "error_at_done frees them all");
}

/* The nearest name, a swap of two letters one edit as a letter missing, added or changed is. */
static void suggestions(void) {
        static const char *const verbs[] = {"show",   "plan",    "apply",   "verify",
                                            "status", "migrate", "prepare", "remove"};
        static const char *const options[] = {"--json", "--config", "--check", "--sysfs-root"};
        static const char *const cases[][3] = {
                {"pln", "v", " (did you mean 'plan'?)"},
                {"shwo", "v", " (did you mean 'show'?)"},
                {"aplpy", "v", " (did you mean 'apply'?)"},
                {"verfiy", "v", " (did you mean 'verify'?)"},
                {"remvoe", "v", " (did you mean 'remove'?)"},
                {"--jsno", "o", " (did you mean '--json'?)"},
                {"--chekc", "o", " (did you mean '--check'?)"},
                {"--sysfs-roto", "o", " (did you mean '--sysfs-root'?)"},
                {"xyz", "v", ""},
                {"pa", "v", ""},
                {"sohw", "v", " (did you mean 'show'?)"},
                {"splat", "v", ""},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                bool verb = streq(cases[i][1], "v");
                _cleanup_free_ char *got =
                        suggest(cases[i][0], verb ? verbs : options, verb ? ELEMENTSOF(verbs) : ELEMENTSOF(options));
                is_str(got, cases[i][2], "suggest(%s)", cases[i][0]);
        }
}

/* Arrays grown an item at a time: each item lands in room made for it (the sanitizer build sees
 * a write past the end), and what was there is kept. */
static void growing(void) {
        int *v = NULL;
        size_t n = 0;
        bool kept = true;

        for (int i = 0; i < 1000; i++) {
                v = xgrow(v, n, sizeof(*v));
                v[n++] = i;
                for (size_t j = 0; j < n; j++)
                        kept = kept && v[j] == (int) j;
        }
        ok(kept && n == 1000, "1000 items appended one at a time are all there, in order");
        free(v);
}

int main(void) {
        strbufs();
        growing();
        strings();
        uint64s();
        ints();
        stripping();
        bytes();
        errors();
        suggestions();
        return done_testing();
}
