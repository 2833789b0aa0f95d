/* SPDX-License-Identifier: MIT */
#pragma once

#include <curl/curl.h>

#include "basic/dlopen-util.h"

#define LIBCURL_SYMBOLS(X) \
        X(curl_global_init) \
        X(curl_easy_init) \
        X(curl_easy_setopt) \
        X(curl_easy_perform) \
        X(curl_easy_getinfo) \
        X(curl_easy_cleanup) \
        X(curl_easy_strerror) \
        X(curl_slist_append) \
        X(curl_slist_free_all)

LIBCURL_SYMBOLS(DLSYM_PROTOTYPE)

int dlopen_libcurl(void);
