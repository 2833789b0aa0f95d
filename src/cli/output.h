/* SPDX-License-Identifier: MIT */
#pragma once

/* What several verbs print alike: the run's warnings. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/warnings.h"

/* [{"code", "severity", "message", and "node", "pci" or "replica" when about one}] */
json_object *json_warnings(const struct warnings *w);
/* Every warning on stdout, after `heading` when there is one. */
void print_warnings(const struct warnings *w, const char *heading, const char *indent);
/* Warnings (not notices) on stderr: for verbs whose stdout is their report. */
void log_warnings(const struct warnings *w);
