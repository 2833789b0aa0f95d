/* SPDX-License-Identifier: MIT */
/* verify's metrics: the exposition format's rules (one HELP and TYPE per family, before its
 * samples, families never split, label values escaped and in UTF-8), the values of a sample verdict and of its
 * host, the run alone when there was no verdict, and every metric documented in numaplan(8),
 * METRICS.
 * promtool's own check of the same text is tests/prometheus/run.sh's.
 * Usage: test-metrics FIXTURES_DIR SOURCE_ROOT */

#include "basic/util.h"
#include "core/verify-metrics.h"
#include "metrics-sample.h"
#include "tap.h"
#include "tmproot.h"

static bool has_line(const char *text, const char *line) {
        size_t len = strlen(line);
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strncmp(p, line, len) == 0 && (p[len] == '\n' || p[len] == 0))
                        return true;
        return false;
}

static size_t count_prefix(const char *text, const char *prefix) {
        size_t n = 0, len = strlen(prefix);
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                n += strncmp(p, prefix, len) == 0;
        return n;
}

/* The format's structure: returns NULL when it holds, else what breaks it. */
static char *structure_error(const char *text) {
        char family[128] = "", seen[4096] = " ";
        bool help = false, type = false;

        for (const char *p = text; *p;) {
                const char *eol = strchrnul(p, '\n');
                _cleanup_free_ char *line = xstrndup(p, (size_t) (eol - p));
                p = *eol ? eol + 1 : eol;
                if (!*eol && *line)
                        return xasprintf("the text does not end with a newline: '%s'", line);
                char name[128];
                if (sscanf(line, "# HELP %127s", name) == 1) {
                        char key[132];
                        snprintf(key, sizeof(key), " %s ", name);
                        if (strstr(seen, key))
                                return xasprintf("family %s appears twice", name);
                        if (strlen(seen) + strlen(key) >= sizeof(seen))
                                return xstrdup("too many families");
                        strcat(seen, name);
                        strcat(seen, " ");
                        snprintf(family, sizeof(family), "%s", name);
                        help = true, type = false;
                        continue;
                }
                if (startswith(line, "# TYPE ")) {
                        _cleanup_free_ char *want = xasprintf("# TYPE %s gauge", family);
                        if (!help || type || !streq(line, want))
                                return xasprintf("'%s' is not '%s' after its HELP", line, want);
                        type = true;
                        continue;
                }
                size_t len = strcspn(line, "{ ");
                if (!help || !type || len != strlen(family) || strncmp(line, family, len) != 0)
                        return xasprintf("sample '%s' outside its family (in %s)", line, family);
                if (!startswith(line, "numaplan_"))
                        return xasprintf("'%s' lacks the numaplan_ prefix", line);
                const char *v = strrchr(line, ' ');
                char *end;
                if (!v || (strtod(v + 1, &end), *end))
                        return xasprintf("'%s' has no number for a value", line);
        }
        return NULL;
}

static void sample_verdict(void) {
        struct metrics_sample s;
        struct metrics_run run = {.success = true, .timestamp_s = 1700000000.25, .duration_s = 1.5};

        metrics_sample_init(&s);
        _cleanup_free_ char *text = metrics_format(&run, s.units, 3), *err = structure_error(text);
        if (!ok(!err, "the text keeps the exposition format's structure"))
                printf("#   %s\n", err);
        ok(has_line(text, "numaplan_build_info{version=\"" NUMAPLAN_VERSION "\"} 1"),
           "build_info: the version as a label");
        ok(has_line(text, "numaplan_verify_success 1"), "success 1 with a verdict");
        ok(has_line(text, "numaplan_verify_last_run_timestamp_seconds 1700000000.250"), "the run's time");
        ok(has_line(text, "numaplan_verify_duration_seconds 1.500000"), "its duration");
        ok(has_line(text, "numaplan_verify_ok 0"), "overall not ok: one unit fails");
        ok(has_line(text, "numaplan_verify_unit_ok{unit=\"inference@0.service\"} 1"), "a pinned unit is ok");
        ok(has_line(text, "numaplan_verify_unit_ok{unit=\"llama\\\\x2dserver@1.service\"} 0"),
           "a failing unit is not, its backslash escaped");
        ok(has_line(text, "numaplan_verify_unit_info{unit=\"inference@0.service\",nodes=\"1\",cpus=\"8-15\"} 1"),
           "unit_info names the planned nodes and CPUs");
        is_int(count_prefix(text, "numaplan_verify_check_ok{"), 3 * N_CHECKS, "one check_ok per unit and check");
        ok(has_line(text,
                    "numaplan_verify_check_ok{unit=\"llama\\\\x2dserver@1.service\",check=\"memory-locality\"} 0"),
           "the failing check is 0");
        ok(has_line(text, "numaplan_verify_check_ok{unit=\"llama\\\\x2dserver@1.service\",check=\"numa-policy\"} 1"),
           "a passing check of the same unit is 1");
        ok(has_line(text,
                    "numaplan_verify_resident_pages{unit=\"inference@0.service\",node=\"1\",kind=\"huge\"} 512") &&
                   has_line(text, "numaplan_verify_resident_pages{unit=\"inference@0.service\",node=\"1\",kind="
                                  "\"anon\"} 1000") &&
                   has_line(text, "numaplan_verify_resident_pages{unit=\"inference@0.service\",node=\"1\",kind="
                                  "\"file\"} 500") &&
                   has_line(text,
                            "numaplan_verify_resident_pages{unit=\"inference@0.service\",node=\"0\",kind=\"anon\"} 10"),
           "resident pages by node and kind");
        ok(has_line(text,
                    "numaplan_verify_resident_pages{unit=\"inference@0.service\",node=\"0\",kind=\"shared\"} 200") &&
                   has_line(text,
                            "numaplan_verify_resident_pages{unit=\"inference@0.service\",node=\"0\",kind=\"file\"} 0"),
           "shared program code is its own kind, out of file");
        ok(has_line(text, "numaplan_verify_resident_pages{unit=\"idle.service\",node=\"1\",kind=\"anon\"} 0") &&
                   !strstr(text, "numaplan_verify_resident_pages{unit=\"idle.service\",node=\"0\""),
           "a unit without pages shows its planned node at 0, and no other");
        is_int(count_prefix(text, "numaplan_verify_resident_pages{"), 4 * (2 + 2 + 1),
               "four kinds for each node reported");
        ok(has_line(text, "numaplan_verify_page_size_bytes 4096"), "the page size the pages count in");
        ok(has_line(text, "numaplan_verify_local_ratio{unit=\"inference@0.service\"} 0.995054"),
           "share of its own pages on the planned nodes, shared program code left out");
        ok(has_line(text, "numaplan_verify_local_ratio{unit=\"llama\\\\x2dserver@1.service\"} 0.250000"),
           "a low share");
        ok(!strstr(text, "numaplan_verify_local_ratio{unit=\"idle.service\""), "no share for a unit without pages");
        ok(has_line(text, "numaplan_verify_min_local_ratio{unit=\"llama\\\\x2dserver@1.service\"} 0.9900") &&
                   has_line(text, "numaplan_verify_min_local_ratio{unit=\"idle.service\"} 0.9500"),
           "min-local as a ratio");
        ok(!strstr(text, "numaplan_host_"), "without the host read, no host metric");
        ok(has_line(text, "numaplan_verify_locked_pages{unit=\"inference@0.service\"} 600") &&
                   has_line(text, "numaplan_verify_locked_pages{unit=\"idle.service\"} 0"),
           "locked pages (VmLck) per unit, 0 for one without");
        ok(has_line(text, "numaplan_verify_locked_resident_pages{unit=\"inference@0.service\",node=\"1\"} 500") &&
                   has_line(
                           text,
                           "numaplan_verify_locked_resident_pages{unit=\"llama\\\\x2dserver@1.service\",node=\"0\"} 0"),
           "the locked mappings' resident pages by node, 0 on a planned node without any");
        is_int(count_prefix(text, "numaplan_verify_locked_resident_pages{"), 3,
               "one sample a planned node, none elsewhere");
        ok(has_line(text, "numaplan_verify_pinned_pages{unit=\"llama\\\\x2dserver@1.service\"} 64") &&
                   has_line(text, "numaplan_verify_pinned_off_plan_pages{unit=\"llama\\\\x2dserver@1.service\"} 64") &&
                   has_line(text, "numaplan_verify_pinned_off_plan_pages{unit=\"inference@0.service\"} 0"),
           "pinned pages (VmPin) and those known off the plan, per unit");
        ok(has_line(text, "numaplan_verify_pinned_mapped_pages{unit=\"llama\\\\x2dserver@1.service\",node=\"1\"} 80"),
           "the resident pages of the mappings holding pinned buffers, by node");
        is_int(count_prefix(text, "numaplan_verify_pinned_mapped_pages{"), 1, "only where there are any");
        ok(has_line(text, "numaplan_verify_rank_local_ratio{unit=\"inference@0.service\",accelerator=\"0000:2a:00.0\","
                          "node=\"1\"} 0.990000"),
           "the share of a rank's anonymous pages on its accelerator's node");
        is_int(count_prefix(text, "numaplan_verify_rank_local_ratio{"), 1, "one sample an accelerator driven");
        metrics_sample_done(&s);
}

/* The host's facts that change at run time: links, the governor, the warnings in effect. */
static void host_facts(void) {
        struct metrics_sample s;
        struct metrics_run run = {.success = true};

        metrics_sample_init(&s);
        run.host = &s.host, run.warnings = &s.warnings;
        _cleanup_free_ char *text = metrics_format(&run, s.units, 3), *err = structure_error(text);
        if (!ok(!err, "with the host: the exposition format's structure holds"))
                printf("#   %s\n", err);
        ok(has_line(text, "numaplan_host_pcie_link_speed_gts{pci=\"0000:18:00.0\"} 16.0") &&
                   has_line(text, "numaplan_host_pcie_link_max_speed_gts{pci=\"0000:18:00.0\"} 32.0"),
           "the link's speed and its maximum, in GT/s");
        ok(has_line(text, "numaplan_host_pcie_link_width{pci=\"0000:18:00.0\"} 8") &&
                   has_line(text, "numaplan_host_pcie_link_max_width{pci=\"0000:18:00.0\"} 16"),
           "its width and its maximum, in lanes");
        ok(!strstr(text, "{pci=\"0000:2a:00.0\"}"), "no sample for a link whose files are absent");
        ok(has_line(text, "numaplan_host_cpufreq_governor_info{governor=\"performance\",driver=\"acpi-cpufreq\",cpus="
                          "\"0-7\"} 1") &&
                   has_line(text, "numaplan_host_cpufreq_governor_info{governor=\"powersave\",driver=\"acpi-cpufreq\","
                                  "cpus=\"8-15\"} 1"),
           "one info sample per governor, naming the driver and its CPUs");
        ok(has_line(text, "numaplan_warnings{code=\"pcie-link-narrow\",severity=\"warning\"} 1") &&
                   has_line(text, "numaplan_warnings{code=\"pcie-link-slow\",severity=\"notice\"} 1") &&
                   has_line(text, "numaplan_warnings{code=\"cpu-governor\",severity=\"warning\"} 1"),
           "a gauge per warning code in effect, with its severity");
        is_int(count_prefix(text, "numaplan_warnings{"), 3, "and none for the codes not in effect");

        run.success = false;
        _cleanup_free_ char *failed = metrics_format(&run, s.units, 3);
        ok(has_line(failed, "numaplan_verify_success 0") && !strstr(failed, "unit=") &&
                   has_line(failed, "numaplan_host_pcie_link_width{pci=\"0000:18:00.0\"} 8"),
           "no verdict (no systemd), the host read: its metrics all the same");
        metrics_sample_done(&s);
}

static void escaping_and_empty(void) {
        struct metrics_sample s;
        struct metrics_run run = {.success = true};

        metrics_sample_init(&s);
        s.units[0].unit = "a\"b\nc\\d";
        _cleanup_free_ char *text = metrics_format(&run, s.units, 1);
        ok(has_line(text, "numaplan_verify_unit_ok{unit=\"a\\\"b\\nc\\\\d\"} 1"),
           "quote, newline and backslash escaped");
        s.units[0].unit = "a\xff\xc3\xa9\xe6\xa8";
        _cleanup_free_ char *bytes = metrics_format(&run, s.units, 1);
        ok(has_line(bytes, "numaplan_verify_unit_ok{unit=\"a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\"} 1"),
           "a label value in UTF-8, as the format wants: UTF-8 kept, each byte that is no UTF-8 as U+FFFD");

        _cleanup_free_ char *none = metrics_format(&run, NULL, 0), *err = structure_error(none);
        ok(!err && has_line(none, "numaplan_verify_ok 1") && !strstr(none, "# HELP numaplan_verify_page_size_bytes"),
           "no replica: ok, the families without samples, no page size");

        run.success = false;
        _cleanup_free_ char *failed = metrics_format(&run, s.units, 3);
        ok(has_line(failed, "numaplan_verify_success 0") && count_prefix(failed, "# HELP ") == 4 &&
                   has_line(failed, "numaplan_build_info{version=\"" NUMAPLAN_VERSION "\"} 1") &&
                   !strstr(failed, "unit="),
           "without a verdict, build_info and the run's own three metrics, and nothing about units");
        metrics_sample_done(&s);
}

static void documented(const char *source_root) {
        _cleanup_free_ char *path = xasprintf("%s/man/numaplan.8", source_root), *man = read_whole(path);
        struct metrics_sample s;
        struct metrics_run run = {.success = true};

        if (!ok(man != NULL, "numaplan(8) readable"))
                return;
        const char *sec = strstr(man, "\n.SH METRICS\n");
        const char *end = sec ? strstr(sec + 1, "\n.SH ") : NULL;
        if (!ok(sec != NULL, "numaplan(8) has a METRICS section"))
                return;
        _cleanup_free_ char *section = end ? xstrndup(sec, (size_t) (end - sec)) : xstrdup(sec);
        metrics_sample_init(&s);
        run.host = &s.host, run.warnings = &s.warnings;
        _cleanup_free_ char *text = metrics_format(&run, s.units, 3);
        metrics_sample_done(&s);
        for (size_t i = 0; metrics_names[i]; i++) {
                _cleanup_free_ char *help = xasprintf("# HELP %s ", metrics_names[i]),
                                    *roff = xasprintf(".B %s", metrics_names[i]);
                ok(strstr(text, help) && strstr(section, roff), "%s is written and documented under METRICS",
                   metrics_names[i]);
        }
        size_t n = 0;
        while (metrics_names[n])
                n++;
        is_int(count_prefix(text, "# HELP "), n, "metrics_names lists every family written");
}

int main(int argc, char **argv) {
        sample_verdict();
        host_facts();
        escaping_and_empty();
        if (argc > 2)
                documented(argv[2]);
        return done_testing();
}
