#!/bin/bash
# hugepages =: apply reserves the pool on the replica's node 1 and records it, the replica's huge
# pages come from it, verify's hugepages check passes; a node whose memory is taken grants less,
# and apply says so and exits 3; remove gives back what numaplan reserved and nothing else.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

hp_conf() { # hp_conf SIZE
	llama_conf
	printf 'hugepages = %s\n' "$1" >>"$CONF"
}
echo 2 >/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages # an admin's, on node 0
make_replica_unit $LLAMA 8080 "$MODEL" --huge-mib 16
hp_conf 16M
pool0=$(pool_of 0)
out=$("$NUMAPLAN" apply --json 2>/tmp/apply.err)
rc=$?
flat=$(json_flat <<<"$out")
vm_check_eq "apply exits 0" "$rc" 0
vm_check_eq "node 1's pool: 8 pages of 2 MiB" "$(pool_of 1)" 8
vm_check_eq "node 0's pool is left as it was" "$(pool_of 0)" "$pool0"
vm_check_eq "apply's JSON: 8 reserved on node 1" "$(json_get hugepages.0.node <<<"$flat")/$(json_get hugepages.0.reserved <<<"$flat")" 1/8
vm_check_eq "numaplan records its own, beside others' (none there)" "$(grep -v '^#' /run/numaplan/hugepages)" "1 2048 8 0"
again=$("$NUMAPLAN" apply 2>&1)
vm_check_match "a second apply changes nothing" "$again" "nothing to do"
systemctl start $LLAMA
wait_ready 8080 120 || vm_not_ok "the replica serves with its huge pages"
pid=$(systemctl show -P MainPID $LLAMA)
huge=$(grep -c 'huge.*N1=8 kernelpagesize_kB=2048' "/proc/$pid/numa_maps")
vm_check_eq "its 8 huge pages sit on node 1 (numa_maps)" "$huge" 1
vm_check_eq "the pool's pages are in use" "$(cat /sys/devices/system/node/node1/hugepages/hugepages-2048kB/free_hugepages)" 0
verify_json $LLAMA
vm_check_eq "verify's hugepages check passes" "$(check_of "$FLAT" 0 hugepages ok)" true
vm_check_eq "and verify passes" "$VERIFY_RC" 0 || show_failures "$FLAT"
vm_diag "hugepages: $(check_of "$FLAT" 0 hugepages want): $(check_of "$FLAT" 0 hugepages got)"
systemctl stop $LLAMA

# Node 1's memory taken by a tmpfs file (unreclaimable without swap): the kernel grants less.
mkdir -p /mnt/fill
mount -t tmpfs -o size=900M,mpol=bind:1 fill /mnt/fill
free1=$(awk '/MemFree/ { print $4 }' /sys/devices/system/node/node1/meminfo)
fallocate -l $(((free1 - 96 * 1024) * 1024)) /mnt/fill/x
hp_conf 300M
"$NUMAPLAN" apply --json >/tmp/apply.json 2>/tmp/apply.err
rc=$?
err=$(cat /tmp/apply.err)
flat=$(json_flat </tmp/apply.json)
got=$(json_get hugepages.0.reserved <<<"$flat")
vm_check_eq "a shortfall: apply exits 3" "$rc" 3
vm_check_match "and says it plainly" "$err" "node 1: the plan needs 150 huge pages of 2.0 MiB there and the kernel granted $got \(its memory is in use or fragmented\)"
vm_check_eq "its JSON marks the pool short" "$(json_get hugepages.0.short <<<"$flat")" true
vm_check_eq "the drop-in is written all the same" "$(grep -c '^NUMAMask=1$' "$UNITS/$LLAMA.d/50-numaplan.conf")" 1
vm_check_eq "what was granted is recorded" "$(grep -v '^#' /run/numaplan/hugepages)" "1 2048 $got 0"
vm_diag "node 1 with $((free1 / 1024 - 96)) MiB taken: asked 150 pages, granted $got"
rm -f /mnt/fill/x
umount /mnt/fill

out=$("$NUMAPLAN" remove --json)
flat=$(json_flat <<<"$out")
vm_check_eq "remove gives node 1's pool back" "$(pool_of 1)" 0
vm_check_eq "and leaves the admin's on node 0" "$(pool_of 0)" "$pool0"
vm_check_eq "and records none" "$(grep -vc '^#' /run/numaplan/hugepages)" 0
vm_check_eq "remove's JSON: node 1 back to 0" "$(json_get hugepages.0.nr_hugepages_after <<<"$flat")" 0
echo 0 >/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages
make_replica_unit $LLAMA 8080 "$MODEL"
llama_conf
vm_done
