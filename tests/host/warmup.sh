#!/bin/bash
# verify's warm-up (host/warmup.c, through libcurl) against the stand-in server: nothing
# listening, not listening yet, 503 then 200, an error status, a slow answer within and beyond
# the timeout, and 503 until the timeout. Usage: warmup.sh WARMUP_PROBE STANDIN
set -u
probe=$1
standin=$2
. "$(dirname "$0")/../cli/tap.sh"

scratch=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT

# A port nobody listens on: the kernel's pick, released again.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

serve() { # serve PORT STANDIN-OPTIONS...: starts the stand-in in the background
	local port=$1
	shift
	"$standin" --listen "127.0.0.1:$port" "$@" 2>"$scratch/standin-$port.log" &
	pids+=($!)
}
wait_listening() { # wait_listening PORT
	for _ in $(seq 1 $(($(scaled 5) * 20))); do
		grep -q "ready listen=" "$scratch/standin-$1.log" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
probe() { # probe PORT TIMEOUT_MS: sets line, and field values
	line=$("$probe" "http://127.0.0.1:$1/completion" "$2")
	okv=$(sed -n 's/^ok=\([01]\).*/\1/p' <<<"$line")
	status=$(sed -n 's/.* status=\([0-9]*\).*/\1/p' <<<"$line")
	tries=$(sed -n 's/.* tries=\([0-9]*\).*/\1/p' <<<"$line")
	seconds=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")
}
between() { # between X LO HI: LO <= X <= HI, the upper bound on a time grown as scaled's
	awk -v x="$1" -v lo="$2" -v hi="$3" -v m="${NUMAPLAN_TEST_TIMEOUT_MULTIPLIER:-1}" \
		'BEGIN { m += 0; if (m <= 0) m = 1; exit !(x >= lo && x <= hi * m) }'
}

if ! command -v python3 >/dev/null; then skip_all "python3 is not installed (it picks free ports)"; fi

port=$(free_port)
probe "$port" 1000
if [ "$okv" = 0 ] && [ "$status" = 0 ] && between "$seconds" 0.9 2 && [ "$tries" -ge 2 ] &&
	grep -q "nothing listening" <<<"$line"; then
	ok "nothing listening: retried until the timeout, then fails saying so ($tries tries, ${seconds} s)"
else fail "refused" "$line"; fi

port=$(free_port)
serve "$port" --listen-after 0.6
probe "$port" 5000
if [ "$okv" = 1 ] && [ "$status" = 200 ] && [ "$tries" -ge 2 ] && between "$seconds" 0.5 3; then
	ok "refused, then listening: retried, then passes ($tries tries, ${seconds} s)"
else fail "refused then listening" "$line" "$(cat "$scratch/standin-$port.log")"; fi

port=$(free_port)
serve "$port" --ready-after 0.8
wait_listening "$port"
probe "$port" 5000
if [ "$okv" = 1 ] && [ "$status" = 200 ] && [ "$tries" -ge 2 ] && grep -q "503" "$scratch/standin-$port.log"; then
	ok "503 (loading), then 200: passes after $tries tries"
else fail "503 then 200" "$line" "$(cat "$scratch/standin-$port.log")"; fi

port=$(free_port)
serve "$port" --fail-warmup
wait_listening "$port"
probe "$port" 5000
if [ "$okv" = 0 ] && [ "$status" = 500 ] && [ "$tries" = 1 ] && grep -q "not with success" <<<"$line"; then
	ok "500: fails at once, not retried"
else fail "500" "$line"; fi

port=$(free_port)
serve "$port" --answer-after 0.5
wait_listening "$port"
probe "$port" 5000
if [ "$okv" = 1 ] && [ "$tries" = 1 ] && between "$seconds" 0.45 3; then
	ok "a slow answer within the timeout passes (${seconds} s)"
else fail "slow within" "$line"; fi
probe "$port" 300
if [ "$okv" = 0 ] && between "$seconds" 0.25 1.5 && grep -qi "timeout\|timed out" <<<"$line"; then
	ok "a slow answer beyond the timeout fails within it (${seconds} s)"
else fail "slow beyond" "$line"; fi

port=$(free_port)
serve "$port" --ready-after 60
wait_listening "$port"
probe "$port" 1200
if [ "$okv" = 0 ] && [ "$status" = 503 ] && between "$seconds" 1.1 2.5 && grep -q "warmup-timeout reached" <<<"$line"; then
	ok "503 until the timeout: fails once it is reached, saying so (${seconds} s)"
else fail "503 forever" "$line"; fi

# bench's timed requests: the time, and the tokens the answer says it produced (llama.cpp's
# tokens_predicted, OpenAI's usage.completion_tokens); a failure is one, never an answer.
port=$(free_port)
serve "$port" --answer-after 0.2
wait_listening "$port"
lines=$("$probe" "http://127.0.0.1:$port/completion" 2000 2)
re='^ok=1 status=200 ms=([0-9.]+) tokens=16 error=$'
if [ "$(grep -cE "$re" <<<"$lines")" = 2 ] && between "$(sed -n '1s/.* ms=\([0-9.]*\).*/\1/p' <<<"$lines")" 195 1500; then
	ok "timed requests: two answers, each 0.2 s and 16 tokens (llama.cpp's tokens_predicted)"
else fail "timed requests, llama.cpp's answer" "$lines"; fi
line=$("$probe" "http://127.0.0.1:$port/v1/completions" 2000 1)
if [[ $line =~ ^ok=1\ status=200\ .*\ tokens=16\ error=$ ]]; then ok "and OpenAI's usage.completion_tokens"; else
	fail "timed requests, OpenAI's answer" "$line"; fi
line=$("$probe" "http://127.0.0.1:$port/health" 2000 1)
if [[ $line =~ ^ok=0\ status=405\ .*\ tokens=-1\ error=HTTP\ 405$ ]]; then ok "an error status is a failure, saying it"; else
	fail "timed requests, an error" "$line"; fi
port=$(free_port)
line=$("$probe" "http://127.0.0.1:$port/completion" 2000 1)
if [[ $line =~ ^ok=0\ status=0\ .*\ error=.+ ]]; then ok "nothing listening: a failure, saying why"; else
	fail "timed requests, refused" "$line"; fi
done_testing
