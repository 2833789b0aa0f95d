/* SPDX-License-Identifier: MIT */
/* utf8_sanitize(), which every --json document and Prometheus label goes through: valid UTF-8
 * passes unchanged, control characters included; each byte that is not part of a valid sequence
 * becomes U+FFFD, whatever the kind of error. utf8_valid() tells the first case from the rest. */

#include "basic/escape.h"
#include "basic/util.h"
#include "tap.h"
#include "utf8-check.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

static void check(const char *in, const char *want, const char *what) {
        _cleanup_free_ char *out = utf8_sanitize(in);
        is_str(out, want, "%s", what);
        /* utf8_valid() says whether there was anything to replace. */
        ok(utf8_valid(in) == streq(out, in ? in : ""), "%s: utf8_valid() says %s", what,
           utf8_valid(in) ? "valid" : "not valid");
}

static void unchanged(const char *in, const char *what) {
        check(in, in, what);
}

int main(void) {
        unchanged("/srv/models/q.gguf", "ASCII passes unchanged");
        unchanged("\x01\x1b[31m\x7f\n\t\r", "control characters and DEL too: escaping them is the format's business");
        unchanged("caf\xc3\xa9", "two-byte UTF-8");
        unchanged("\xe6\xa8\xa1\xe5\x9e\x8b", "three-byte UTF-8");
        unchanged("\xf0\x9f\x98\x80", "four-byte UTF-8 (U+1F600)");
        unchanged("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
                  "the first and last code point of each length, U+10FFFF included");
        unchanged("\xc2\x85", "a C1 control (NEL), which is valid UTF-8");
        unchanged("\xef\xbf\xbe", "the noncharacter U+FFFE, valid UTF-8 too");
        unchanged(R, "U+FFFD itself");
        unchanged("", "the empty string");
        check(NULL, "", "NULL: the empty string");

        check("bad\xff", "bad" R, "a byte that never starts UTF-8 (0xff)");
        check("\xfe\xf5\xf8", R R R, "0xf5 to 0xff: one U+FFFD each");
        check("x\x80y", "x" R "y", "a stray continuation byte");
        check("\xbf\xbf", R R, "two of them");
        check("over\xc0\xaf", "over" R R, "an overlong '/' (0xc0 0xaf): each byte");
        check("\xc1\xbf", R R, "0xc1: overlong, never valid");
        check("\xe0\x80\xaf", R R R, "an overlong three-byte form");
        check("\xf0\x80\x80\xaf", R R R R, "an overlong four-byte form");
        check("\xed\xa0\x80", R R R, "a surrogate (U+D800)");
        check("\xed\xbf\xbf", R R R, "the last surrogate (U+DFFF)");
        check("\xf4\x90\x80\x80", R R R R, "past U+10FFFF");
        check("cut\xe6\xa8", "cut" R R, "a sequence cut by the end");
        check("\xe6\xa8x", R R "x", "one cut by an ASCII byte, which stays");
        check("\xe6\xa8\xe5\x9e\x8b", R R "\xe5\x9e\x8b", "one cut by a valid sequence, which stays");
        check("\xc3", R, "a lead byte alone");
        check("a\xff"
              "b\xc3\xa9"
              "c\x80",
              "a" R "b\xc3\xa9"
              "c" R,
              "valid and invalid mixed: each kept in its place");
        /* utf8_valid() takes ASCII eight bytes at a time: a bad byte at each place in a word, and
         * a sequence across two words, are still seen. */
        for (int at = 0; at < 17; at++) {
                char in[32], want[64], what[64];
                memset(in, 'j', sizeof(in));
                in[at] = (char) 0xff;
                in[20] = 0;
                snprintf(want, sizeof(want), "%.*s" R "%.*s", at, in, 19 - at, in + at + 1);
                snprintf(what, sizeof(what), "a bad byte at offset %d of 20 otherwise ASCII ones", at);
                check(in, want, what);
        }
        unchanged("seven b\xc3\xa9yond a word", "a two-byte sequence across two words");
        check("{\"name\": \"eth\xff\xfe\"}", "{\"name\": \"eth" R R "\"}",
              "a JSON document: the string's bytes replaced, its syntax kept");

        /* Every byte from 0x01 to 0xff, in order: none from 0x80 up makes a sequence with the next,
         * so ASCII stays and each of the 128 others is one U+FFFD. */
        char all[256];
        for (int i = 0; i < 255; i++)
                all[i] = (char) (i + 1);
        all[255] = 0;
        _cleanup_free_ char *out = utf8_sanitize(all);
        struct strbuf want = {0};
        strbuf_append_n(&want, all, 127);
        for (int i = 0; i < 128; i++)
                strbuf_append(&want, R);
        is_str(out, want.s, "every byte 0x01-0xff: ASCII as it is, 128 U+FFFD");
        ok(utf8_well_formed(out, strlen(out)), "which is well-formed UTF-8 by the standard's table");
        _cleanup_free_ char *again = utf8_sanitize(out);
        is_str(again, out, "and sanitizing it again changes nothing");
        strbuf_done(&want);

        /* The checker the fuzz target trusts, against the cases above. */
        ok(utf8_well_formed("caf\xc3\xa9\xf4\x8f\xbf\xbf", 9) && !utf8_well_formed("\xed\xa0\x80", 3) &&
                   !utf8_well_formed("\xf4\x90\x80\x80", 4) && !utf8_well_formed("\xe0\x9f\xbf", 3) &&
                   !utf8_well_formed("\xe6\xa8", 2) && !utf8_well_formed("\xc1\xbf", 2),
           "the standard's table: valid forms in, overlong, surrogate, too large and cut forms out");
        return done_testing();
}
