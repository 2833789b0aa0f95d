/* SPDX-License-Identifier: MIT */
#pragma once

#include "basic/util.h"

/* A unified diff (3 lines of context) of two texts, `diff -u` style, appended to `out`. A NULL
 * text is an absent file (/dev/null). Nothing is appended when they are equal. Drop-ins are a
 * dozen lines, so a plain longest-common-subsequence table is fast enough. */
void diff_unified(struct strbuf *out, const char *old_name, const char *old, const char *new_name, const char *new);
