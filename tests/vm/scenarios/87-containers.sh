#!/bin/bash
# Replicas in containers, with Debian's docker.io and podman: docker's server runs in dockerd's
# cgroup outside the unit, podman's with --cgroups=split in a cgroup below it. verify must check
# the server where it runs and never pass a server it did not look at.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

model=/srv/models/boxed.gguf
make_model "$model"
port=8091
url=http://127.0.0.1:$port/completion
serve="/numaplan-standin --listen 127.0.0.1:$port --model $model --kv-mib 64 --workers 1 --worker-mib 8 --threads 2"

# The image: the stand-in and the C library it links, from a tarball (no registry to pull from).
img=$(mktemp -d)
mkdir -p "$img/lib/x86_64-linux-gnu" "$img/lib64" "$img/tmp" "$img/srv/models"
cp "$STANDIN" "$img/numaplan-standin"
cp /lib/x86_64-linux-gnu/libc.so.6 "$img/lib/x86_64-linux-gnu/"
cp /lib64/ld-linux-x86-64.so.2 "$img/lib64/"
tar -C "$img" -cf /tmp/standin.tar .

# No network device in the guest: no bridge, no iptables; containers use the host's network.
mkdir -p /etc/docker
printf '{"iptables": false, "ip6tables": false, "bridge": "none"}\n' >/etc/docker/daemon.json
t0=$EPOCHREALTIME
vm_check "dockerd starts" systemctl start docker.service
vm_diag "dockerd took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s to start"
vm_check "docker import of the stand-in's tarball" docker import /tmp/standin.tar numaplan-standin:test
vm_check "podman import of the same" podman import /tmp/standin.tar numaplan-standin:test

replica_conf() { # replica_conf UNIT [EXTRA-LINE]: the replica on node 1, by its device
	write_conf "[replica boxed]
unit = $1
accelerators = 41:00.0
memory = 128M
warmup-url = $url
min-local = ${min_local:-99%}
${2:-}"
}

docker_unit() { # docker_unit UNIT [RUN-OPTION...]
	local unit=$1
	shift
	cat >"$UNITS/$unit" <<UNIT
[Service]
ExecStartPre=-/usr/bin/docker rm -f boxed
ExecStart=/usr/bin/docker run --rm --name boxed --network=host -v /srv/models:/srv/models:ro $* numaplan-standin:test $serve
ExecStop=/usr/bin/docker stop -t 5 boxed
UNIT
	systemctl daemon-reload
}

start_boxed() { # start_boxed UNIT: starts it and waits for the server
	# The engines' binaries were read into the page cache wherever the imports ran: read again
	# under the unit's policy, as at a boot, or their pages count against the replica.
	drop_caches
	systemctl start "$1"
	wait_ready "$port" 120 || vm_not_ok "$1 serves /health" "$(journalctl -u "$1" -n 20 --no-pager)"
}

stop_boxed() {
	systemctl stop "$1"
	docker rm -f boxed >/dev/null 2>&1
	podman rm -f boxed >/dev/null 2>&1
}

on_node1() { # on_node1 FLAT WHAT [PERCENT]: at least PERCENT (99) of the pages verify counted are on node 1
	local share
	share=$(locality "$1" 0)
	if at_least "$share" "${3:-99}"; then vm_ok "$2: at least ${3:-99}% of its pages are on node 1 ($share%)"; else
		vm_not_ok "$2: at least ${3:-99}% of its pages are on node 1" "$share%"; fi
	vm_diag "$2: $share% of its pages on node 1"
}

# ---- docker run with the plan's cpuset ----
docker_unit boxed-docker.service '--cpuset-cpus=${NUMAPLAN_CPUS}' '--cpuset-mems=${NUMAPLAN_MEMS}'
replica_conf boxed-docker.service "container = boxed"
vm_check "apply" "$NUMAPLAN" apply
start_boxed boxed-docker.service
cid=$(docker inspect -f '{{.Id}}' boxed)
vm_check_eq "docker gave the container the plan's CPUs" "$(docker inspect -f '{{.HostConfig.CpusetCpus}}' boxed)" 2-3
verify_json boxed-docker.service
flat=$FLAT
vm_check_eq "verify passes" "$VERIFY_RC" 0
show_failures "$flat"
vm_check_eq "container passes" "$(check_of "$flat" 0 container ok)" true
vm_check_match "it is docker's container" "$(check_of "$flat" 0 container got)" "^docker container boxed"
vm_check_eq "verify found it through docker's API" "$(json_get units.0.container.id <<<"$flat")" "$cid"
cg=$(json_get units.0.processes.0.cgroup <<<"$flat")
vm_check_match "the processes checked are the container's, in docker's scope" "$cg" "docker-$cid\.scope"
vm_check_match "the server's own" "$(json_get units.0.processes.0.comm <<<"$flat")" "^numaplan-stand"
on_node1 "$flat" "docker container with --cpuset flags"

# The same unit, its replica naming no container: only the client is in the unit.
replica_conf boxed-docker.service
verify_json boxed-docker.service
flat=$FLAT
vm_check_eq "without container =, verify fails" "$VERIFY_RC" 1
vm_check_eq "container fails" "$(check_of "$flat" 0 container ok)" false
vm_check_match "and says where the server is" "$(check_of "$flat" 0 container detail)" \
	"the server runs outside the unit: set container = NAME"
vm_check_match "having seen only the client" "$(check_of "$flat" 0 container got)" "^only docker \(pid"
stop_boxed boxed-docker.service

# ---- docker run without the flags: the container runs unpinned ----
docker_unit boxed-docker.service
replica_conf boxed-docker.service "container = boxed"
"$NUMAPLAN" apply >/dev/null 2>&1
start_boxed boxed-docker.service
verify_json boxed-docker.service
flat=$FLAT
vm_check_eq "docker without --cpuset flags: verify fails" "$VERIFY_RC" 1
vm_check_match "naming the missing flags" "$(check_of "$flat" 0 container detail)" \
	'add --cpuset-cpus=\$\{NUMAPLAN_CPUS\} --cpuset-mems=\$\{NUMAPLAN_MEMS\}'
vm_check_eq "and its threads run outside the plan" "$(check_of "$flat" 0 task-affinity ok)" false
stop_boxed boxed-docker.service
systemctl stop docker.service docker.socket containerd.service

# ---- podman run --cgroups=split: the container below the unit's cgroup ----
cat >"$UNITS/boxed-podman.service" <<UNIT
[Service]
Delegate=yes
ExecStartPre=-/usr/bin/podman rm -f boxed
ExecStart=/usr/bin/podman run --rm --cgroups=split --name boxed --network=host -v /srv/models:/srv/models:ro numaplan-standin:test $serve
ExecStop=/usr/bin/podman stop -t 5 boxed
UNIT
systemctl daemon-reload
# podman and conmon, counted with the server, map the system's shared libraries, whose page cache
# the guest's other processes keep on node 0 (about 1% of the pages here): no drop of the caches
# moves those.
min_local=97% replica_conf boxed-podman.service
"$NUMAPLAN" apply >/dev/null 2>&1
start_boxed boxed-podman.service
ucg=$(systemctl show -P ControlGroup boxed-podman.service)
verify_json boxed-podman.service
flat=$FLAT
vm_check_eq "podman --cgroups=split: verify passes" "$VERIFY_RC" 0
show_failures "$flat"
server_cg=
for i in 0 1 2 3 4 5 6 7; do
	comm=$(json_get "units.0.processes.$i.comm" <<<"$flat") || break
	case $comm in numaplan-stand*) server_cg=$(json_get "units.0.processes.$i.cgroup" <<<"$flat") ;; esac
done
vm_check_match "the container's server is counted, in a cgroup below the unit's" "$server_cg" "^$ucg/."
vm_check_match "task-affinity saw its threads" "$(check_of "$flat" 0 task-affinity got)" "process(es)?, [0-9]+ threads within"
on_node1 "$flat" "podman container with --cgroups=split" 97
stop_boxed boxed-podman.service

rm -f "$UNITS/boxed-docker.service" "$UNITS/boxed-podman.service" /tmp/standin.tar
rm -rf "$img"
"$NUMAPLAN" remove >/dev/null 2>&1
llama_conf
"$NUMAPLAN" apply >/dev/null 2>&1
vm_done
