#!/bin/bash
# numaplan-standin, the stand-in inference server of the end-to-end tests: its command line, the
# memory, threads and workers it holds, its HTTP answers (good, bad and garbage requests), the
# --ready-after / --listen-after / --fail-* behaviours, and a clean stop.
# HTTP goes through bash's /dev/tcp only: curl may not be installed.
# Usage: test-standin.sh PATH-TO-numaplan-standin
set -u
export LC_ALL=C
standin=$1
. "$(dirname "$0")/../cli/tap.sh"

scratch=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$scratch"
}
trap cleanup EXIT
trap '' PIPE # a write to a connection the server closed must fail, not end this script

# ---- helpers ----

proc_state() { # proc_state PID: its state letter (Z: a zombie), empty when it is gone
	local s
	{ s=$(<"/proc/$1/stat"); } 2>/dev/null || return 0
	s=${s##*) }
	echo "${s%% *}"
}

gone() { # gone PID: the process has exited (a zombie has)
	local st
	st=$(proc_state "$1")
	[ -z "$st" ] || [ "$st" = Z ]
}

wait_gone() { # wait_gone SECONDS PID...: true when all have exited in time (scaled)
	local tries=$(($(scaled "$1") * 20)) p left
	shift
	while [ "$tries" -gt 0 ]; do
		left=0
		for p in "$@"; do gone "$p" || left=1; done
		[ "$left" -eq 0 ] && return 0
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

children_of() { # children_of PID: the PIDs whose parent it is
	local f s rest
	for f in /proc/[0-9]*/stat; do
		{ s=$(<"$f"); } 2>/dev/null || continue
		rest=${s##*) }
		read -r _ ppid _ <<<"$rest"
		[ "$ppid" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
	done
}

start() { # start NAME ARGS...: runs the server in the background; sets pid, errlog
	errlog=$scratch/$1.err
	shift
	"$standin" "$@" 2>"$errlog" &
	pid=$!
	pids+=("$pid")
}

wait_ready() { # wait_ready SECONDS: waits (scaled) for the ready line; sets host, port, ready
	local tries=$(($(scaled "$1") * 20)) re='ready listen=(127\.0\.0\.1|\[::1\]):([0-9]+) pid='
	ready=
	while [ "$tries" -gt 0 ]; do
		ready=$(grep -m1 ' ready ' "$errlog" 2>/dev/null)
		if [[ $ready =~ $re ]]; then
			host=${BASH_REMATCH[1]#[}
			host=${host%]}
			port=${BASH_REMATCH[2]}
			return 0
		fi
		gone "$pid" && return 1
		sleep 0.05
		tries=$((tries - 1))
	done
	return 1
}

# exchange FORMAT [ARGS...]: sends printf FORMAT ARGS to the server, reads the answer until the
# server closes; sets resp, status, head, body (status empty when nothing came back)
exchange() {
	local fd
	resp='' status='' head='' body=''
	exec {fd}<>"/dev/tcp/$host/$port" || return 1
	# shellcheck disable=SC2059 # the format is the request, escapes and all
	{ printf "$@" >&"$fd"; } 2>/dev/null
	IFS= read -r -d '' -t 10 resp <&"$fd"
	exec {fd}>&-
	head=${resp%%$'\r\n\r\n'*}
	body=${resp#*$'\r\n\r\n'}
	[[ $resp =~ ^HTTP/1\.1\ ([0-9]{3})\  ]] && status=${BASH_REMATCH[1]}
	return 0
}

get() { exchange 'GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n' "$1"; }
post() { # post PATH BODY
	exchange 'POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
		"$1" "${#2}" "$2"
}

header() { # header NAME: its value in the last answer
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case ${line,,} in "${1,,}: "*) echo "${line#*: }"; return 0 ;; esac
	done <<<"$head"
	return 1
}

refused() { # refused PORT: nothing listens there
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() { # free_port: a port nothing listens on, below Linux's ephemeral range
	local p
	for p in $((20000 + RANDOM % 12000)) $((20000 + RANDOM % 12000)) $((20000 + RANDOM % 12000)); do
		refused "$p" && { echo "$p"; return 0; }
	done
	return 1
}

kb() { # kb FIELD PID: a "kB" field of /proc/PID/status
	local name value _
	while read -r name value _; do
		[ "$name" = "$1:" ] && { echo "$value"; return 0; }
	done <"/proc/$2/status"
	echo 0
}

stopped() { # stopped SECONDS: waits for the server to exit; sets rc (empty: still running)
	local p keep=()
	rc=
	wait_gone "$1" "$pid" || return 1
	wait "$pid" 2>/dev/null # (no "Killed" notice for the SIGKILL test)
	rc=$?
	# waited for: its PID may be reused now, so the EXIT trap must not signal it
	for p in "${pids[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
	pids=("${keep[@]}")
}

run() { # run ARGS...: runs the server in the foreground (for command line errors); sets rc, err
	"$standin" "$@" >"$scratch/out" 2>"$scratch/err" </dev/null
	rc=$?
	err=$(<"$scratch/err")
	out=$(<"$scratch/out")
}

# ---- the command line ----

run --help
is "--help exits 0" "$rc" 0
missing=
for o in --listen --model --kv-mib --huge-mib --workers --worker-mib --threads --ready-after --listen-after \
	--fail-warmup --fail-status --pidfile --near-node --remote-penalty; do
	case $out in *"$o"*) ;; *) missing+=" $o" ;; esac
done
is "--help names every option" "${missing:-none}" none

bad_cmdline() { # bad_cmdline DESCRIPTION MESSAGE-PART ARGS...
	local d=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" = 2 ] && [[ $err == *"$want"* ]] && [[ $err == *"--help"* ]]; then
		ok "$d exits 2 with a message"
	else
		fail "$d exits 2 with a message" "args: $*" "rc: $rc" "stderr: $err"
	fi
}
bad_cmdline "an unknown option" "frobnicate" --frobnicate
bad_cmdline "an option without its value" "kv-mib" --kv-mib
bad_cmdline "a non-numeric --kv-mib" "kv-mib" --kv-mib lots
bad_cmdline "a non-numeric --huge-mib" "huge-mib" --huge-mib lots
bad_cmdline "a negative --workers" "workers" --workers -1
bad_cmdline "a --threads over the limit" "threads" --threads 100000
bad_cmdline "a malformed --ready-after" "ready-after" --ready-after 1s
bad_cmdline "--listen without a port" "listen" --listen 127.0.0.1
bad_cmdline "--listen with a host name" "numeric" --listen localhost:8080
bad_cmdline "--listen with an unclosed IPv6 bracket" "IPV6" --listen '[::1:8080'
bad_cmdline "--listen with port 65536" "port" --listen 127.0.0.1:65536
bad_cmdline "--fail-status 200" "fail-status" --fail-status 200
bad_cmdline "an extra argument" "unexpected argument 'extra'" extra
bad_cmdline "--remote-penalty without --near-node" "needs --near-node" --remote-penalty 0.1
bad_cmdline "a --near-node that is no node" "near-node" --near-node x

run --listen 127.0.0.1:0 --model "$scratch/no-such-model"
if [ "$rc" = 1 ] && [[ $err == *"cannot open model"*no-such-model* ]]; then
	ok "a missing model exits 1 naming it"
else
	fail "a missing model exits 1 naming it" "rc: $rc" "stderr: $err"
fi
run --listen 127.0.0.1:0 --model "$scratch"
is "a directory as model exits 1" "$rc" 1

# ---- the full server: memory, threads, workers, then HTTP ----

pagesize=$(getconf PAGESIZE)
model=$scratch/model.gguf
model_bytes=$((4 << 20))
head -c "$model_bytes" /dev/urandom >"$model"

start main --listen 127.0.0.1:0 --model "$model" --kv-mib 8 --workers 2 --worker-mib 4 --threads 3 \
	--ready-after 4 --pidfile "$scratch/standin.pid"
if wait_ready 10; then ok "the ready line comes"; else fail "the ready line comes" "$(cat "$errlog")"; fi
case $ready in
*"pid=$pid model_bytes=$model_bytes kv_mib=8 huge_mib=0 workers=2 threads=3"*) ok "the ready line shows pid, model, kv, workers, threads" ;;
*) fail "the ready line shows pid, model, kv, workers, threads" "$ready" ;;
esac
is "the pidfile holds the main PID" "$(cat "$scratch/standin.pid" 2>/dev/null)" "$pid"

get /health
is "GET /health is 503 while the model loads" "$status" 503
case $body in *'"code":503'*) ok "the 503 has a JSON error body" ;; *) fail "the 503 has a JSON error body" "$resp" ;; esac
post /completion '{"prompt":"hi","n_predict":16}'
is "POST /completion is 503 while the model loads" "$status" 503

# The model is mapped and every page of it is resident in this process.
rss=0 in_model=0 model_pages=
while IFS= read -r line; do
	case $line in
	[0-9a-f]*-*" $model") in_model=1 ;;
	[0-9a-f]*-*) in_model=0 ;;
	Rss:*) [ "$in_model" = 1 ] && { read -r _ v _ <<<"$line"; rss=$((rss + v)); } ;;
	esac
done <"/proc/$pid/smaps"
if [ "$rss" -ge $((model_bytes / 1024)) ]; then ok "the model mapping is resident (Rss $rss kB)"; else fail "the model mapping is resident" "Rss: $rss kB"; fi
if [ -r "/proc/$pid/numa_maps" ]; then
	# what numaplan reads: the N<node>= counts of the line for the model file
	model_pages=0
	while read -r -a words; do
		[ "${words[2]:-}" = "file=$model" ] || continue
		for w in "${words[@]}"; do [[ $w =~ ^N[0-9]+=([0-9]+)$ ]] && model_pages=$((model_pages + BASH_REMATCH[1])); done
	done <"/proc/$pid/numa_maps"
	if [ "$model_pages" -ge $((model_bytes / pagesize)) ]; then
		ok "numa_maps counts every model page on a node ($model_pages)"
	else
		fail "numa_maps counts every model page on a node" "$(grep -F "$model" "/proc/$pid/numa_maps")"
	fi
else
	ok "numa_maps counts every model page on a node # SKIP no /proc/PID/numa_maps (kernel without NUMA)"
fi
anon=$(kb RssAnon "$pid")
if [ "$anon" -ge 8192 ]; then ok "the KV cache is resident (RssAnon $anon kB)"; else fail "the KV cache is resident" "RssAnon: $anon kB"; fi

idle=0
for t in /proc/"$pid"/task/*; do [ "$(<"$t/comm")" = standin-idle ] && idle=$((idle + 1)); done
is "3 idle threads named standin-idle" "$idle" 3

mapfile -t kids < <(children_of "$pid")
is "2 worker processes" "${#kids[@]}" 2
for k in "${kids[@]}"; do
	a=$(kb RssAnon "$k")
	if [ "$a" -ge 4096 ] && ! grep -qF "$model" "/proc/$k/maps"; then
		ok "worker $k holds its own 4 MiB and not the model (RssAnon $a kB)"
	else
		fail "worker $k holds its own 4 MiB and not the model" "RssAnon: $a kB"
	fi
done

# Loading ends 4 s after start.
for _ in $(seq $(($(scaled 5) * 20))); do
	get /health
	[ "$status" = 503 ] || break
	sleep 0.05
done
is "GET /health is 200 once loaded" "$status" 200
is "GET /health says ok" "$body" '{"status":"ok"}'
is "Content-Type is JSON" "$(header content-type)" application/json
is "Connection: close" "$(header connection)" close
is "Content-Length is the body's length" "$(header content-length)" "${#body}"

post /completion '{"prompt":"hi","n_predict":16}'
is "POST /completion is 200" "$status" 200
case $body in *'"content":'*'"tokens":16'*) ok "the completion is JSON with content and tokens" ;; *) fail "the completion is JSON with content and tokens" "$body" ;; esac
case $body in *'"tokens_predicted":16'*) ok "and says how many it produced, as llama.cpp does" ;; *) fail "the completion says tokens_predicted" "$body" ;; esac
is "the completion's Content-Length is right" "$(header content-length)" "${#body}"
post '/completion?stream=false' '{"prompt":"hi"}'
is "a query string does not change the route" "$status" 200
post /v1/completions '{"model":"m","prompt":"hi","max_tokens":16}'
is "POST /v1/completions is 200" "$status" 200
case $body in *'"choices":'*) ok "the OpenAI-style completion has choices" ;; *) fail "the OpenAI-style completion has choices" "$body" ;; esac

# The body may come in pieces, after the headers.
exec {fd}<>"/dev/tcp/$host/$port"
printf 'POST /completion HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n{"prom' >&"$fd"
sleep 0.2
printf 'pt":1}' >&"$fd"
IFS= read -r -d '' -t 10 resp <&"$fd"
exec {fd}>&-
case $resp in "HTTP/1.1 200 "*) ok "a body sent in two pieces is read whole" ;; *) fail "a body sent in two pieces is read whole" "$resp" ;; esac

exchange 'GET /health HTTP/1.0\n\n'
is "an HTTP/1.0 request with bare LF line ends is answered" "$status" 200

get /nope
is "an unknown path is 404" "$status" 404
case $body in '{"error":{"code":404,'*) ok "the 404 has a JSON error body" ;; *) fail "the 404 has a JSON error body" "$body" ;; esac
get /completion
is "GET /completion is 405" "$status" 405
is "the 405 says which method is allowed" "$(header allow)" POST

# Malformed and hostile requests: an answer (or a quiet close), never a crash.
exchange 'garbage\r\n\r\n'
is "a request line without spaces is 400" "$status" 400
exchange 'GET /health\r\n\r\n'
is "a request line without a version is 400" "$status" 400
exchange 'GET health HTTP/1.1\r\n\r\n'
is "a target without / is 400" "$status" 400
exchange 'GET /health HTTP/2.0\r\n\r\n'
is "HTTP/2.0 is 505" "$status" 505
exchange 'GET /health HTTP/1.1\r\nno colon here\r\n\r\n'
is "a header without a colon is 400" "$status" 400
exchange 'GET /health HTTP/1.1\r\nBad Name: x\r\n\r\n'
is "a header name with a space is 400" "$status" 400
exchange 'POST /completion HTTP/1.1\r\nContent-Length: ten\r\n\r\n'
is "a non-numeric Content-Length is 400" "$status" 400
exchange 'POST /completion HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'
is "conflicting Content-Lengths are 400" "$status" 400
exchange 'POST /completion HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n'
is "a huge Content-Length is 413" "$status" 413
exchange 'POST /completion HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'
is "Transfer-Encoding is 501" "$status" 501
exchange 'GET /\0\001\002\377 HTTP/1.1\r\n\r\n'
is "binary garbage with NUL bytes is 400" "$status" 400
printf -v big '%20000s' ''
exchange 'GET /health HTTP/1.1\r\nX-Big: %s\r\n\r\n' "${big// /a}"
is "headers over 16 KiB are 431" "$status" 431
(exec 3<>"/dev/tcp/$host/$port")
(exec 3<>"/dev/tcp/$host/$port" && printf 'GET /hea' >&3)
get /health
is "a client that leaves without a request, or halfway through one, does no harm" "$status" 200
# A client that stalls must not hold the single-threaded server: 408 at the 5 s deadline.
exchange 'POST /completion HTTP/1.1\r\nContent-Length: 100\r\n\r\n{"short":1}'
is "a body that stops coming is 408 after the deadline" "$status" 408
get /health
is "the server still answers after all that" "$status" 200

# SIGTERM: a clean stop.
kill -TERM "$pid"
stopped 10
is "SIGTERM: exit status 0" "${rc:-still running}" 0
if wait_gone 5 "${kids[@]}"; then ok "the workers are gone with it"; else fail "the workers are gone with it"; fi
if [ ! -e "$scratch/standin.pid" ]; then ok "the pidfile is removed at exit"; else fail "the pidfile is removed at exit"; fi
if grep -q 'stopping on signal 15' "$errlog"; then
	ok "it says it stops on SIGTERM"
else
	fail "it says it stops on SIGTERM" "$(tail -3 "$errlog")"
fi

# ---- --listen-after, --fail-warmup, SIGINT ----

if port=$(free_port); then
	start late --listen "127.0.0.1:$port" --listen-after 2 --fail-warmup
	sleep 0.5
	if refused "$port"; then ok "--listen-after: connections are refused at first"; else fail "--listen-after: connections are refused at first"; fi
	if wait_ready 10; then ok "--listen-after: it listens later"; else fail "--listen-after: it listens later" "$(cat "$errlog")"; fi
	get /health
	is "--fail-warmup: /health is still 200" "$status" 200
	post /completion '{"prompt":"hi"}'
	is "--fail-warmup: POST /completion is 500" "$status" 500
	case $body in '{"error":{"code":500,'*) ok "--fail-warmup: the 500 has a JSON error body" ;; *) fail "--fail-warmup: the 500 has a JSON error body" "$body" ;; esac
	kill -INT "$pid"
	stopped 10
	is "SIGINT: exit status 0" "${rc:-still running}" 0
else
	fail "--listen-after: a free port" "none found"
fi

# ---- IPv6 ----

start v6 --listen '[::1]:0'
if wait_ready 10; then
	get /health
	is "--listen [::1]:0 answers over IPv6" "$status" 200
	kill -TERM "$pid"
	stopped 10
elif stopped 5 && grep -q 'cannot listen' "$errlog"; then
	ok "--listen [::1]:0 answers over IPv6 # SKIP no IPv6 loopback here"
else
	fail "--listen [::1]:0 answers over IPv6" "$(cat "$errlog")"
fi

# ---- --remote-penalty: slower while its memory is away from --near-node ----

# Its KV cache is on the node this test runs on: the penalty when that is not --near-node's.
here_node=$(grep -m1 -oE ' N[0-9]+=' /proc/self/numa_maps 2>/dev/null | tr -dc '0-9')
timed_post() { # timed_post: the milliseconds of one POST /completion, in ms_taken
	local t0=$EPOCHREALTIME
	post /completion '{"prompt":"hi"}'
	ms_taken=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
}
if [ -z "$here_node" ]; then
	ok "--remote-penalty # SKIP no NUMA node to be seen here"
else
	start near --listen 127.0.0.1:0 --kv-mib 4 --near-node "$here_node" --remote-penalty 0.4
	if wait_ready 10; then
		timed_post
		# The server says whether it paid: the clock of a busy machine cannot tell.
		if [ "$status" = 200 ] && [ "$(header x-standin-penalty)" = no ]; then ok "memory on --near-node: no penalty (${ms_taken} ms)"; else
			fail "memory on --near-node: no penalty" "status $status, X-Standin-Penalty: $(header x-standin-penalty)"; fi
		kill -TERM "$pid"
		stopped 10
	else
		fail "--near-node: the server starts" "$(cat "$errlog")"
	fi
	start far --listen 127.0.0.1:0 --kv-mib 4 --near-node $((here_node + 1)) --remote-penalty 0.4
	if wait_ready 10; then
		timed_post
		if [ "$status" = 200 ] && [ "$(header x-standin-penalty)" = yes ] && [ "$ms_taken" -ge 400 ]; then
			ok "memory away from --near-node: 0.4 s more (${ms_taken} ms)"
		else
			fail "memory away from --near-node: 0.4 s more" "status $status, $ms_taken ms, X-Standin-Penalty: $(header x-standin-penalty)"
		fi
		get /health
		is "the penalty is the completions', not /health's" "$status" 200
		kill -TERM "$pid"
		stopped 10
	else
		fail "--remote-penalty: the server starts" "$(cat "$errlog")"
	fi
fi

# ---- --fail-status, and workers that outlive a SIGKILLed parent ----

start failing --listen 127.0.0.1:0 --fail-status 404 --workers 2
if wait_ready 10; then
	post /v1/completions '{"prompt":"hi"}'
	is "--fail-status 404: POST /v1/completions is 404" "$status" 404
	mapfile -t kids < <(children_of "$pid")
	is "2 workers before the SIGKILL" "${#kids[@]}" 2
	kill -KILL "$pid"
	stopped 5 2>/dev/null # (quiet: bash reports the SIGKILL)
	if wait_gone 5 "${kids[@]}"; then ok "workers die when the parent is SIGKILLed"; else fail "workers die when the parent is SIGKILLed" "left: ${kids[*]}"; fi
else
	fail "--fail-status: the server starts" "$(cat "$errlog")"
fi

# ---- --rank-devices: a worker per device, each bound to its entry of the CPU lists ----

cpu0=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
NUMAPLAN_RANK_CPUS="$cpu0;$cpu0" start ranks --listen 127.0.0.1:0 --rank-devices 0000:00:00.0,0000:00:01.0 \
	--worker-mib 1
if wait_ready 10; then
	mapfile -t kids < <(children_of "$pid")
	names=
	for k in "${kids[@]}"; do names+="$(cat "/proc/$k/comm" 2>/dev/null) $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$k/status") "; done
	case $names in
	*"standin-rank0 $cpu0 "*"standin-rank1 $cpu0 "* | *"standin-rank1 $cpu0 "*"standin-rank0 $cpu0 "*)
		ok "a rank per device, each bound to its entry of \$NUMAPLAN_RANK_CPUS" ;;
	*) fail "a rank per device, each bound to its entry of \$NUMAPLAN_RANK_CPUS" "$names" ;;
	esac
	kill "$pid"
	stopped 5
	if wait_gone 5 "${kids[@]}"; then ok "the ranks stop with it"; else fail "the ranks stop with it"; fi
else
	fail "--rank-devices: the server starts" "$(cat "$errlog")"
fi

done_testing
