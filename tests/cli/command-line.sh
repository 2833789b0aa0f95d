#!/bin/bash
# The command line's contract: global options before or after the verb, a verb's own option
# before the verb accepted, an option of another verb refused naming it, and exit codes.
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
host="$fixtures/hosts/dgx-2s-8gpu"
printf '[replica a]\nunit = a.service\naccelerators = 18:00.0\nmemory = 1G\n' >"$scratch/c.conf"
chmod 0644 "$scratch/c.conf"

run() { # run ARGS...: sets rc, out, err
	"$numaplan" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	out=$(cat "$scratch/out")
	err=$(cat "$scratch/err")
}
json_ok() { python3 -c 'import json,sys; json.load(sys.stdin)' <"$scratch/out" 2>/dev/null; }

# Each form must give the same document as the canonical one.
run show --json --sysfs-root "$host"
canonical_show=$out
for form in "--json show --sysfs-root $host" "--sysfs-root $host --json show" "--sysfs-root=$host show --json" \
	"show --sysfs-root $host --json"; do
	# shellcheck disable=SC2086 # the form is words
	run $form
	if [ $rc -eq 0 ] && json_ok && [ "$out" = "$canonical_show" ]; then ok "numaplan $form: show's JSON"; else
		fail "numaplan $form" "exit $rc" "$err"; fi
done

run plan -c "$scratch/c.conf" --sysfs-root "$host" --json
canonical_plan=$out
for form in "-c $scratch/c.conf plan --sysfs-root $host --json" "--config $scratch/c.conf --json plan --sysfs-root $host" \
	"--config=$scratch/c.conf plan --json --sysfs-root $host" "--sysfs-root $host plan --json -c $scratch/c.conf"; do
	# shellcheck disable=SC2086
	run $form
	if [ $rc -eq 0 ] && [ "$out" = "$canonical_plan" ]; then ok "numaplan $form: plan of c.conf"; else
		fail "numaplan $form" "exit $rc" "$err"; fi
done

run --check show --sysfs-root "$host"
if [ $rc -eq 2 ] && grep -q "unknown option '--check'" <<<"$err" && [ -z "$out" ]; then
	ok "another verb's option before the verb is refused, naming it"
else fail "apply's --check before show" "exit $rc" "$err"; fi
run -o x.tar plan --sysfs-root "$host"
if [ $rc -eq 2 ] && grep -q "unknown option '-o'" <<<"$err"; then ok "a short option of another verb is refused, naming it"; else
	fail "snapshot's -o before plan" "exit $rc" "$err"; fi
run show --frobnicate
if [ $rc -eq 2 ] && grep -q "numaplan show: unknown option '--frobnicate'" <<<"$err"; then ok "an unknown option names itself"; else
	fail "unknown option" "exit $rc" "$err"; fi
run plan -c
if [ $rc -eq 2 ] && grep -q "option '-c' needs a value" <<<"$err"; then ok "an option without its value says so"; else
	fail "-c without a value" "exit $rc" "$err"; fi
run --json
if [ $rc -eq 2 ] && grep -q "'--json' needs a command" <<<"$err"; then ok "an option without a command says so"; else
	fail "--json alone" "exit $rc" "$err"; fi
run --sysfs-root
is "a global option without its value exits 2" "$rc" 2
run -q show --sysfs-root "$host" -c "$scratch/missing.conf"
if [ $rc -eq 0 ] && grep -q "cannot open" <<<"$err" && ! grep -q "warning:" <<<"$err"; then
	ok "-q before the verb keeps the error, drops the warning"
else fail "-q" "exit $rc" "$err"; fi
run show --sysfs-root "$host" -q -c "$scratch/missing.conf"
if [ $rc -eq 0 ] && grep -q "cannot open" <<<"$err" && ! grep -q "warning:" <<<"$err"; then ok "and after it"; else
	fail "-q after" "exit $rc" "$err"; fi
run verify --json --tap
is "verify --json --tap is a usage error" "$rc" 2
run --help plan
case $out in "Usage: numaplan plan"*) ok "--help before a verb is that verb's help" ;; *) fail "--help plan" "$out" ;; esac
done_testing
