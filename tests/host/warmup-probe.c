/* SPDX-License-Identifier: MIT */
/* verify's warm-up request on its own, for tests/host/warmup.sh: runs warmup_run() and prints
 * what it found as one line: "ok=1 status=200 tries=3 seconds=1.2 detail=...".
 * Usage: warmup-probe URL TIMEOUT_MS */

#include <stdlib.h>

#include "basic/log.h"
#include "basic/util.h"
#include "host/warmup.h"

int main(int argc, char **argv) {
        struct warmup_result w = {0};

        if (argc != 3)
                return 2;
        if (warmup_run(argv[1], "{\"prompt\":\"warm up\"}", strtoull(argv[2], NULL, 10), &w) < 0)
                return 3;
        printf("ok=%d status=%ld tries=%u seconds=%.2f detail=%s\n", w.ok, w.status, w.tries, w.seconds, w.detail);
        free(w.detail);
        return 0;
}
