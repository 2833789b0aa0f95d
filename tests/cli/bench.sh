#!/bin/bash
# numaplan bench where no systemd is needed: its --help, the command line's errors, a replica
# found by its name or its unit, the refusals that come before anything is done (no such
# replica, no warmup-url, a replayed host), each with its exit status and, with --json, the
# error document. What it measures is the guest's to test (tests/vm/scenarios/85-bench.sh).
# Usage: bench.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
host=$fixtures/hosts/dgx-2s-8gpu

refused() { # refused DESCRIPTION STATUS MESSAGE-PART ARGS...: exits STATUS, saying MESSAGE-PART
	local d=$1 want=$2 part=$3
	shift 3
	run "$@"
	if [ "$rc" = "$want" ] && [[ $err == *"$part"* ]]; then ok "$d"; else
		fail "$d" "args: $*" "exit status $rc, want $want" "stderr: $err"; fi
}

conf=$scratch/numaplan.conf
cat >"$conf" <<'EOF'
[replica quiet]
unit = quiet.service
memory = 1G

[replica r0]
unit = llama-server@0.service
memory = 1G
warmup-url = http://127.0.0.1:8080/completion
EOF
chmod 0644 "$conf"
on_host=(-c "$conf" --sysfs-root "$host")

run bench --help
is "bench --help exits 0" "$rc" 0
missing=
for o in --rounds --requests --against --json --config REPLICA; do
	[[ $out == *"$o"* ]] || missing+=" $o"
done
is "bench --help names its options and REPLICA" "${missing:-none}" none
run help bench
is "numaplan help bench is its --help" "$out" "$("$numaplan" bench --help)"

# ---- the command line ----
refused "no replica: exit 2" 2 "which replica?" bench "${on_host[@]}"
refused "two replicas: exit 2, one at a time" 2 "one replica at a time" bench "${on_host[@]}" r0 quiet
refused "--rounds 0: exit 2" 2 "--rounds: '0' is not a number from 1 to 100" bench "${on_host[@]}" --rounds 0 r0
refused "--rounds x: exit 2" 2 "--rounds: 'x'" bench "${on_host[@]}" --rounds x r0
refused "--requests over 10000: exit 2" 2 "--requests: '10001'" bench "${on_host[@]}" --requests 10001 r0
refused "--against elsewhere: exit 2" 2 "--against: 'elsewhere' is neither remote nor unpinned" \
	bench "${on_host[@]}" --against elsewhere r0
refused "--rounds without its value: exit 2" 2 "option '--rounds' needs a value" bench "${on_host[@]}" r0 --rounds
refused "an option of another command: exit 2" 2 "unknown option '--dry-run'" bench "${on_host[@]}" --dry-run r0
run bench "${on_host[@]}" --rounds 0 --json r0
is "a usage error with --json: exit 2" "$rc" 2
is "and the error document" "$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["error"]["code"])' <<<"$out")" 2

# ---- what is refused before anything is done ----
refused "no such replica: exit 2, naming it" 2 "nope is neither a replica of the configuration nor its unit" \
	bench "${on_host[@]}" nope
run bench "${on_host[@]}" --json nope
if [ "$rc" = 2 ] && [[ $out == *'"code": 2'* ]] && [[ $out == *'nope is neither a replica'* ]]; then
	ok "with --json, the error document says so"
else fail "no such replica, --json" "$rc" "$out"; fi
refused "a replica without warmup-url: exit 2, naming the key" 2 \
	"quiet: bench times requests to its warmup-url, and it has none (numaplan.conf(5)): nothing done" \
	bench "${on_host[@]}" quiet
refused "found by its unit too" 2 "quiet: bench times requests to its warmup-url" bench "${on_host[@]}" quiet.service
run bench "${on_host[@]}" --json quiet
if [ "$rc" = 2 ] && [[ $out == *'"code": 2'* ]] && [[ $out == *'warmup-url'* ]]; then
	ok "with --json, the error document names warmup-url"
else fail "no warmup-url, --json" "$rc" "$out"; fi
# Those with a warmup-url get as far as the host: a replayed one is no host to restart units on.
for name in r0 llama-server@0 llama-server@0.service; do
	refused "$name, on a replayed host: exit 2" 2 "it restarts this host's units: not with --sysfs-root" \
		bench "${on_host[@]}" "$name"
done
run bench "${on_host[@]}" --against unpinned --rounds 2 --requests 5 r0
is "nothing on stdout when refused" "$out" ""

done_testing
