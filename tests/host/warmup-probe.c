/* SPDX-License-Identifier: MIT */
/* verify's warm-up request on its own, for tests/host/warmup.sh: runs warmup_run() and prints
 * what it found as one line: "ok=1 status=200 tries=3 seconds=1.2 detail=...". With a count N,
 * N timed requests as bench sends them, a line each: "ok=1 status=200 ms=1.2 tokens=16 error=".
 * Usage: warmup-probe URL TIMEOUT_MS [N] */

#include <stdlib.h>

#include "basic/log.h"
#include "basic/util.h"
#include "host/warmup.h"

int main(int argc, char **argv) {
        struct warmup_result w = {0};

        if (argc == 4) {
                struct warmup_client *c;
                if (warmup_client_new(argv[1], "{\"prompt\":\"hi\"}", NULL, &c) < 0)
                        return 3;
                for (unsigned long i = strtoul(argv[3], NULL, 10); i > 0; i--) {
                        struct timed_answer a;
                        warmup_client_time(c, strtoull(argv[2], NULL, 10), &a);
                        printf("ok=%d status=%ld ms=%.1f tokens=%ld error=%s\n", a.ok, a.status, a.ms, a.tokens,
                               strempty(a.error));
                        free(a.error);
                }
                warmup_client_free(c);
                return 0;
        }
        if (argc != 3)
                return 2;
        if (warmup_run(argv[1], "{\"prompt\":\"warm up\"}", strtoull(argv[2], NULL, 10), &w) < 0)
                return 3;
        printf("ok=%d status=%ld tries=%u seconds=%.2f detail=%s\n", w.ok, w.status, w.tries, w.seconds, w.detail);
        free(w.detail);
        return 0;
}
