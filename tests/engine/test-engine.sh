#!/bin/bash
# The real inference engine of the VM tier, tried on this machine: make-gguf.py writes a model,
# install.sh installs node-llama-cpp into a scratch directory, server.mjs loads the model
# (mmapped), answers /health and /completion, and stops on SIGTERM. Says what each step took.
# HTTP goes through bash's /dev/tcp: curl may not be installed.
# Usage: test-engine.sh [MODEL-MIB]   (default 32)
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
mib=${1:-32}
# shellcheck source=tests/cli/tap.sh
. "$here/../cli/tap.sh"

for tool in node npm python3; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed"
done
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
[ "$major" -ge 20 ] || skip_all "node-llama-cpp needs Node 20 or later, node is $(node --version 2>&1)"

scratch=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# exchange FORMAT [ARGS...]: sends printf FORMAT ARGS, reads until the server closes;
# sets status, head, body
exchange() {
	local fd resp=
	status='' head='' body=''
	exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
	# shellcheck disable=SC2059 # the format is the request
	printf "$@" >&"$fd"
	IFS= read -r -d '' -t 30 resp <&"$fd"
	exec {fd}>&-
	head=${resp%%$'\r\n\r\n'*}
	body=${resp#*$'\r\n\r\n'}
	body=${body%$'\n'}
	[[ $resp =~ ^HTTP/1\.1\ ([0-9]{3})\  ]] && status=${BASH_REMATCH[1]}
	return 0
}
get() { exchange 'GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n' "$1"; }
post() { # post PATH BODY
	exchange 'POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
		"$1" "${#2}" "$2"
}

# ---- the model ----

model=$scratch/model.gguf
t0=$(now_ms)
if python3 "$here/make-gguf.py" "$model" --mib "$mib" 2>"$scratch/gguf.err"; then
	ok "make-gguf.py writes a model"
else
	fail "make-gguf.py writes a model" "$(cat "$scratch/gguf.err")"
fi
echo "# make-gguf: $(($(now_ms) - t0)) ms: $(cat "$scratch/gguf.err")"
size=$(stat -c %s "$model" 2>/dev/null || echo 0)
is "it starts with the GGUF v3 magic" "$(head -c 8 "$model" | od -An -tx1 | tr -d ' ')" 4747554603000000
if [ "$size" -ge $(((mib - 1) << 20)) ] && [ "$size" -le $(((mib + 1) << 20)) ]; then
	ok "its size is about $mib MiB"
else
	fail "its size is about $mib MiB" "size: $size bytes"
fi
python3 "$here/make-gguf.py" "$scratch/again.gguf" --mib "$mib" 2>/dev/null
check "it is the same file every time" cmp -s "$model" "$scratch/again.gguf"
rm -f "$scratch/again.gguf"

# ---- the install ----

dest=$scratch/engine
t0=$(now_ms)
if "$here/install.sh" "$dest" >"$scratch/install.out" 2>&1; then
	ok "install.sh installs the engine"
else
	fail "install.sh installs the engine" "$(tail -20 "$scratch/install.out")"
fi
install_ms=$(($(now_ms) - t0))
sed '/^$/d; s/^/# /' "$scratch/install.out"
check "only the CPU binary of node-llama-cpp is installed" \
	test "$(ls "$dest/node_modules/@node-llama-cpp" 2>/dev/null)" = linux-x64
"$here/install.sh" "$dest" >"$scratch/install2.out" 2>&1
check "a second install.sh reuses the installed tree" grep -q "already installed" "$scratch/install2.out"

# ---- the server ----

wait_line() { # wait_line PATTERN SECONDS: waits (scaled) for a line of the server's stderr; sets line
	local tries=$(($(scaled "$2") * 20))
	line=
	while [ "$tries" -gt 0 ]; do
		line=$(grep -m1 -e "$1" "$scratch/server.err")
		[ -n "$line" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

t0=$(now_ms)
node "$dest/server.mjs" --model "$model" --listen 127.0.0.1:0 --threads 2 2>"$scratch/server.err" &
pid=$!
port=
wait_line ' loading model=' 60 && [[ $line =~ listen=127\.0\.0\.1:([0-9]+) ]] && port=${BASH_REMATCH[1]}
if [ -n "$port" ]; then
	get /health
	case $status in
	503) is "GET /health answers 503 while the model loads" "$body" '{"status":"loading"}' ;;
	200) ok "GET /health answers 503 while the model loads # SKIP the model loaded first" ;;
	*) fail "GET /health answers 503 while the model loads" "status: $status" "body: $body" ;;
	esac
else
	fail "the server listens before it loads the model" "$(cat "$scratch/server.err")"
fi
wait_line ' ready listen=' 120
ready_ms=$(($(now_ms) - t0))
re='ready listen=127\.0\.0\.1:([0-9]+) pid=([0-9]+) .*mmap=true cpu=([^ ]+) load_ms=([0-9]+)'
if [[ $line =~ $re ]] && [ "${BASH_REMATCH[1]}" = "$port" ] && [ "${BASH_REMATCH[2]}" = "$pid" ]; then
	ok "the server loads the model with mmap and says it is ready"
	echo "# load: ${BASH_REMATCH[4]} ms in node-llama-cpp, $ready_ms ms from start to ready (ggml cpu variant ${BASH_REMATCH[3]})"
else
	fail "the server loads the model with mmap and says it is ready" "$(cat "$scratch/server.err")"
	done_testing
	exit
fi

get /health
is "GET /health answers 200 ok" "$status $body" "200 {\"status\":\"ok\"}"
case ${head,,} in *$'\r\nconnection: close'*) ok "answers carry Connection: close" ;;
*) fail "answers carry Connection: close" "$head" ;; esac

t0=$(now_ms)
post /completion '{"prompt": "The numa node of the model is", "n_predict": 8}'
completion_ms=$(($(now_ms) - t0))
if [ "$status" = 200 ] && [[ $body =~ \"content\":\"[^\"] ]] && [[ $body == *'"tokens_predicted":8,'* ]]; then
	ok "POST /completion with n_predict 8 answers 200 with 8 tokens of content"
else
	fail "POST /completion with n_predict 8 answers 200 with 8 tokens of content" "status: $status" "body: $body"
fi
echo "# completion of 8 tokens: $completion_ms ms: $body"
first=$body
post /completion '{"prompt": "The numa node of the model is", "n_predict": 8}'
is "the same prompt gives the same completion" "${body%%,\"timings\"*}" "${first%%,\"timings\"*}"

post /completion '{"prompt": 42}'
is "a prompt that is no string answers 400" "$status" 400
post /completion 'not json'
is "a body that is no JSON answers 400 with a JSON error" "$status ${body:0:20}" '400 {"error":{"code":400'
get /completion
is "GET /completion answers 405" "$status" 405
get /nowhere
is "an unknown path answers 404" "$status" 404

# The page cache of the model file must be mapped into the server, or numaplan has nothing to check.
mapped=0
while read -r range _ _ _ _ path; do
	[ "$path" = "$model" ] || continue
	start=$((16#${range%-*})) end=$((16#${range#*-}))
	mapped=$((mapped + end - start))
done <"/proc/$pid/maps"
if [ "$mapped" -ge $((size * 9 / 10)) ]; then
	ok "the server maps the model file (/proc/PID/maps)"
else
	fail "the server maps the model file (/proc/PID/maps)" "mapped: $mapped of $size bytes"
fi
check "numa_maps names the model file" grep -qF "file=$model" "/proc/$pid/numa_maps"

kill -TERM "$pid"
t0=$(now_ms)
for _ in $(seq $(($(scaled 5) * 20))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" # still there after 5 s (scaled): the test below fails
wait "$pid"
rc=$?
stop_ms=$(($(now_ms) - t0))
pid=
is "SIGTERM stops the server with status 0" "$rc" 0
echo "# stop: $stop_ms ms"
echo "# timings: install $install_ms ms, ready $ready_ms ms, completion(8) $completion_ms ms, stop $stop_ms ms"

done_testing
