/* SPDX-License-Identifier: MIT */
#include <time.h>

#include "host/curl-dl.h"
#include "basic/util.h"
#include "host/warmup.h"

#define RETRY_MS 250

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static void sleep_ms(uint64_t ms) {
        struct timespec ts = {.tv_sec = (time_t) (ms / 1000), .tv_nsec = (long) (ms % 1000) * 1000000};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* The server's answer is not ours to keep; only its status matters. */
static size_t discard(char *p, size_t size, size_t n, void *user) {
        (void) p;
        (void) user;
        return size * n;
}

int warmup_run(const char *url, const char *body, uint64_t timeout_ms, struct warmup_result *ret) {
        uint64_t start = now_ms(), deadline = start + timeout_ms;
        struct warmup_result w = {0};
        CURLcode last = CURLE_OK;

        int r = dlopen_libcurl();
        if (r < 0)
                return r;
        sym_curl_global_init(CURL_GLOBAL_DEFAULT);
        CURL *c = sym_curl_easy_init();
        if (!c)
                return -ENOMEM;
        struct curl_slist *headers = sym_curl_slist_append(NULL, "Content-Type: application/json");
        sym_curl_easy_setopt(c, CURLOPT_URL, url);
        sym_curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        sym_curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        sym_curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
        sym_curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        sym_curl_easy_setopt(c, CURLOPT_USERAGENT, "numaplan-verify");

        CURLcode before = CURLE_OK;
        long before_status = 0;
        for (;;) {
                uint64_t left = deadline > now_ms() ? deadline - now_ms() : 0;
                if (left == 0)
                        break;
                sym_curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) left);
                sym_curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long) (left < 5000 ? left : 5000));
                w.tries++;
                last = sym_curl_easy_perform(c);
                w.status = 0;
                if (last == CURLE_OK)
                        sym_curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &w.status);
                if (last == CURLE_OK && w.status >= 200 && w.status < 300) {
                        w.ok = true;
                        break;
                }
                bool not_ready = (last == CURLE_OK && w.status == 503) || last == CURLE_COULDNT_CONNECT;
                if (!not_ready) {
                        /* A try the deadline cut short says no more than the one before it. */
                        if (last == CURLE_OPERATION_TIMEDOUT &&
                            (before == CURLE_COULDNT_CONNECT || before_status == 503)) {
                                last = before;
                                w.status = before_status;
                        }
                        break;
                }
                before = last;
                before_status = w.status;
                left = deadline > now_ms() ? deadline - now_ms() : 0;
                sleep_ms(left < RETRY_MS ? left : RETRY_MS);
        }
        w.seconds = (double) (now_ms() - start) / 1000.0;

        if (w.ok)
                w.detail = xasprintf("HTTP %ld after %.1f s (%u tr%s)", w.status, w.seconds, w.tries,
                                     w.tries == 1 ? "y" : "ies");
        else if (last == CURLE_OK && w.status == 503)
                w.detail = xasprintf("still HTTP 503 (not ready) after %.1f s: warmup-timeout reached", w.seconds);
        else if (last == CURLE_OK)
                w.detail = xasprintf("HTTP %ld: the server answered, but not with success", w.status);
        else if (last == CURLE_COULDNT_CONNECT || w.tries == 0)
                w.detail = xasprintf("nothing listening at %s after %.1f s: warmup-timeout reached", url, w.seconds);
        else
                w.detail = xasprintf("%s after %.1f s", sym_curl_easy_strerror(last), w.seconds);

        sym_curl_slist_free_all(headers);
        sym_curl_easy_cleanup(c);
        *ret = w;
        return 0;
}
