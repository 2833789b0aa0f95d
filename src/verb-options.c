/* SPDX-License-Identifier: MIT */
#include <getopt.h>

#include "util.h"
#include "verb-options.h"
#include "verbs.h"

int verb_parse_options(const char *verb, int argc, char **argv, const struct verb_option *opts, int max_args) {
        size_t n = 0;
        while (opts[n].name)
                n++;
        _cleanup_free_ struct option *longs = xmalloc0((n + 1) * sizeof(struct option));
        _cleanup_free_ char *shorts = xmalloc0(2 * n + 1);
        size_t s = 0;

        for (size_t i = 0; i < n; i++) {
                /* getopt hands back the short name, or 256 + the index for a long-only option. */
                int val = opts[i].short_name ? opts[i].short_name : 256 + (int) i;
                longs[i] = (struct option){opts[i].name, opts[i].value ? required_argument : no_argument, NULL, val};
                if (opts[i].short_name) {
                        shorts[s++] = opts[i].short_name;
                        if (opts[i].value)
                                shorts[s++] = ':';
                }
        }

        optind = 0;
        for (int c; (c = getopt_long(argc, argv, shorts, longs, NULL)) >= 0;) {
                size_t i = 0;
                while (i < n && (opts[i].short_name ? opts[i].short_name : 256 + (int) i) != c)
                        i++;
                if (i == n) {
                        verb_usage_error(verb, NULL);
                        return -1;
                }
                if (opts[i].value)
                        *opts[i].value = optarg;
                else
                        *opts[i].flag = true;
        }
        if (max_args >= 0 && argc - optind > max_args) {
                verb_usage_error(verb, "unexpected argument '%s'", argv[optind + max_args]);
                return -1;
        }
        return optind;
}
