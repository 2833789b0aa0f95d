/* SPDX-License-Identifier: MIT */
#include "basic/escape.h"
#include "basic/util.h"
#include "tap.h"

static void check(const char *in, const char *want, const char *what) {
        _cleanup_free_ char *e = name_escape(in);
        is_str(e, want, "%s", what);
}

int main(void) {
        check("/srv/models/q.gguf", "/srv/models/q.gguf", "a plain path stays as it is");
        check("a\nnumaplan[1]: error: forged", "a\\nnumaplan[1]: error: forged", "a newline cannot start a line");
        check("tab\there\rcr", "tab\\there\\rcr", "tab and carriage return escaped");
        check("back\\slash", "back\\\\slash", "a backslash is doubled, so the escape is unambiguous");
        check("\x1b[31mred", "\\x1b[31mred", "an escape sequence cannot repaint a terminal");
        check("del\x7f", "del\\x7f", "DEL escaped");
        check("caf\xc3\xa9", "caf\xc3\xa9", "UTF-8 stays");
        check("\xe6\xa8\xa1\xe5\x9e\x8b", "\xe6\xa8\xa1\xe5\x9e\x8b", "three-byte UTF-8 stays");
        check("bad\xff\xfe", "bad\\xff\\xfe", "bytes that are no UTF-8 escaped");
        check("over\xc0\xaf", "over\\xc0\\xaf", "an overlong sequence escaped");
        check("c1\xc2\x85", "c1\\xc2\\x85", "a C1 control (NEL) escaped");
        check("cut\xe6\xa8", "cut\\xe6\\xa8", "a truncated sequence escaped");
        check("", "", "the empty name");
        check(NULL, "(null)", "NULL");

        /* A message of numaplan's own words with a value read from the host in it. */
        _cleanup_free_ char *m = text_escape("llama\\x2dserver@0.service: '\xff\xfe' is no node number\n");
        is_str(m, "llama\\x2dserver@0.service: '\\xff\\xfe' is no node number\\n",
               "text_escape: a unit's backslash stays, bytes that are no UTF-8 and control bytes are escaped");
        _cleanup_free_ char *twice = text_escape(m);
        is_str(twice, m, "and escaping it again changes nothing");
        /* find_unsafe(): the first byte a unit file or a log line may not hold as it is. */
        const char *text = "[Service]\nCPUAffinity=0-3\n";
        ok(find_unsafe(text, "\n") == NULL, "find_unsafe: a drop-in's text with its newlines allowed");
        ok(find_unsafe(text, NULL) == text + 9, "find_unsafe: its first newline when none is allowed");
        const char *bell = "caf\xc3\xa9 \a";
        ok(find_unsafe(bell, NULL) == bell + 6, "find_unsafe: past UTF-8 to a control byte");
        const char *cut = "plain then \xe6\xa8";
        ok(find_unsafe(cut, NULL) == cut + 11, "find_unsafe: a truncated sequence");
        return done_testing();
}
