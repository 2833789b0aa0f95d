/* SPDX-License-Identifier: MIT */
#include "basic/escape.h"
#include "basic/util.h"

/* The length of the UTF-8 sequence at `s` (1-4), or 0 when it is not one (overlong forms,
 * surrogates and code points past U+10FFFF included). */
static size_t utf8_length(const unsigned char *s, unsigned *ret_cp) {
        unsigned c = s[0], cp;
        size_t n;

        if (c < 0x80)
                n = 1, cp = c;
        else if ((c & 0xe0) == 0xc0)
                n = 2, cp = c & 0x1f;
        else if ((c & 0xf0) == 0xe0)
                n = 3, cp = c & 0x0f;
        else if ((c & 0xf8) == 0xf0)
                n = 4, cp = c & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret_cp = cp;
        return n;
}

/* Whether the code point (of a sequence of `n` bytes, 0 when not UTF-8) may not be shown or
 * written as it is: a C0 or C1 control or DEL, or no code point at all. */
static bool unsafe(size_t n, unsigned cp) {
        return n == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/* Printable ASCII, which needs no decoding: nearly every byte of a drop-in, a name or a cell. */
static bool plain(unsigned char c) {
        return c >= 0x20 && c < 0x7f;
}

const char *find_unsafe(const char *s, const char *allowed) {
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                if (plain(*p)) {
                        p++;
                        continue;
                }
                unsigned cp = 0;
                size_t n = utf8_length(p, &cp);
                if (unsafe(n, cp) && !(n == 1 && allowed && strchr(allowed, (char) *p)))
                        return (const char *) p;
                p += n ? n : 1;
        }
        return NULL;
}

static char *escape(const char *s, bool backslash) {
        struct strbuf b = {0};

        if (!s)
                return xstrdup("(null)");
        for (const unsigned char *p = (const unsigned char *) s; *p;) {
                /* A run of plain bytes goes in at once. */
                size_t run = 0;
                while (plain(p[run]) && !(p[run] == '\\' && backslash))
                        run++;
                if (run) {
                        strbuf_append_n(&b, (const char *) p, run);
                        p += run;
                        continue;
                }
                unsigned cp = 0;
                size_t n = utf8_length(p, &cp);
                if (*p == '\\' && backslash)
                        strbuf_append(&b, "\\\\");
                else if (*p == '\n')
                        strbuf_append(&b, "\\n");
                else if (*p == '\t')
                        strbuf_append(&b, "\\t");
                else if (*p == '\r')
                        strbuf_append(&b, "\\r");
                else if (unsafe(n, cp)) {
                        /* not UTF-8, or a C0 or C1 control or DEL: every byte as \xNN */
                        for (size_t i = 0; i < (n ? n : 1); i++) {
                                static const char hex[] = "0123456789abcdef";
                                char x[4] = {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
                                strbuf_append_n(&b, x, sizeof(x));
                        }
                        p += n ? n : 1;
                        continue;
                } else {
                        strbuf_append_n(&b, (const char *) p, n); /* a character beyond ASCII, as it is */
                        p += n;
                        continue;
                }
                p++;
        }
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

char *name_escape(const char *s) {
        return escape(s, true);
}

char *text_escape(const char *s) {
        return escape(s, false);
}

bool utf8_valid(const char *s) {
        const unsigned char *p = (const unsigned char *) (s ? s : ""), *end = p + strlen((const char *) p);

        while (p < end) {
                /* Eight ASCII bytes at a time: a JSON document is mostly its own syntax, and a
                 * plan of 32 replicas is 56 kB of it. */
                uint64_t w;
                if (end - p >= 8 && (memcpy(&w, p, sizeof(w)), (w & UINT64_C(0x8080808080808080)) == 0)) {
                        p += sizeof(w);
                        continue;
                }
                unsigned cp;
                size_t n = utf8_length(p, &cp);
                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}

char *utf8_sanitize(const char *s) {
        struct strbuf b = {0};
        const unsigned char *p = (const unsigned char *) (s ? s : ""), *run = p;

        while (*p) {
                unsigned cp;
                size_t n = utf8_length(p, &cp);
                if (n > 0) {
                        p += n;
                        continue;
                }
                strbuf_append_n(&b, (const char *) run, (size_t) (p - run));
                strbuf_append(&b, "\xef\xbf\xbd"); /* U+FFFD */
                run = ++p;
        }
        if (b.len == 0)
                return xstrdup(s ? s : "");
        strbuf_append(&b, (const char *) run);
        return strbuf_steal(&b);
}
