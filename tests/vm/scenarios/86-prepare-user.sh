#!/bin/bash
# prepare runs as root (ExecStartPre=+) for a unit whose server runs as another user (User=nobody,
# then DynamicUser=yes): it opens the model's files as that user, so a file only root may read is
# not read, a link out of the model's tree (to /) is skipped with one warning, and the pages the
# server may read still move onto the replica's node 1.
. "$VM_LIB"
. "$SCENARIO_DIR/numaplan.lib"

dir=/srv/models/user-model
unit=prep-user.service
mkdir -p "$dir"
dd if=/dev/zero of="$dir/weights.gguf" bs=1M count=8 status=none
dd if=/dev/zero of="$dir/secret.key" bs=1M count=4 status=none
chmod 0600 "$dir/secret.key"
ln -sfn / "$dir/root"
write_conf "[replica prep]
unit = $unit
accelerators = 41:00.0
memory = 64M
model = $dir"

for who in User=nobody DynamicUser=yes; do
	printf '[Service]\nType=oneshot\n%s\nExecStart=/bin/true\n' "$who" >"$UNITS/$unit"
	"$NUMAPLAN" apply >/dev/null 2>&1
	drop_caches
	numactl --membind=0 cat "$dir/weights.gguf" "$dir/secret.key" >/dev/null
	journal_mark
	vm_check "$who: the unit starts" systemctl start "$unit"
	log=$(unit_said "$unit" "model page cache:")
	vm_check_match "$who: the file only root may read is not read" "$log" "$dir/secret.key: Permission denied"
	vm_check_match "$who: the link to / is skipped, said once" "$log" "$dir/root: a link out of the model's tree \(to /\): not followed"
	vm_check_eq "$who: one warning about links" "$(grep -c 'link out of' <<<"$log")" 1
	vm_check_match "$who: the server's file moved onto node 1" "$log" "8.0 MiB cached, 0 of 2048 pages on node 1 already; moved 2048 pages"
	now=$("$NUMAPLAN" prepare --dry-run --nodes 1 -- "$dir/weights.gguf" 2>&1)
	vm_check_match "$who: its pages are on node 1 now" "$now" "2048 of 2048 pages on node 1 already"
	vm_diag "$who: $(grep 'model page cache' <<<"$log")"
done

"$NUMAPLAN" remove "$unit" >/dev/null 2>&1
rm -rf "$dir" "$UNITS/$unit" "$UNITS/$unit.d"
systemctl daemon-reload
llama_conf
vm_done
