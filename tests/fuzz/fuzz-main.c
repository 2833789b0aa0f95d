/* SPDX-License-Identifier: MIT */
/* The regression driver (systemd's fuzz-main.c does the same): runs a fuzz target's entry point
 * over files and directories of inputs, so that every input in the checked-in corpus (seeds and
 * every crash found) runs as an ordinary test in every build, with no fuzzer engine. Prints TAP.
 * Usage: fuzz-TARGET FILE|DIR... */

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

static int count;

static int run_file(const char *path) {
        FILE *f = fopen(path, "rb");
        if (!f) {
                printf("not ok %d - %s: cannot open\n", ++count, path);
                return 1;
        }
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
                if (len == cap) {
                        cap = cap ? cap * 2 : 4096;
                        buf = realloc(buf, cap);
                        if (!buf)
                                abort();
                }
                size_t n = fread(buf + len, 1, cap - len, f);
                if (n == 0)
                        break;
                len += n;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        printf("ok %d - %s\n", ++count, path);
        return 0;
}

static int run_path(const char *path) {
        struct stat st;
        if (stat(path, &st) < 0) {
                printf("not ok %d - %s: missing\n", ++count, path);
                return 1;
        }
        if (!S_ISDIR(st.st_mode))
                return run_file(path);
        DIR *d = opendir(path);
        struct dirent *de;
        int failed = 0;
        while (d && (de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char *p = malloc(strlen(path) + strlen(de->d_name) + 2);
                if (!p)
                        abort();
                sprintf(p, "%s/%s", path, de->d_name);
                failed |= run_path(p);
                free(p);
        }
        if (d)
                closedir(d);
        return failed;
}

int main(int argc, char **argv) {
        int failed = 0;
        for (int i = 1; i < argc; i++)
                failed |= run_path(argv[i]);
        printf("1..%d\n", count);
        return failed;
}
