/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <time.h>

#include "host/curl-dl.h"
#include "basic/json-util.h"
#include "basic/util.h"
#include "host/warmup.h"

#define RETRY_MS 250
/* A completion's answer is a few KiB; what is beyond this is not kept (its tokens are then
 * unknown). */
#define ANSWER_MAX (1U << 20)

struct warmup_client {
        CURL *curl;
        struct curl_slist *headers;
        char *url; /* for the messages */
        bool (*stop)(void);
        struct strbuf answer;
        bool keep; /* keep the answer (a timed request reads its tokens) */
        bool cut;  /* the answer was longer than ANSWER_MAX */
};

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static bool stopped(const struct warmup_client *c) {
        return c->stop && c->stop();
}

static void sleep_ms(const struct warmup_client *c, uint64_t ms) {
        struct timespec ts = {.tv_sec = (time_t) (ms / 1000), .tv_nsec = (long) (ms % 1000) * 1000000};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stopped(c))
                ;
}

/* The warm-up's answer is not ours to keep, only its status; a timed request's says its tokens. */
static size_t collect(char *p, size_t size, size_t n, void *user) {
        struct warmup_client *c = user;
        if (c->keep && c->answer.len + size * n <= ANSWER_MAX)
                strbuf_append_n(&c->answer, p, size * n);
        else if (c->keep)
                c->cut = true;
        return size * n;
}

/* libcurl asks between its reads: once stop() says so, the transfer ends. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
        (void) dltotal, (void) dlnow, (void) ultotal, (void) ulnow;
        return stopped(user);
}

int warmup_client_new(const char *url, const char *body, bool (*stop)(void), struct warmup_client **ret) {
        int r = dlopen_libcurl();
        if (r < 0)
                return r;
        sym_curl_global_init(CURL_GLOBAL_DEFAULT);
        CURL *curl = sym_curl_easy_init();
        if (!curl)
                return -ENOMEM;
        struct warmup_client *c = xmalloc0(sizeof(*c));
        *c = (struct warmup_client){.curl = curl, .url = xstrdup(url), .stop = stop};
        c->headers = sym_curl_slist_append(NULL, "Content-Type: application/json");
        sym_curl_easy_setopt(curl, CURLOPT_URL, url);
        sym_curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        sym_curl_easy_setopt(curl, CURLOPT_HTTPHEADER, c->headers);
        sym_curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
        sym_curl_easy_setopt(curl, CURLOPT_WRITEDATA, c);
        sym_curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        sym_curl_easy_setopt(curl, CURLOPT_USERAGENT, "numaplan-verify");
        if (stop) {
                sym_curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
                sym_curl_easy_setopt(curl, CURLOPT_XFERINFODATA, c);
                sym_curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        }
        *ret = c;
        return 0;
}

void warmup_client_free(struct warmup_client *c) {
        if (!c)
                return;
        sym_curl_slist_free_all(c->headers);
        sym_curl_easy_cleanup(c->curl);
        strbuf_done(&c->answer);
        free(c->url);
        free(c);
}

/* What the tries came to, in words. */
static char *wait_detail(const struct warmup_result *w, CURLcode last, const char *url) {
        if (w->ok)
                return xasprintf("HTTP %ld after %.1f s (%u tr%s)", w->status, w->seconds, w->tries,
                                 w->tries == 1 ? "y" : "ies");
        if (last == CURLE_ABORTED_BY_CALLBACK)
                return xasprintf("interrupted after %.1f s", w->seconds);
        if (last == CURLE_OK && w->status == 503)
                return xasprintf("still HTTP 503 (not ready) after %.1f s: warmup-timeout reached", w->seconds);
        if (last == CURLE_OK)
                return xasprintf("HTTP %ld: the server answered, but not with success", w->status);
        if (last == CURLE_COULDNT_CONNECT || w->tries == 0)
                return xasprintf("nothing listening at %s after %.1f s: warmup-timeout reached", url, w->seconds);
        return xasprintf("%s after %.1f s", sym_curl_easy_strerror(last), w->seconds);
}

void warmup_client_wait(struct warmup_client *client, uint64_t timeout_ms, struct warmup_result *ret) {
        uint64_t start = now_ms(), deadline = start + timeout_ms;
        struct warmup_result w = {0};
        CURLcode last = CURLE_OK;
        CURL *c = client->curl;

        client->keep = false;
        CURLcode before = CURLE_OK;
        long before_status = 0;
        for (;;) {
                uint64_t left = deadline > now_ms() ? deadline - now_ms() : 0;
                if (left == 0 || stopped(client))
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
                sleep_ms(client, left < RETRY_MS ? left : RETRY_MS);
        }
        w.seconds = (double) (now_ms() - start) / 1000.0;
        if (!w.ok && stopped(client))
                last = CURLE_ABORTED_BY_CALLBACK;
        w.detail = wait_detail(&w, last, client->url);
        *ret = w;
}

int warmup_run(const char *url, const char *body, uint64_t timeout_ms, struct warmup_result *ret) {
        struct warmup_client *c;
        int r = warmup_client_new(url, body, NULL, &c);
        if (r < 0)
                return r;
        warmup_client_wait(c, timeout_ms, ret);
        warmup_client_free(c);
        return 0;
}

long warmup_answer_tokens(const char *answer) {
        _cleanup_json_ json_object *o = json_tokener_parse(answer);
        json_object *usage, *v = NULL;
        if (!o || !json_object_is_type(o, json_type_object))
                return -1;
        if (json_object_object_get_ex(o, "usage", &usage) && json_object_is_type(usage, json_type_object))
                json_object_object_get_ex(usage, "completion_tokens", &v);
        if (!v)
                json_object_object_get_ex(o, "tokens_predicted", &v);
        if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
                return -1;
        return (long) json_object_get_int64(v);
}

void warmup_client_time(struct warmup_client *client, uint64_t timeout_ms, struct timed_answer *ret) {
        struct timed_answer a = {.tokens = -1};
        struct timespec t0, t1;

        strbuf_done(&client->answer);
        client->keep = true;
        client->cut = false;
        sym_curl_easy_setopt(client->curl, CURLOPT_TIMEOUT_MS, (long) timeout_ms);
        sym_curl_easy_setopt(client->curl, CURLOPT_CONNECTTIMEOUT_MS, (long) (timeout_ms < 5000 ? timeout_ms : 5000));
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CURLcode r = sym_curl_easy_perform(client->curl);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        a.ms = (double) (t1.tv_sec - t0.tv_sec) * 1e3 + (double) (t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (r == CURLE_OK)
                sym_curl_easy_getinfo(client->curl, CURLINFO_RESPONSE_CODE, &a.status);
        a.ok = r == CURLE_OK && a.status >= 200 && a.status < 300;
        if (a.ok && client->answer.s && !client->cut)
                a.tokens = warmup_answer_tokens(client->answer.s);
        else if (r == CURLE_ABORTED_BY_CALLBACK)
                a.error = xstrdup("interrupted");
        else if (r != CURLE_OK)
                a.error = xstrdup(sym_curl_easy_strerror(r));
        else if (!a.ok)
                a.error = xasprintf("HTTP %ld", a.status);
        client->keep = false;
        *ret = a;
}
