#!/bin/bash
# Fuzzes every target with libFuzzer for a bounded time each, two at a time, and prints TAP: one
# point per target, failing on any crash, leak or undefined behaviour (AddressSanitizer,
# LeakSanitizer and UBSan, which halts on the first report), with the executions and coverage
# reached. Needs clang and its runtime (Debian: clang, libclang-rt-14-dev); skips without them.
# Usage: tests/fuzz/run-fuzzers.sh [SECONDS [BUILD_DIR]]   (default 30 s, build-fuzz)
# SECONDS is a deep target's time; a shallow one (below) gets a quarter of it.
# A crash leaves its input in BUILD_DIR/fuzz-out/TARGET/: add it to tests/fuzz/corpus/TARGET/.
set -u
seconds=${1:-30}
cd "$(dirname "$0")/../.."
build=${2:-build-fuzz}
. tests/cli/tap.sh

command -v clang >/dev/null || skip_all "clang is not installed"
echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >"/tmp/fuzz-probe-$$.c"
if ! clang -fsanitize=fuzzer "/tmp/fuzz-probe-$$.c" -o "/tmp/fuzz-probe-$$" 2>/dev/null; then
	rm -f "/tmp/fuzz-probe-$$"*
	skip_all "clang cannot link libFuzzer (install libclang-rt-14-dev)"
fi
rm -f "/tmp/fuzz-probe-$$"*

if [ ! -d "$build" ]; then
	CC=clang meson setup "$build" -Dfuzzers=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all >/dev/null || { echo "Bail out! meson setup $build failed"; exit 1; }
fi
ninja -C "$build" fuzzers >"$build/fuzz-build.log" 2>&1 || { echo "Bail out! building the fuzzers failed"; tail -20 "$build/fuzz-build.log"; exit 1; }

out=$build/fuzz-out
rm -rf "$out"
mkdir -p "$out"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_one() { # run_one TARGET: fuzzes it on a scratch copy of its corpus
	local t=$1 name=${1#fuzz-}
	mkdir -p "$out/$t/corpus" "$out/$t/crashes"
	cp tests/fuzz/corpus/"$name"/* "$out/$t/corpus/" 2>/dev/null
	"$build/tests/fuzz/$t" -max_total_time="$(budget "$t")" -print_final_stats=1 -artifact_prefix="$out/$t/crashes/" \
		-max_len=65536 -rss_limit_mb=2048 "$out/$t/corpus" >"$out/$t/log" 2>&1
	echo $? >"$out/$t/rc"
}
# Shallow targets: one small parser (or filter) each, whose coverage stopped growing within the first 4 s of
# every 30 s run measured (millions of executions); the rest found new edges to the end.
shallow=" fuzz-cpulist fuzz-dbus-bytes fuzz-distance fuzz-dropin fuzz-meminfo fuzz-mountinfo fuzz-pci-address fuzz-unit-name fuzz-utf8 fuzz-values "
is_shallow() { [[ $shallow == *" $1 "* ]]; }
budget() { # budget TARGET: its seconds
	if is_shallow "$1"; then echo $((seconds / 4 > 0 ? seconds / 4 : 1)); else echo "$seconds"; fi
}
# The deep targets first, so that the short ones fill the two lanes' ends.
all=$(cd tests/fuzz && ls fuzz-*.c | sed 's/\.c$//' | grep -v '^fuzz-main$')
targets="$(for t in $all; do is_shallow "$t" || echo "$t"; done) $(for t in $all; do is_shallow "$t" && echo "$t"; done)"
running=0
for t in $targets; do
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge 2 ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
for t in $targets; do
	rc=$(cat "$out/$t/rc")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t/log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$out/$t/log" | tail -1 | cut -d' ' -f2)
	if [ "$rc" = 0 ] && [ -z "$(ls -A "$out/$t/crashes")" ]; then
		ok "$t: $(budget "$t") s, ${execs:-?} executions, coverage ${cov:-?} edges, no crash"
	else
		fail "$t: crashed (exit $rc)" "$(grep -m5 -E 'ERROR|runtime error|SUMMARY' "$out/$t/log")" \
			"input: $(ls "$out/$t/crashes" | head -1)"
	fi
done
done_testing
