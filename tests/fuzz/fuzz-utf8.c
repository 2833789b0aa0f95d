/* SPDX-License-Identifier: MIT */
/* The sanitizer every --json document goes through, and the escapes of the text output: whatever
 * the bytes, utf8_sanitize() gives well-formed UTF-8 (by the standard's table, not by its own
 * decoder), leaves valid input as it was and changes invalid input, each byte at most one U+FFFD;
 * text_escape() and name_escape() give well-formed UTF-8 with no control byte. */
#include "../lib/utf8-check.h"
#include "basic/escape.h"
#include "fuzz.h"

static bool no_control(const char *s) {
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || *s == 0x7f)
                        return false;
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        size_t n = strlen(s); /* the output is printed as a C string: a NUL ends it */
        char *out = utf8_sanitize(s), *again = utf8_sanitize(out);
        size_t m = strlen(out);

        fuzz_assert(utf8_well_formed(out, m));
        if (utf8_well_formed(s, n))
                fuzz_assert(strcmp(out, s) == 0);
        else
                fuzz_assert(strcmp(out, s) != 0);
        fuzz_assert(m >= n && m <= 3 * n); /* a byte kept, or one U+FFFD (3 bytes) */
        fuzz_assert(strcmp(again, out) == 0);

        char *text = text_escape(s), *name = name_escape(s);
        fuzz_assert(utf8_well_formed(text, strlen(text)) && no_control(text));
        fuzz_assert(utf8_well_formed(name, strlen(name)) && no_control(name));

        free(name);
        free(text);
        free(again);
        free(out);
        free(s);
        return 0;
}
