/* SPDX-License-Identifier: MIT */
#pragma once

#include <limits.h>

/* Runs fn(arg) in a child process, for what must not change this process's state: its first
 * error, the write-step counter of the fault shim (tests/lib/fault-preload.c, linked into the
 * tests that use it: NUMAPLAN_TEST_KILL_AT_STEP=N counts the steps of the process from the first
 * made with it set, so a child that sets it counts from 1). `env` ("NAME=VALUE", or NULL) is set
 * in the child only. Returns fn's result (an int), CHILD_KILLED when the child was killed with
 * SIGKILL (as the shim's kill does), CHILD_DIED for any other end. */
#define CHILD_KILLED (INT_MIN + 1)
#define CHILD_DIED INT_MIN
int run_child(int (*fn)(void *arg), void *arg, const char *env);
