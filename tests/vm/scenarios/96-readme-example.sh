#!/bin/bash
# The README's worked example, run as it is written, with the Debian package: the unit is
# examples/llama-server@.service, the configuration is the README's block, and the commands of
# its steps run as the README gives them. What the guest cannot be is said and made up for:
#   - no QEMU device is a GPU: both display devices become NVIDIA 3D controllers, as in
#     40-nvidia, so that per = accelerator gives one replica a node;
#   - Debian 12 has no llama-server: /usr/local/bin/llama-server runs the real engine
#     (llama.cpp through node-llama-cpp), which takes llama-server's options;
#   - a node has 1 GiB here: memory = 48G becomes 256M (the only change to the configuration);
#   - two GPUs, not eight: llama-server@{0..7} becomes llama-server@{0..1};
#   - the model is the engine's random-weight one, at the README's path.
# Extras: README.md, llama-server@.service, numaplan_*.deb.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"
. "$SCENARIO_DIR/engine.lib"

deb=$(ls "$EXTRA"/numaplan_*.deb 2>/dev/null | head -n 1)
if [ ! -s "$deb" ]; then
	vm_skip "the README's worked example" "no .deb among the extras: the host's pkg tier says why"
	vm_done
fi
engine_mount
readme=$EXTRA/README.md
export DEBIAN_FRONTEND=noninteractive
# The package's binary first, as on the admin's host (the other scenarios use /usr/local/bin's).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
units=(llama-server@0.service llama-server@1.service)

# readme_block HEADING LANG: the first ```LANG block after the line starting with HEADING.
readme_block() {
	awk -v head="$1" -v open="\`\`\`$2" '
	index($0, head) == 1 { seen = 1; next }
	seen && !inside && $0 == open { inside = 1; next }
	inside && $0 == "```" { exit }
	inside { print }' "$readme"
}

saved=$PWD/saved
mkdir "$saved"
[ -e /etc/numaplan ] && mv /etc/numaplan "$saved/"
for u in llama-server@.service "${units[@]}"; do
	[ -e "$UNITS/$u" ] && mv "$UNITS/$u" "$saved/"
	[ -e "$UNITS/$u.d" ] && mv "$UNITS/$u.d" "$saved/"
done
dev0=/sys/bus/pci/devices/0000:21:00.0 dev1=/sys/bus/pci/devices/$GPU
fake=$(mktemp -d)
cleanup() {
	systemctl stop "${units[@]}" 2>/dev/null
	if dpkg -s numaplan >/dev/null 2>&1; then
		systemctl disable -q numaplan.service numaplan-verify.timer 2>/dev/null
		apt-get purge -y -q numaplan >/dev/null 2>&1
	fi
	rm -rf /etc/numaplan "$UNITS/llama-server@.service" "$UNITS"/llama-server@*.service.d \
		/usr/local/bin/llama-server /srv/models/llama-3.1-8b-q4.gguf
	for f in modalias class vendor device; do umount "$dev0/$f" "$dev1/$f" 2>/dev/null; done
	rm -rf "$fake"
	for f in "$saved"/*; do [ -e "$f" ] && mv "$f" "$UNITS/"; done
	[ -e "$UNITS/numaplan" ] && mv "$UNITS/numaplan" /etc/
	systemctl daemon-reload
}
trap cleanup EXIT

# The host: two GPUs, one a node (40-nvidia's H200s), llama-server, the model.
echo 0x030200 >"$fake/class"
echo 0x10de >"$fake/vendor"
echo 0x2335 >"$fake/device"
echo pci:v000010DEd00002335sv000010DEsd00000000bc03sc02i00 >"$fake/modalias"
for dev in "$dev0" "$dev1"; do
	for f in modalias class vendor device; do mount --bind "$fake/$f" "$dev/$f"; done
done
# Node asks for a home (os.homedir()), and this guest has no nss-systemd to name a dynamic user's:
# the dynamic user's private /tmp is one.
cat >/usr/local/bin/llama-server <<EOF
#!/bin/sh
# llama.cpp through node-llama-cpp, taking llama-server's options
export HOME=\${HOME:-/tmp}
exec $ENGINE_DIR/node $ENGINE_DIR/server.mjs "\$@"
EOF
chmod 0755 /usr/local/bin/llama-server
mkdir -p /srv/models
cp "$ENGINE_MODEL" /srv/models/llama-3.1-8b-q4.gguf
chmod 0644 /srv/models/llama-3.1-8b-q4.gguf

# Install: the package, as the README's quick start says.
vm_check "apt-get install ./${deb##*/}" apt-get install -y -q "$deb"

# Step 1: the unit, from examples/; the replicas run, unplaced, as before numaplan.
cp "$EXTRA/llama-server@.service" "$UNITS/"
unit_block=$(readme_block "1. The unit" ini)
missing=$(grep . <<<"$unit_block" | while IFS= read -r line; do
	grep -qxF -- "$line" "$UNITS/llama-server@.service" || echo "$line"
done)
vm_check_eq "step 1: the README's unit is examples/llama-server@.service's" "$missing" ""
systemctl daemon-reload
# serving: both replicas answer /health, or a failed point and the scenario's end.
serving() {
	local port
	for port in 8180 8181; do
		wait_ready $port 120 && continue
		vm_not_ok "llama-server on port $port answers /health ($1)" \
			"$(journalctl -b -u 'llama-server@*' -o cat | tail -n 20)"
		vm_done
	done
}
vm_check "the replicas start unplaced, on the unit's own values" systemctl start "${units[@]}"
serving "started unplaced"

# Step 2: the configuration, the README's block with the guest's memory.
conf=$(readme_block "2. The configuration" ini)
vm_check_match "step 2: the README's configuration names the unit and the model" "$conf" \
	'unit = llama-server@%i.service'
vm_diag "memory = 48G becomes 256M: a node of this guest has 1 GiB"
mkdir -p /etc/numaplan
sed 's/^memory = 48G$/memory = 256M/' <<<"$conf" >"$CONF"
vm_check_eq "one line changed" "$(diff <(echo "$conf") "$CONF" | grep -c '^[<>]')" 2

vm_check "numaplan show" numaplan show --no-pager
out=$(numaplan plan --no-pager 2>&1)
vm_check_eq "step 3: numaplan plan" "$?" 0
# Each GPU's node as the guest has it now (an earlier scenario may have swapped them), and that
# node's CPUs: 0-1 on node 0, 2-3 on node 1.
n0=$(cat "$dev0/numa_node") n1=$(cat "$dev1/numa_node")
cpus_of() { [ "$1" = 0 ] && echo 0-1 || echo 2-3; }
vm_check_match "it places llama-0 on its GPU's node $n0" "$out" \
	"llama-0 +llama-server@0\\.service +0000:21:00\\.0 +$n0 +bind +$(cpus_of "$n0") \\(numa\\) +256\\.0 MiB"
vm_check_match "and llama-1 on node $n1" "$out" \
	"llama-1 +llama-server@1\\.service +0000:41:00\\.0 +$n1 +bind +$(cpus_of "$n1") \\(numa\\) +256\\.0 MiB"

# Step 4: apply, restart, verify, each command as the README has it.
commands=$(readme_block "4. Apply, restart, verify" sh)
vm_check_eq "step 4 has three commands" "$(grep -c . <<<"$commands")" 3
vm_check_match "its restart names eight replicas" "$commands" 'llama-server@\{0\.\.7\}'
commands=${commands//'{0..7}'/'{0..1}'}
while IFS= read -r line; do
	[ -n "$line" ] || continue
	out=$(bash -c "$line" 2>&1)
	rc=$?
	vm_check_eq "step 4: ${line%%  *}" "$rc" 0
	[ "$rc" = 0 ] || vm_diag "$out"
done <<<"$commands"
vm_diag "numaplan verify said: $out"
vm_check_match "verify: llama-server@0 pinned as planned" "$out" 'llama-server@0.service: pinned as planned'
vm_check_match "verify: llama-server@1 pinned as planned" "$out" 'llama-server@1.service: pinned as planned'
vm_check_eq "llama-server@1 runs on node $n1's CPUs" "$(systemctl show -P AllowedCPUs llama-server@1.service)" \
	"$(cpus_of "$n1")"
pid=$(systemctl show -P MainPID llama-server@1.service)
vm_check_match "and maps node $n1's copy of the model (model-copies = per-node)" \
	"$(awk '/llama-3\.1-8b-q4\.gguf/ { print $6; exit }' "/proc/$pid/maps")" \
	"^/run/numaplan/models/node$n1/.*llama-3\\.1-8b-q4\\.gguf\$"

# Step 5: keep it.
keep='systemctl enable --now numaplan.service numaplan-verify.timer'
vm_check "step 5 says: $keep" grep -qF "\`$keep\`" "$readme"
vm_check "$keep" bash -c "$keep"

# Step 6: undo it all.
off='systemctl disable --now numaplan.service numaplan-verify.timer'
vm_check "step 6 says: $off" grep -qF "\`$off\`" "$readme"
vm_check "$off" bash -c "$off"
vm_check "step 6 says: numaplan remove" grep -qF '`numaplan remove`' "$readme"
vm_check "numaplan remove" numaplan remove
vm_check_eq "no drop-in left" "$(ls -d "$UNITS"/llama-server@*.service.d 2>/dev/null)" ""
vm_check "restart the replicas" systemctl restart "${units[@]}"
serving "restarted after remove"
vm_check_eq "they run unplaced again" "$(systemctl show -P AllowedCPUs llama-server@1.service)" ""
vm_done
