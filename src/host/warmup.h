/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "core/observed.h"

/* POSTs `body` to `url` until a 2xx answer. "Not ready" (connection refused, HTTP 503) is
 * retried; any other answer or failure ends it at once. The whole never outlasts timeout_ms. */
int warmup_run(const char *url, const char *body, uint64_t timeout_ms, struct warmup_result *ret);
