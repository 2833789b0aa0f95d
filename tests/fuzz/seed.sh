#!/bin/bash
# Writes the seed inputs of each fuzz target into corpus/TARGET/ from the project's own fixtures,
# profiles and examples. Run once when a target is added; crashes found later are added by hand
# as corpus/TARGET/crash-DESCRIPTION. Usage: tests/fuzz/seed.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
c=$here/corpus
mkdir -p "$c"/{config,cpulist,meminfo,distance,numa-maps,dbus-bytes,unit-name,pci-address,values,dropin,hugepages,tuning}

for p in "$top"/profiles/*.conf; do cp "$p" "$c/config/profile-$(basename "$p")"; done
printf '[numaplan]\nheadroom = 10%%\naccelerator-nodes = 3b:00.0=1\n[replica a]\nunit = a.service\naccelerators = count:2\nmemory = 48G\npolicy = preferred\ncpus = cores:4\nmemory-nodes = 2-3\nwarmup-url = http://127.0.0.1:8080/x\n' >"$c/config/all-keys"
printf '[replicas t]\nunit = t@%%i.service\nper = node\n' >"$c/config/template"
printf '[replica a]\nunit = a.service\n  memory = 1G\n' >"$c/config/indented"
printf '[replica a]\nunit = a\0.service\n' >"$c/config/nul"
printf '[replica a]\nunit = %0250d.service\n' 0 >"$c/config/long-line"
printf '[replica m]\nunit = m.service\nmodel = /srv/a.gguf, /srv/shards\nhugepages = 4G:1G\n' >"$c/config/model-hugepages"

n=0
for f in "$top"/tests/fixtures/hosts/*/sys/devices/system/node/node*/{cpulist,cpumap} "$top"/tests/fixtures/hosts/*/sys/devices/system/cpu/online; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$c/cpulist/fixture-$n"
done
printf '0-3,8-11\n' >"$c/cpulist/list"
printf '00000000,0000ffff\n' >"$c/cpulist/mask"
printf '\n' >"$c/cpulist/empty"
printf '0-8191\n' >"$c/cpulist/max"

n=0
for f in "$top"/tests/fixtures/hosts/*/sys/devices/system/node/node*/meminfo "$top"/tests/fixtures/hosts/*/proc/meminfo; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$c/meminfo/fixture-$n"
done
printf 'Node 0 MemTotal: 18446744073709551615 kB\n' >"$c/meminfo/huge"

n=0
for f in "$top"/tests/fixtures/hosts/*/sys/devices/system/node/node*/distance; do
	n=$((n + 1))
	cp "$f" "$c/distance/fixture-$n"
done
printf '10 300\n' >"$c/distance/over-a-byte"

cp "$top"/tests/fixtures/numa_maps/* "$c/numa-maps/"
printf '0 default N2147483648=1\n' >"$c/numa-maps/crash-node-past-int-max"
printf '0 default N4294967295=1\n' >"$c/numa-maps/crash-node-minus-one"
printf '7f00 bind:1 file=/m anon=3 mapped=10 N0=4 N1=6 kernelpagesize_kB=4\n' >"$c/numa-maps/file-and-anon"

printf '\x0f\x00\xf0' >"$c/dbus-bytes/sets"
printf '\x01' >"$c/dbus-bytes/cpu0"
head -c 1024 /dev/zero | tr '\0' '\377' >"$c/dbus-bytes/all"

for u in llama-server@0.service a.service x@y.service '../etc.service' 'a..b.service' 'foo@.service' '.service'; do
	printf '%s' "$u" >"$c/unit-name/$(printf '%s' "$u" | tr -c 'a-zA-Z0-9' '_')"
done

for a in 0000:3b:00.0 3b:00.0 10000:00:1f.7 0:00:00.0 0000:3b:00.8; do
	printf '%s' "$a" >"$c/pci-address/$(printf '%s' "$a" | tr ':.' '__')"
done

for v in 48G 0 18446744073709551615 99.95% 10% 120s 500ms 2m yes off; do
	printf '%s' "$v" >"$c/values/$(printf '%s' "$v" | tr -c 'a-zA-Z0-9' '_')"
done

printf '[Service]\nNUMAPolicy=default\nCPUAffinity = 0-63\nNice=5\n' >"$c/dropin/override"
printf '[Service]\nAllowedCPUs=\n' >"$c/dropin/reset"

printf '0 2048 512\n1 1048576 4\n' >"$c/hugepages/two-pools"
printf '1 2048\n' >"$c/hugepages/short-line"
: >"$c/hugepages/empty"
printf '0 2048 18446744073709551615\n0 2048 1\n' >"$c/hugepages/saturates"
n=0
for f in "$top"/tests/fixtures/hosts/*/proc/{swaps,cmdline} "$top"/tests/fixtures/hosts/*/sys/kernel/iommu_groups/1[01]/type \
	"$top"/tests/fixtures/hosts/untuned-2s-8gpu/sys/devices/*/*/0000:[02]1:00.0/*_link_*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	cp "$f" "$c/tuning/fixture-$n"
done
printf 'Unknown\n' >"$c/tuning/speed-unknown"
printf '8 GT/s' >"$c/tuning/speed-old-kernel"
printf 'ro iommu=force,pt intel_iommu=on,sm_on iommu.passthrough=0 -- iommu=pt' >"$c/tuning/cmdline-mixed"
printf '\x20\x58' >"$c/tuning/devctl-4096-256"
printf '\xff\xff' >"$c/tuning/devctl-all-ones"
echo "seeded $(find "$c" -type f | wc -l) inputs in $c"
