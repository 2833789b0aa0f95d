#!/bin/bash
# Builds, or reuses, the guest of numaplan's end-to-end tier: a Debian 12 root with systemd as PID 1
# on an ext4 disk image, an uncompressed kernel and a tiny initrd. Prints the image's directory on
# stdout (its last line); everything else goes to stderr.
#
# Usage: tests/vm/build-image.sh [--force] [--prune]
#   --force  rebuild even when the cached image exists
#   --prune  afterwards, delete cached images of other recipes
#
# The image lies in ${NUMAPLAN_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numaplan-vm}/HASH/, HASH
# being a hash of the recipe: this script (package list included) and tests/vm/guest/*. The same
# recipe on the same machine reuses it without building anything. A build happens in a temporary
# directory beside it, under a lock, and is renamed into place only when complete; boots never
# write to it (they use snapshot=on or an overlay).
#
# Needs root and: debootstrap, e2fsprogs (mkfs.ext4 -d), cpio, xz/gzip/zstd, flock, and the Debian
# archive. The mirror comes from this host's apt sources (or $NUMAPLAN_VM_MIRROR), read at run time.
#
# HASH/ holds: root.ext4 (the disk), vmlinux (kernel), initrd.img, cmdline (kernel arguments),
# info (kernel version, build time).
set -euo pipefail

SUITE=bookworm
PACKAGES=(
	systemd systemd-sysv udev kmod procps util-linux dbus
	numactl pciutils linux-image-amd64 busybox-static
	# numaplan's runtime libraries (most are dlopen()ed):
	libpci3 pci.ids libjson-c5 libinih1 libsystemd0 libnuma1 libcurl4 libarchive13
	# replicas in containers (dockerd needs apparmor_parser while the kernel has AppArmor on):
	docker.io podman apparmor
	# the accelerator's data path: irqbalance, and soft-RoCE on a virtio adapter (the rdma tool of
	# iproute2, the rxe provider of rdma-core's libibverbs):
	irqbalance iproute2 rdma-core ibverbs-providers ibverbs-utils
	# the Ansible collection's modules, run in the guest; the real engine's Node needs libstdc++:
	ansible-core python3 libstdc++6
	# where a command in the guest waits, when a scenario is slow (strace -f -tt -T):
	strace
	# what debootstrap does not resolve by itself: packages that provide a virtual dependency
	# (container-network-stack, python3-cffi-backend-api-*)
	containernetworking-plugins python3-cffi-backend
)
# Loaded by the initrd, with their dependencies, where they are modules rather than built in.
INITRD_MODULES=(virtio_pci virtio_blk ext4 crc32c_generic 9p 9pnet 9pnet_virtio netfs fscache)
MASK_GENERATORS=(
	systemd-cryptsetup-generator systemd-integritysetup-generator systemd-veritysetup-generator
	systemd-gpt-auto-generator systemd-hibernate-resume-generator systemd-system-update-generator
	systemd-sysv-generator systemd-rc-local-generator systemd-getty-generator systemd-run-generator
	systemd-bless-boot-generator
)
MASK_UNITS=(
	modprobe@dm_mod.service modprobe@loop.service modprobe@efi_pstore.service modprobe@drm.service
	systemd-pstore.service e2scrub_reap.service apt-daily.timer apt-daily-upgrade.timer
	dpkg-db-backup.timer e2scrub_all.timer fstrim.timer
)
TARGET=numaplan-test.target
CMDLINE="root=/dev/vda rw console=ttyS0 8250.nr_uarts=1 quiet loglevel=3 systemd.show_status=false panic=-1 mitigations=off systemd.unit=$TARGET"
MIN_IMAGE_MB=1536

here=$(cd "$(dirname "$0")" && pwd)
force=no
prune=no
for arg in "$@"; do
	case $arg in
	--force) force=yes ;;
	--prune) prune=yes ;;
	*) echo "usage: $0 [--force] [--prune]" >&2; exit 2 ;;
	esac
done

say() { echo "build-image: $*" >&2; }
die() { say "error: $*"; exit 1; }
now() { echo "${EPOCHREALTIME/[.,]/}"; } # microseconds
secs() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1e6 }'; }

recipe_hash() {
	(
		cd "$here"
		for f in build-image.sh guest/*; do
			printf '== %s\n' "$f"
			cat "$f"
		done
	) | sha256sum | cut -c1-16
}

cache=${NUMAPLAN_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numaplan-vm}
hash=$(recipe_hash)
dest=$cache/$hash

prune_others() {
	[ "$prune" = yes ] || return 0
	local d
	for d in "$cache"/*/; do
		d=${d%/}
		if [ "$d" = "$dest" ] || [ ! -f "$d/info" ]; then
			continue
		fi
		say "pruning $d"
		rm -rf --one-file-system -- "$d"
		rm -f -- "$cache/.lock-${d##*/}"
	done
}

if [ "$force" = no ] && [ -f "$dest/info" ]; then
	say "reusing $dest (recipe $hash; no build)"
	prune_others
	echo "$dest"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "building the image needs root (debootstrap); cached images need none"
for tool in debootstrap mkfs.ext4 cpio flock; do
	command -v "$tool" >/dev/null || die "$tool is missing (apt-get install debootstrap e2fsprogs cpio util-linux)"
done

mkdir -p "$cache"
exec 9>"$cache/.lock-$hash"
if ! flock -n 9; then
	say "another build of $hash is running; waiting for it"
	flock 9
fi
if [ "$force" = no ] && [ -f "$dest/info" ]; then
	say "reusing $dest (built meanwhile by another run)"
	prune_others
	echo "$dest"
	exit 0
fi

# The mirror: NUMAPLAN_VM_MIRROR, else the first Debian entry of this host's apt sources whose
# suite is $SUITE, else the first one of a main suite (no -security, -updates, ...).
find_mirror() {
	if [ -n "${NUMAPLAN_VM_MIRROR:-}" ]; then
		echo "$NUMAPLAN_VM_MIRROR"
		return
	fi
	local files=()
	[ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
	local f
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v suite="$SUITE" '
		function consider(uri, s) {
			if (uri !~ /^(https?|ftp|file):/) return
			if (s == suite && exact == "") exact = uri
			if (s !~ /-/ && uri !~ /security/ && other == "") other = uri
		}
		function flush(   n, i, j, u, s, nu, ns) {
			if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^(no|false)$/) {
				nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
				for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) if (u[i] != "" && s[j] != "") consider(u[i], s[j])
			}
			types = uris = suites = enabled = ""
		}
		FNR == 1 { flush() }
		FILENAME ~ /\.sources$/ {
			if ($0 ~ /^[ \t]*$/) { flush(); next }
			if ($0 ~ /^#/) next
			line = $0; key = tolower(line); sub(/:.*/, "", key); sub(/^[^:]*:[ \t]*/, "", line)
			if (key == "types") types = line
			else if (key == "uris") uris = line
			else if (key == "suites") suites = line
			else if (key == "enabled") enabled = tolower(line)
			next
		}
		{
			sub(/#.*/, "")
			if ($1 != "deb") next
			i = 2
			if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			consider($i, $(i + 1))
		}
		END { flush(); if (exact != "") print exact; else if (other != "") print other }
	' "${files[@]}"
}

mirror=$(find_mirror)
[ -n "$mirror" ] || die "no Debian mirror in /etc/apt/sources.list*; set NUMAPLAN_VM_MIRROR"

tmp=$(mktemp -d "$cache/.build-$hash.XXXXXX")
unmount_under() { # unmount_under DIR: whatever debootstrap left mounted below DIR
	local m
	while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done < <(awk -v t="$1/" 'index($2, t) == 1 { print $2 }' /proc/self/mounts | sort -r)
}
cleanup() {
	local rc=$?
	if [ $rc -ne 0 ] && [ -f "$tmp/build.log" ]; then
		cp "$tmp/build.log" "$cache/failed-build-$hash.log" &&
			say "build failed; its log: $cache/failed-build-$hash.log"
	fi
	# debootstrap mounts /proc and /sys inside the root; never delete through a mount.
	if [ -d "$tmp" ]; then
		unmount_under "$tmp"
		rm -rf --one-file-system -- "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'say "error: line $LINENO failed: $BASH_COMMAND"' ERR

root=$tmp/root
t0=$(now)
say "building image $hash in $tmp"
say "debootstrap --variant=minbase $SUITE from the host's mirror ($((${#PACKAGES[@]})) packages included)"
pkgs=$(IFS=,; echo "${PACKAGES[*]}")
for attempt in 1 2; do
	if debootstrap --variant=minbase --components=main --include="$pkgs" "$SUITE" "$root" "$mirror" \
		>"$tmp/build.log" 2>&1; then
		break
	fi
	tail -n 30 "$tmp/build.log" >&2
	if [ -f "$root/debootstrap/debootstrap.log" ]; then
		tail -n 30 "$root/debootstrap/debootstrap.log" >&2
	fi
	[ $attempt = 1 ] || die "debootstrap failed twice"
	say "debootstrap failed; once more from scratch"
	unmount_under "$root"
	rm -rf --one-file-system -- "$root"
done
t1=$(now)
say "debootstrap: $(secs $((t1 - t0))) s"

# --- Configure the root ---------------------------------------------------------------------------
kver=$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
if [ -z "$kver" ] || [ ! -f "$root/boot/vmlinuz-$kver" ]; then
	die "no kernel in the guest root"
fi

echo numaplan-vm >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 numaplan-vm\n' >"$root/etc/hosts"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 0\n' >"$root/etc/fstab"
# A fixed machine id: no first-boot logic, and boots of one disk share it.
od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$root/etc/machine-id"
echo >>"$root/etc/machine-id"
install -m 0644 "$here/guest/blacklist.conf" "$root/etc/modprobe.d/numaplan-vm-blacklist.conf"
install -m 0644 "$here/guest/$TARGET" "$root/etc/systemd/system/$TARGET"
install -m 0644 "$here/guest/numaplan-test-runner.service" "$root/etc/systemd/system/"
install -m 0755 "$here/guest/numaplan-test-runner" "$root/usr/local/sbin/"
ln -sfn "$TARGET" "$root/etc/systemd/system/default.target"
# Boot time under emulation: generators and units that do nothing for the tests are masked.
mkdir -p "$root/mnt/host" "$root/var/lib/numaplan-test" "$root/etc/systemd/system-generators"
for g in "${MASK_GENERATORS[@]}"; do
	ln -sfn /dev/null "$root/etc/systemd/system-generators/$g"
done
for u in "${MASK_UNITS[@]}"; do
	ln -sfn /dev/null "$root/etc/systemd/system/$u"
done
# Nothing in the guest uses apt; its lists, sources and debootstrap's log would only name the mirror.
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/* "$root/var/log/bootstrap.log"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
rm -f "$root"/boot/initrd.img* "$root"/initrd.img*

out=$tmp/image
mkdir -p "$out"

# --- Kernel: the uncompressed vmlinux (an ELF that QEMU boots directly, faster under TCG) ---------
extract_vmlinux() { # extract_vmlinux BZIMAGE OUT
	local in=$1 out=$2 magic cmd off
	for spec in '\x1f\x8b\x08:gzip -dc' '\xfd7zXZ\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -dcq' \
		'\x5d\x00\x00\x00:xz -dc --format=lzma' '\x42\x5a\x68:bzip2 -dc'; do
		magic=${spec%%:*}
		cmd=${spec#*:}
		command -v "${cmd%% *}" >/dev/null || continue
		while read -r off; do
			# shellcheck disable=SC2086
			tail -c +$((off + 1)) "$in" | $cmd >"$out" 2>/dev/null
			if [ "$(head -c 4 "$out" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
				return 0
			fi
		done < <(LC_ALL=C grep -aobP "$magic" "$in" | cut -d: -f1 | head -n 5)
	done
	return 1
}
if extract_vmlinux "$root/boot/vmlinuz-$kver" "$out/vmlinux"; then
	kernel_note="vmlinux extracted from vmlinuz-$kver"
else
	say "warning: could not extract vmlinux; booting the compressed vmlinuz (slower)"
	cp "$root/boot/vmlinuz-$kver" "$out/vmlinux"
	kernel_note="vmlinuz-$kver (extraction failed)"
fi
rm -f "$root/boot/vmlinuz-$kver" "$root"/vmlinuz*

# --- The initrd: static busybox, INITRD_MODULES and their dependencies, guest/init -----------------
mods=$root/lib/modules/$kver
ird=$tmp/initrd
mkdir -p "$ird"/{bin,proc,sys,dev,newroot,modules}
cp "$root/bin/busybox" "$ird/bin/busybox"
for applet in sh mount umount insmod sleep cat switch_root poweroff echo; do
	ln -s busybox "$ird/bin/$applet"
done
install -m 0755 "$here/guest/init" "$ird/init"

declare -A modpath moddeps seen builtin
while IFS= read -r line; do
	p=${line%%:*}
	n=${p##*/}
	n=${n%%.ko*}
	n=${n//-/_}
	modpath[$n]=$p
	moddeps[$n]=${line#*:}
done <"$mods/modules.dep"
while IFS= read -r p; do
	n=${p##*/}
	n=${n%%.ko*}
	builtin[${n//-/_}]=1
done <"$mods/modules.builtin"
order=()
visit() {
	local n=${1//-/_} d dn
	[ -z "${seen[$n]:-}" ] || return 0
	seen[$n]=1
	for d in ${moddeps[$n]}; do
		dn=${d##*/}
		visit "${dn%%.ko*}"
	done
	order+=("$n")
}
for m in "${INITRD_MODULES[@]}"; do
	m=${m//-/_}
	if [ -n "${builtin[$m]:-}" ]; then
		continue
	elif [ -z "${modpath[$m]:-}" ]; then
		die "module $m is neither built in nor in modules.dep of $kver"
	fi
	visit "$m"
done
: >"$ird/modules/order"
for n in "${order[@]}"; do
	p=$mods/${modpath[$n]}
	case $p in
	*.ko) cp "$p" "$ird/modules/$n.ko" ;;
	*.ko.xz) xz -dc "$p" >"$ird/modules/$n.ko" ;;
	*.ko.zst) zstd -dcq "$p" >"$ird/modules/$n.ko" ;;
	*.ko.gz) gzip -dc "$p" >"$ird/modules/$n.ko" ;;
	*) die "unknown module file $p" ;;
	esac
	echo "$n.ko" >>"$ird/modules/order"
done
(cd "$ird" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$out/initrd.img"

# --- The disk -------------------------------------------------------------------------------------
used_mb=$(du -sm --apparent-size "$root" | cut -f1)
size_mb=$((used_mb + used_mb / 4 + 512))
[ $size_mb -ge $MIN_IMAGE_MB ] || size_mb=$MIN_IMAGE_MB
t2=$(now)
# Inode tables and journal zeroed now, or the guest's first mount zeroes them in the background.
mkfs.ext4 -q -F -L numaplan-vm -E lazy_itable_init=0,lazy_journal_init=0 -d "$root" "$out/root.ext4" "${size_mb}M" >>"$tmp/build.log" 2>&1 ||
	die "mkfs.ext4 failed (see above)"
t3=$(now)
echo "$CMDLINE" >"$out/cmdline"
{
	echo "recipe=$hash"
	echo "suite=$SUITE"
	echo "kernel=$kver"
	echo "kernel_file=$kernel_note"
	echo "initrd_modules=${order[*]}"
	echo "disk_mb=$size_mb"
	echo "root_used_mb=$used_mb"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "build_seconds=$(secs $((t3 - t0)))"
	echo "debootstrap_seconds=$(secs $((t1 - t0)))"
	echo "mkfs_seconds=$(secs $((t3 - t2)))"
} >"$out/info"
chmod -R a-w "$out"/*

rm -rf "$dest"
mv -T "$out" "$dest"
rm -f "$cache/failed-build-$hash.log"
say "image $hash built in $(secs $((t3 - t0))) s (debootstrap $(secs $((t1 - t0))) s, mkfs $(secs $((t3 - t2))) s; kernel $kver, disk ${size_mb} MiB, initrd modules: ${order[*]:-none})"
prune_others
echo "$dest"
