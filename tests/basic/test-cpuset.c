/* SPDX-License-Identifier: MIT */
#include "basic/cpuset.h"
#include "tap.h"
#include "basic/util.h"

static void check_list(const char *in, const char *want) {
        struct cpuset s;
        int r = cpuset_parse_list(in, &s);
        if (!want) {
                ok(r < 0 && cpuset_is_empty(&s) && s.words == 0, "'%s' is rejected, leaving the set empty", shown(in));
                return;
        }
        if (!ok(r == 0, "'%s' parses", shown(in)))
                return;
        _cleanup_free_ char *f = cpuset_format(&s);
        is_str(f, want, "'%s' formats as '%s'", shown(in), want);
}

static void check_mask(const char *in, const char *want) {
        struct cpuset s;
        int r = cpuset_parse_mask(in, &s);
        if (!want) {
                ok(r < 0, "mask '%s' is rejected", shown(in));
                return;
        }
        if (!ok(r == 0, "mask '%s' parses", shown(in)))
                return;
        _cleanup_free_ char *f = cpuset_format(&s);
        is_str(f, want, "mask '%s' is '%s'", shown(in), want);
}

int main(void) {
        /* Lists as the kernel writes them, and what it never writes. */
        check_list("0-3,8-11\n", "0-3,8-11");
        check_list("5", "5");
        check_list("0,1,2,3", "0-3");
        check_list("3-3", "3");
        check_list("", "");
        check_list("\n", "");
        check_list("8191", "8191");
        check_list("0-15,32-47,16-31", "0-47");
        check_list("8192", NULL);
        check_list("3-1", NULL);
        check_list("1,,2", NULL);
        check_list("1,", NULL);
        check_list(",1", NULL);
        check_list("-1", NULL);
        check_list("a", NULL);
        check_list(" 1", NULL);
        check_list("1 2", NULL);
        check_list("0-", NULL);
        check_list("1-2-3", NULL);

        /* Masks: 32-bit groups, most significant first, short leading group allowed. */
        check_mask("00000000,0000ffff\n", "0-15");
        check_mask("ff", "0-7");
        check_mask("1,00000000", "32");
        check_mask("80000000,00000001", "0,63");
        check_mask("0", "");
        check_mask("", NULL);
        check_mask("fg", NULL);
        check_mask("1,,0", NULL);
        check_mask("123456789", NULL);

        /* Set algebra used by the planner and the node fallback. */
        struct cpuset a, b, c;
        cpuset_parse_list("0-7", &a);
        cpuset_parse_list("2-3", &b);
        ok(cpuset_is_subset(&b, &a), "2-3 is inside 0-7");
        ok(!cpuset_is_subset(&a, &b), "0-7 is not inside 2-3");
        cpuset_clear(&c);
        ok(cpuset_is_subset(&c, &b), "the empty set is inside every set");
        ok(cpuset_intersects(&a, &b), "0-7 and 2-3 intersect");
        is_int(cpuset_count(&a), 8, "0-7 has 8 members");
        c = a;
        cpuset_andnot(&c, &b);
        _cleanup_free_ char *d = cpuset_format(&c);
        is_str(d, "0-1,4-7", "0-7 minus 2-3");
        is_int(cpuset_next(&c, 2), 4, "next member from 2 is 4");
        is_int(cpuset_next(&c, 8), -1, "nothing after 7");
        cpuset_parse_list("64,8191", &c);
        is_int(cpuset_next(&c, 65), 8191, "next crosses words");

        /* Sets of different widths: the operations look at the words in use, and what a set
         * loses past its low words stays lost. */
        struct cpuset wide, narrow;
        cpuset_parse_list("3,8000", &wide);
        cpuset_parse_list("3", &narrow);
        ok(!cpuset_equal(&wide, &narrow) && !cpuset_equal(&narrow, &wide), "3,8000 is not 3, either way round");
        ok(cpuset_is_subset(&narrow, &wide) && !cpuset_is_subset(&wide, &narrow),
           "3 is inside 3,8000, not the reverse");
        c = wide;
        cpuset_and(&c, &narrow);
        ok(cpuset_equal(&c, &narrow) && cpuset_equal(&narrow, &c), "3,8000 and 3 is 3");
        is_int(cpuset_next(&c, 4), -1, "nothing left past 3 after and");
        cpuset_set(&c, 8100);
        _cleanup_free_ char *g = cpuset_format(&c);
        is_str(g, "3,8100", "a bit set after and is the only high one (8000 did not come back)");
        c = wide;
        cpuset_parse_list("8000", &b);
        cpuset_andnot(&c, &b);
        ok(cpuset_equal(&c, &narrow), "3,8000 less 8000 equals 3, though it spans more words");
        is_int(cpuset_count(&c), 1, "and counts one");
        c = narrow;
        cpuset_or(&c, &wide);
        ok(cpuset_equal(&c, &wide) && cpuset_isset(&c, 8000), "3 or 3,8000 is 3,8000");
        ok(!cpuset_intersects(&narrow, &b) && cpuset_intersects(&wide, &b), "intersection looks at the high words");
        cpuset_parse_list("0-8191", &c);
        is_int(cpuset_count(&c), 8192, "every CPU counted");

        /* systemd's D-Bus byte arrays: bit n in byte n/8. */
        uint8_t bytes[] = {0x0c, 0x00, 0x01};
        ok(cpuset_from_bytes(bytes, sizeof(bytes), &c) == 0, "byte array decodes");
        _cleanup_free_ char *e = cpuset_format(&c);
        is_str(e, "2-3,16", "bytes 0c 00 01 are CPUs 2-3,16");
        uint8_t out[8];
        is_int(cpuset_to_bytes(&c, out, sizeof(out)), 3, "encodes into 3 bytes");
        ok(memcmp(out, bytes, 3) == 0, "encoding round-trips");
        uint8_t empty[1] = {0};
        ok(cpuset_from_bytes(empty, 0, &c) == 0 && cpuset_is_empty(&c), "an empty array is the empty set");
        uint8_t big[CPUSET_MAX / 8 + 1] = {0};
        big[CPUSET_MAX / 8] = 1;
        ok(cpuset_from_bytes(big, sizeof(big), &c) == -ERANGE, "a bit beyond CPUSET_MAX is an error");

        return done_testing();
}
