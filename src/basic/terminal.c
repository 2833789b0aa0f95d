/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "basic/parse-util.h"
#include "basic/terminal.h"
#include "basic/util.h"

static bool disabled;
/* [0] stdout, [1] stderr: -1 not decided yet. */
static int colors[2] = {-1, -1}, columns[2] = {-1, -1};

static int slot(FILE *f) {
        return f == stderr;
}

void colors_disable(void) {
        disabled = true;
}

/* SYSTEMD_COLORS as systemd reads it: a boolean forces colour on or off, and its modes ("16",
 * "256", "24bit") are on; anything else leaves it to the terminal. */
static int colors_from_env(void) {
        const char *e = getenv("SYSTEMD_COLORS");
        bool b;
        if (!e || !*e)
                return -1;
        if (parse_boolean(e, &b) >= 0)
                return b;
        return streq(e, "16") || streq(e, "256") || streq(e, "24bit") ? 1 : -1;
}

bool colors_enabled(FILE *f) {
        int *c = &colors[slot(f)];
        if (*c < 0) {
                const char *term = getenv("TERM");
                int env = colors_from_env();
                if (disabled || getenv("NO_COLOR"))
                        *c = 0;
                else if (env >= 0)
                        *c = env;
                else
                        *c = isatty(fileno(f)) && !streq_ptr(term, "dumb");
        }
        return *c;
}

const char *color_on(FILE *f, const char *ansi) {
        return colors_enabled(f) ? ansi : "";
}

const char *color_off(FILE *f) {
        return colors_enabled(f) ? ANSI_NORMAL : "";
}

unsigned terminal_columns(FILE *f) {
        int *c = &columns[slot(f)];
        if (*c < 0) {
                struct winsize ws = {0};
                int n = 0;
                const char *e = getenv("COLUMNS");
                *c = 0;
                if (e && parse_int(e, &n) >= 0 && n > 0)
                        *c = n;
                else if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) >= 0 && ws.ws_col > 0)
                        *c = ws.ws_col;
        }
        return (unsigned) *c;
}

/* Characters on screen of the first n bytes of UTF-8 text. */
static size_t chars(const char *s, size_t n) {
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
                w += ((unsigned char) s[i] & 0xc0) != 0x80;
        return w;
}

/* The bytes of the longest run of whole words from `s` that fits `room` characters; a word
 * longer than a line goes whole on its own. */
static size_t fit(const char *s, size_t room) {
        size_t end = 0, w = 0;
        for (size_t i = 0;; i++) {
                if (s[i] == ' ' || s[i] == '\0') {
                        if (w > room)
                                return end > 0 ? end : i;
                        end = i;
                        if (s[i] == '\0')
                                return end;
                }
                w += ((unsigned char) s[i] & 0xc0) != 0x80;
        }
}

/* One write a message: stderr is unbuffered, and its reader may take it line by line. */
void print_wrapped(FILE *f, const char *head, size_t head_width, const char *text, const char *indent) {
        unsigned width = terminal_columns(f);
        size_t used = head_width, indent_width = chars(indent, strlen(indent));
        struct strbuf b = {0};

        strbuf_printf(&b, "%s", head);
        if (width == 0 || used + chars(text, strlen(text)) <= width)
                strbuf_printf(&b, "%s\n", text);
        else
                for (const char *s = text; *s;) {
                        size_t room = width > used + 10 ? width - used : 10, n = fit(s, room);
                        strbuf_printf(&b, "%.*s\n", (int) n, s);
                        s += n;
                        while (*s == ' ')
                                s++;
                        if (*s)
                                strbuf_printf(&b, "%s", indent);
                        used = indent_width;
                }
        fputs(b.s, f);
        strbuf_done(&b);
}
