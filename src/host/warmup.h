/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/observed.h"

/* POSTs `body` to `url` until a 2xx answer. "Not ready" (connection refused, HTTP 503) is
 * retried; any other answer or failure ends it at once. The whole never outlasts timeout_ms. */
int warmup_run(const char *url, const char *body, uint64_t timeout_ms, struct warmup_result *ret);

/* The same endpoint asked again and again (numaplan bench): one libcurl handle, its connection
 * reused where the server keeps it. With `stop`, a request or a wait ends early, as a timeout
 * would, once stop() says so (a signal came). -errno: no libcurl, no memory. */
struct warmup_client;
int warmup_client_new(const char *url, const char *body, bool (*stop)(void), struct warmup_client **ret);
void warmup_client_free(struct warmup_client *c);
/* warmup_run() on the client's endpoint. */
void warmup_client_wait(struct warmup_client *c, uint64_t timeout_ms, struct warmup_result *ret);

/* One request, timed from its start to the answer's last byte. */
struct timed_answer {
        bool ok;     /* a 2xx answer */
        long status; /* its HTTP status, 0 without one */
        double ms;   /* how long it took */
        long tokens; /* what it says it produced (OpenAI's usage.completion_tokens, llama.cpp's
                       * tokens_predicted), -1 when it says neither */
        char *error; /* why it is not ok, in words; NULL when it is */
};
void warmup_client_time(struct warmup_client *c, uint64_t timeout_ms, struct timed_answer *ret);
/* How many tokens a completion's JSON answer says it produced, as above; -1 when it does not. */
long warmup_answer_tokens(const char *answer);
