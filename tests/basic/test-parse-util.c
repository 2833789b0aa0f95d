/* SPDX-License-Identifier: MIT */
/* The values an admin writes in numaplan.conf: sizes, percents, durations and booleans, each
 * either exact or refused with the error the header names; and the formats messages print them
 * in. */

#include "basic/parse-util.h"
#include "basic/util.h"
#include "tap.h"

static void size_is(const char *in, uint64_t want) {
        uint64_t v = 0;
        int r = parse_size(in, &v);
        if (!ok(r == 0 && v == want, "size '%s' is %" PRIu64, in, want))
                printf("#   got r=%d, %" PRIu64 "\n", r, v);
}

static void size_fails(const char *in, int want) {
        uint64_t v = 12345;
        int r = parse_size(in, &v);
        if (!ok(r == want && v == 12345, "size '%s' is refused with %s, the output untouched", in,
                want == -ERANGE ? "-ERANGE" : "-EINVAL"))
                printf("#   got r=%d, %" PRIu64 "\n", r, v);
}

static void percent_is(const char *in, unsigned want) {
        unsigned v = 0;
        int r = parse_percent(in, &v);
        if (!ok(r == 0 && v == want, "percent '%s' is %u basis points", in, want))
                printf("#   got r=%d, %u\n", r, v);
}

static void percent_fails(const char *in, int want) {
        unsigned v = 777;
        int r = parse_percent(in, &v);
        if (!ok(r == want && v == 777, "percent '%s' is refused with %s", in, want == -ERANGE ? "-ERANGE" : "-EINVAL"))
                printf("#   got r=%d, %u\n", r, v);
}

static void duration_is(const char *in, uint64_t want) {
        uint64_t v = 0;
        int r = parse_duration_ms(in, &v);
        if (!ok(r == 0 && v == want, "duration '%s' is %" PRIu64 " ms", in, want))
                printf("#   got r=%d, %" PRIu64 "\n", r, v);
}

static void duration_fails(const char *in, int want) {
        uint64_t v = 777;
        int r = parse_duration_ms(in, &v);
        if (!ok(r == want && v == 777, "duration '%s' is refused with %s", in, want == -ERANGE ? "-ERANGE" : "-EINVAL"))
                printf("#   got r=%d, %" PRIu64 "\n", r, v);
}

static void sizes(void) {
        size_is("0", 0);
        size_is("4096", 4096);
        size_is("1K", 1024);
        size_is("1k", 1024);
        size_is("48G", UINT64_C(51539607552));
        size_is("48g", UINT64_C(51539607552));
        size_is("48GiB", UINT64_C(51539607552));
        size_is("3MiB", 3 << 20);
        size_is("2T", UINT64_C(2) << 40);
        size_is("2TiB", UINT64_C(2) << 40);
        /* The largest sizes there are: 16 EiB - 1 bytes, and 16 EiB - 1 TiB. */
        size_is("18446744073709551615", UINT64_MAX);
        size_is("16777215T", UINT64_C(16777215) << 40);

        /* Decimal units would be another number: refused, not read as binary. */
        size_fails("48GB", -EINVAL);
        size_fails("48gb", -EINVAL);
        size_fails("48Gi", -EINVAL);
        size_fails("48Gib", -EINVAL);
        size_fails("48P", -EINVAL);
        size_fails("48 G", -EINVAL);
        size_fails("1.5G", -EINVAL);
        size_fails("-1", -EINVAL);
        size_fails("+1", -EINVAL);
        size_fails("", -EINVAL);
        size_fails("G", -EINVAL);
        size_fails("0x10", -EINVAL);
        /* One more than there is: in the digits, and by a suffix. */
        size_fails("18446744073709551616", -ERANGE);
        size_fails("99999999999999999999", -ERANGE);
        size_fails("16777216T", -ERANGE);
        size_fails("17179869184G", -ERANGE);
}

static void percents(void) {
        percent_is("0%", 0);
        percent_is("10%", 1000);
        percent_is("95%", 9500);
        percent_is("99.5%", 9950);
        percent_is("99.95%", 9995);
        percent_is("100%", 10000);
        percent_is("100.00%", 10000);

        percent_fails("100.01%", -ERANGE);
        percent_fails("101%", -ERANGE);
        percent_fails("99.999%", -EINVAL); /* finer than a basis point: not rounded */
        percent_fails("95", -EINVAL);
        percent_fails("95 %", -EINVAL);
        percent_fails("95%%", -EINVAL);
        percent_fails("-5%", -EINVAL);
        percent_fails("%", -EINVAL);
        percent_fails("", -EINVAL);
        percent_fails("1..5%", -EINVAL);
}

static void durations(void) {
        duration_is("120", 120000);
        duration_is("120s", 120000);
        duration_is("2m", 120000);
        duration_is("2min", 120000);
        duration_is("500ms", 500);
        duration_is("0", 0);

        duration_fails("1h", -EINVAL);
        duration_fails("1.5s", -EINVAL);
        duration_fails("5 s", -EINVAL);
        duration_fails("s", -EINVAL);
        duration_fails("", -EINVAL);
        duration_fails("-1s", -EINVAL);
        duration_fails("2M", -EINVAL);
        /* Seconds and minutes scale into milliseconds: past 2^64 ms is out of range. */
        duration_fails("18446744073709552s", -ERANGE);
        duration_fails("307445734561826m", -ERANGE);
        duration_is("18446744073709551ms", UINT64_C(18446744073709551));
}

static void booleans(void) {
        static const char *const yes[] = {"yes", "true", "on", "1", "YES", "True", "On"};
        static const char *const no[] = {"no", "false", "off", "0", "NO", "False", "OFF"};
        static const char *const neither[] = {"", "y", "n", "2", "yes ", " no", "enable", "none"};

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                bool b = false;
                ok(parse_boolean(yes[i], &b) == 0 && b, "'%s' is true", yes[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(no); i++) {
                bool b = true;
                ok(parse_boolean(no[i], &b) == 0 && !b, "'%s' is false", no[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(neither); i++) {
                bool b = true;
                ok(parse_boolean(neither[i], &b) == -EINVAL && b, "'%s' is neither", neither[i]);
        }
}

static void formats(void) {
        static const struct {
                unsigned bp;
                const char *want;
        } percent[] = {{0, "0%"},        {1000, "10%"}, {9500, "95%"},   {9950, "99.5%"},
                       {9995, "99.95%"}, {5, "0.05%"},  {10000, "100%"}, {1, "0.01%"}};
        char buf[16];

        for (size_t i = 0; i < ELEMENTSOF(percent); i++) {
                format_percent(buf, sizeof(buf), percent[i].bp);
                is_str(buf, percent[i].want, "%u basis points print as the header says", percent[i].bp);
        }
        /* What parse_percent() reads, format_percent() writes back. */
        bool round_trip = true;
        for (unsigned bp = 0; bp <= 10000; bp++) {
                unsigned back = ~0u;
                format_percent(buf, sizeof(buf), bp);
                round_trip = round_trip && parse_percent(buf, &back) == 0 && back == bp;
        }
        ok(round_trip, "every basis point from 0 to 100%% formats into what parses back");

        static const struct {
                uint64_t part, whole;
                const char *want;
        } share[] = {
                {0, 100, "0.0%"},
                {1, 2, "50.0%"},
                {9996, 10000, "99.9%"}, /* 99.96%: rounded down, not up to 100.0% */
                {9999, 10000, "99.9%"},
                {10000, 10000, "100.0%"},
                {1, 3, "33.3%"},
                {2, 3, "66.6%"},
                {1, 1001, "0.0%"},
                {5, 0, "0.0%"}, /* of nothing */
                {UINT64_MAX, UINT64_MAX, "100.0%"},
                {UINT64_MAX - 1, UINT64_MAX, "99.9%"},
        };
        for (size_t i = 0; i < ELEMENTSOF(share); i++) {
                _cleanup_free_ char *s = format_share(share[i].part, share[i].whole);
                is_str(s, share[i].want, "%" PRIu64 " of %" PRIu64 " is %s", share[i].part, share[i].whole,
                       share[i].want);
        }
}

int main(void) {
        sizes();
        percents();
        durations();
        booleans();
        formats();
        return done_testing();
}
