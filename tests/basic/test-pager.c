/* SPDX-License-Identifier: MIT */
/* The pager's pure half, as systemctl has it: $PAGER split into words with the shell's quotes
 * and no shell, and secure mode from $SYSTEMD_PAGERSECURE and whether privileges were lent. The
 * terminal's half (which pager runs, and what it refuses) is tests/cli/terminal.sh's. */

#include "basic/pager.h"
#include "basic/util.h"
#include "tap.h"

/* `want`: the words joined by '|', "" for none. */
static void words_are(const char *in, const char *want) {
        _cleanup_strv_free_ char **v = pager_words(in);
        _cleanup_strbuf_ struct strbuf b = {0};

        for (char **w = v; *w; w++) {
                if (w != v)
                        strbuf_putc(&b, '|');
                strbuf_append(&b, *w);
        }
        _cleanup_free_ char *got = strbuf_steal(&b);
        is_str(got, want, "'%s' is split into %s", shown(in), *want ? want : "no words");
}

static void words(void) {
        words_are("", "");
        words_are(" \t\n ", "");
        words_are("less", "less");
        words_are("  less  -R\t-S ", "less|-R|-S");
        words_are("head -n 3", "head|-n|3");
        words_are("'/opt/my pager/bin/p' --x 'a b'", "/opt/my pager/bin/p|--x|a b");
        words_are("\"a b\" \"c\\\"d\" e\\ f", "a b|c\"d|e f");
        words_are("'it''s' x\"y\"z", "its|xyz");
        words_are("'' x", "|x");
        words_are("'a\\b'", "a\\b");
        words_are("'unclosed quote", "unclosed quote");
        words_are("trailing\\", "trailing\\");
        words_are("$HOME/bin/p *", "$HOME/bin/p|*");
}

static void secure_is(const char *env, bool lent, bool want) {
        bool got = pager_secure_mode(env, lent);
        if (!ok(got == want, "SYSTEMD_PAGERSECURE=%s%s: secure mode %s", env ? env : "(unset)",
                lent ? " with lent privileges" : "", want ? "on" : "off"))
                printf("#   got secure=%d\n", got);
}

static void secure_modes(void) {
        secure_is(NULL, false, false);
        secure_is(NULL, true, true);
        secure_is("0", true, false);
        secure_is("no", true, false);
        secure_is("false", true, false);
        secure_is("n", true, false);
        secure_is("OFF", true, false);
        secure_is("1", false, true);
        secure_is("yes", false, true);
        secure_is("t", false, true);
        secure_is("Y", false, true);
        /* Not a boolean: on, as the safe side. */
        secure_is("", false, true);
        secure_is("maybe", false, true);
        secure_is("2", true, true);
}

int main(void) {
        words();
        secure_modes();
        return done_testing();
}
