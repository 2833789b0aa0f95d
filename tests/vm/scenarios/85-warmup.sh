#!/bin/bash
# A failing warm-up fails verify; a server that stays "not ready" (503) is retried only until
# warmup-timeout.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

model=/srv/models/small.gguf
make_model "$model"
make_replica_unit failing.service 8082 "$model" --fail-warmup
make_replica_unit loading.service 8083 "$model" --ready-after 600
llama_conf
printf '\n[replica failing]\nunit = failing.service\nmemory = 200M\nwarmup-url = http://127.0.0.1:8082/completion\n' >>"$CONF"
printf '\n[replica loading]\nunit = loading.service\nmemory = 200M\nwarmup-url = http://127.0.0.1:8083/completion\nwarmup-timeout = 4s\n' >>"$CONF"
"$NUMAPLAN" apply >/dev/null 2>&1
systemctl start failing.service loading.service
wait_ready 8082 120 || vm_not_ok "the failing replica serves /health"
wait_ready 8083 120 HTTP || vm_not_ok "the loading replica listens"

verify_json failing.service
flat=$FLAT
vm_check_eq "verify exits 1" "$VERIFY_RC" 1
vm_check_eq "warmup fails" "$(check_of "$flat" 0 warmup ok)" false
vm_check_eq "on HTTP 500" "$(check_of "$flat" 0 warmup got)" "HTTP 500"

start=$SECONDS
verify_json loading.service
flat=$FLAT
took=$((SECONDS - start))
vm_check_eq "a server answering 503 fails the warm-up" "$(check_of "$flat" 0 warmup ok)" false
vm_check_match "after warmup-timeout" "$(check_of "$flat" 0 warmup detail)" "503.*warmup-timeout reached"
if [ $took -lt "$(vm_seconds 30)" ]; then vm_ok "verify did not outlast the 4 s warm-up timeout by much (${took} s in all)"; else
	vm_not_ok "verify bounded by warmup-timeout" "took $took s"; fi

systemctl stop failing.service loading.service
rm -f "$UNITS/failing.service" "$UNITS/loading.service"
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
vm_done
