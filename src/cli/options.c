/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdarg.h>

#include "basic/log.h"
#include "basic/util.h"
#include "cli/verbs.h"

/* "  -c, --config FILE   read FILE ...": the text starts at column 22, or two blanks after a
 * longer name; its further lines at column 22. */
#define HELP_COLUMN 22

void verb_print_help(const struct verb *v) {
        printf("Usage: %s\n\n%s\n\n", v->usage, v->description);
        for (const struct verb_option *o = v->options; o->name; o++) {
                char left[64];
                int n = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", o->short_name ? '-' : ' ',
                                 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
                                 o->arg ? " " : "", o->arg ? o->arg : "");
                printf("%s%*s", left, n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
                for (const char *line = o->help; *line;) {
                        size_t len = strcspn(line, "\n");
                        printf("%.*s\n", (int) len, line);
                        line += len;
                        if (*line)
                                printf("%*s", HELP_COLUMN, "");
                        line += *line == '\n';
                }
        }
        if (v->epilogue)
                printf("%s%s\n", v->epilogue_tight ? "" : "\n", v->epilogue);
}

int verb_usage_error(const char *verb, const char *fmt, ...) {
        va_list ap;

        if (fmt) {
                va_start(ap, fmt);
                _cleanup_free_ char *msg = xvasprintf(fmt, ap);
                va_end(ap);
                fprintf(stderr, "numaplan %s: %s\n", verb, msg);
                log_remember_error("numaplan %s: %s", verb, msg);
        }
        fprintf(stderr, "Try 'numaplan %s --help'.\n", verb);
        return EXIT_USAGE;
}

const struct verb_option *verb_find_option(const struct verb *v, const char *arg) {
        const char *name = startswith(arg, "--");

        for (const struct verb_option *o = v->options; o->name; o++) {
                if (name) {
                        size_t n = strcspn(name, "=");
                        if (strlen(o->name) == n && strncmp(o->name, name, n) == 0)
                                return o;
                } else if (arg[0] == '-' && o->short_name && arg[1] == o->short_name)
                        return o;
        }
        return NULL;
}

/* The word of the long option getopt_long() just returned: the last argument it took, or the
 * one before, when that one was its value. */
static const char *long_word(char **argv) {
        return optarg && argv[optind - 1] == optarg && optind >= 2 && startswith(argv[optind - 2], "--")
                       ? argv[optind - 2]
                       : argv[optind - 1];
}

/* getopt_long() takes "--jso" for --json, as long as no other option starts so: the next option
 * added would break what worked. Exact names only, as for the commands. */
static bool long_name_exact(char **argv, const char *name) {
        const char *word = long_word(argv) + 2;
        return strlen(name) == strcspn(word, "=") && strncmp(word, name, strlen(name)) == 0;
}

int verb_parse_options(const struct verb *v, int argc, char **argv, void *args) {
        size_t n = 0;
        while (v->options[n].name)
                n++;
        _cleanup_free_ struct option *longs = xmalloc0((n + 1) * sizeof(struct option));
        _cleanup_free_ char *shorts = xmalloc0(2 * n + 2);
        size_t s = 0;

        /* A leading ':' makes getopt report a missing value as ':', and with opterr = 0 we word the
         * errors ourselves. */
        shorts[s++] = ':';
        for (size_t i = 0; i < n; i++) {
                const struct verb_option *o = &v->options[i];
                /* getopt hands back the short name, or 256 + the index for a long-only option. */
                int val = o->short_name ? o->short_name : 256 + (int) i;
                longs[i] = (struct option){o->name, o->has_value ? required_argument : no_argument, NULL, val};
                if (o->short_name) {
                        shorts[s++] = o->short_name;
                        if (o->has_value)
                                shorts[s++] = ':';
                }
        }

        optind = 0;
        opterr = 0;
        for (int c, li = -1; (c = getopt_long(argc, argv, shorts, longs, &li)) >= 0; li = -1) {
                if (c == '?' || c == ':' || (li >= 0 && !long_name_exact(argv, longs[li].name))) {
                        /* optopt holds a short option's letter; a long option is in argv. */
                        char letter[3] = {'-', (char) optopt, 0};
                        const char *name = c != '?' && c != ':'         ? long_word(argv)
                                           : optopt > 0 && optopt < 256 ? letter
                                                                        : argv[optind - 1];
                        _cleanup_free_ char *hint = c == ':' ? NULL : verb_nearest_option(v, name);
                        const struct verb_option *o = strchr(name, '=') ? verb_find_option(v, name) : NULL;
                        if (c == ':')
                                verb_usage_error(v->name, "option '%s' needs a value", name);
                        else if (o && !o->has_value)
                                verb_usage_error(v->name, "option '--%s' takes no value", o->name);
                        else
                                verb_usage_error(v->name, "unknown option '%s'%s", name, hint);
                        return -1;
                }
                size_t i = 0;
                while (i < n && (v->options[i].short_name ? v->options[i].short_name : 256 + (int) i) != c)
                        i++;
                if (i == n)
                        return -1;
                char *dst = (char *) args + v->options[i].offset;
                if (v->options[i].has_value)
                        *(const char **) dst = optarg;
                else
                        *(bool *) dst = true;
        }
        if (v->max_args >= 0 && argc - optind > v->max_args) {
                verb_usage_error(v->name, "unexpected argument '%s'", argv[optind + v->max_args]);
                return -1;
        }
        return optind;
}

/* The global options dispatch takes, by name, for the nearest to a misspelt one. */
static const char *const global_options[] = {"--sysfs-root", "--unit-dir", "--runtime-dir", "--generator-dir",
                                             "--quiet",      "--verbose",  "--help",        "--version",
                                             "--no-pager",   "--no-color"};

char *verb_nearest_option(const struct verb *v, const char *word) {
        size_t n = ELEMENTSOF(global_options);
        for (size_t i = 0; i < n_verbs; i++)
                for (const struct verb_option *o = verbs[i]->options; o && o->name; o++)
                        n++;
        const char **names = xmalloc0(n * sizeof(char *));
        char **owned = xmalloc0(n * sizeof(char *));
        size_t k = 0, m = 0;
        for (size_t i = 0; i < ELEMENTSOF(global_options); i++)
                names[k++] = global_options[i];
        for (size_t i = 0; i < n_verbs; i++)
                for (const struct verb_option *o = verbs[i]->options; o && o->name && (!v || v == verbs[i]); o++)
                        names[k++] = owned[m++] = xasprintf("--%s", o->name);
        /* "--jsno=x": the name is what is misspelt. */
        _cleanup_free_ char *name = xstrndup(word, strcspn(word, "="));
        char *hint = suggest(name, names, k);
        strv_free_n(owned, m);
        free(names);
        return hint;
}
