/* SPDX-License-Identifier: MIT */
/* Prints metrics_format() of the sample verdict (metrics-sample.h), for promtool check metrics. */

#include <stdio.h>

#include "metrics-sample.h"

int main(void) {
        struct metrics_sample s;
        struct metrics_run run = {.success = true, .timestamp_s = 1700000000.25, .duration_s = 1.5};

        metrics_sample_init(&s);
        run.host = &s.host, run.warnings = &s.warnings;
        _cleanup_free_ char *text = metrics_format(&run, s.units, 3);
        fputs(text, stdout);
        metrics_sample_done(&s);
        return 0;
}
