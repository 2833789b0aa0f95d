#!/bin/bash
# Writes the seed inputs of each fuzz target into corpus/TARGET/ from the project's own fixtures,
# profiles and examples. Run once when a target is added; crashes found later are added by hand
# as corpus/TARGET/crash-DESCRIPTION. Usage: tests/fuzz/seed.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
c=$here/corpus
mkdir -p "$c"/{config,cpulist,meminfo,distance,numa-maps,dbus-bytes,unit-name,pci-address,values,dropin,hugepages,inspect,generator,numastat-maps,tuning,utf8,held-pages}

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
printf '# numaplan'"'"'s huge pages: NODE PAGE_KB PAGES OTHERS\n1 2048 8 5\n0 2048 3\n' >"$c/hugepages/with-others"

# A container engine's answers, each after the cgroup its process runs in (first line).
id=8f2c1d0a4b3e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8
printf '/system.slice/docker-%s.scope\n{"Id":"%s","Name":"/boxed","State":{"Running":true,"Pid":5000},"HostConfig":{"CpusetCpus":"2-3","CpusetMems":"1"}}\n' $id $id >"$c/inspect/docker-running"
printf '/machine.slice/libpod-%s.scope/container\n{"Id":"%s","Name":"boxed","State":{"Running":true,"Pid":7},"HostConfig":{}}\n' $id $id >"$c/inspect/podman-scope"
printf '/system.slice/llama.service/libpod-payload-%s\n{"Id":"%s","State":{"Running":false,"Pid":0}}\n' $id $id >"$c/inspect/podman-split-stopped"
printf '/system.slice/postgres.service\n{"Id":"%s","State":{"Running":true,"Pid":"5000"},"HostConfig":{"CpusetCpus":23}}\n' $id >"$c/inspect/pid-string"
printf '/docker/%s\n{"Id":"%s","State":{"Running":true,"Pid":4294972296}}\n' $id $id >"$c/inspect/pid-wrapped"
printf '/\n{"message":"No such container: boxed"}\n' >"$c/inspect/error-answer"

cp "$c"/config/* "$c/generator/"
printf '[replica a\nunit = garbled@0.service\n' >"$c/generator/garbled"
printf '[replica a]\nunit = a.service\nnodess = 1\n\n[replicas tp]\nunit = tp@%%i.service\nper = node\n' >"$c/generator/bad-key-template"

cp "$top"/tests/fixtures/hosts/dgx-2s-8gpu/sys/devices/system/node/node0/numastat "$c/numastat-maps/numastat" 2>/dev/null ||
	printf 'numa_hit 812345\nnuma_miss 12\nnuma_foreign 7\ninterleave_hit 1024\nlocal_node 812000\nother_node 345\n' >"$c/numastat-maps/numastat"
cat >"$c/numastat-maps/maps" <<'MAPS'
55d9f73f1000-55d9f7400000 r--p 00000000 fe:01 1835067                    /usr/local/bin/numaplan
55d9f7400000-55d9f7460000 r-xp 0000f000 fe:01 1835067                    /usr/local/bin/numaplan
7f6f24190000-7f6f24290000 r--s 00000000 fe:01 2883591                    /srv/models/q.gguf
7f6f24290000-7f6f24561000 rw-p 00000000 00:00 0
7f6f24561000-7f6f24562000 ---p 00000000 00:00 0
7ffd5a3c1000-7ffd5a3e2000 rw-p 00000000 00:00 0                          [stack]
7ffd5a3f4000-7ffd5a3f8000 r--p 00000000 00:00 0                          [vvar]
7ffd5a3f8000-7ffd5a3fa000 r-xp 00000000 00:00 0                          [vdso]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
MAPS
printf 'ffffffffffffffff-0 r--p 0 0 0\n-1-5 r--p\n10000000000000000-20000000000000000 r--p 0 0 0\n' >"$c/numastat-maps/maps-odd"
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
# numaplan-pinner's /proc files (tests/fixtures/proc/pinner/), and the shapes other kernels write.
# Its input: numa_maps, smaps, status and fdinfo, NUL between them.
pinner=$(ls -d "$top"/tests/fixtures/proc/pinner/proc/*)
{ cat "$pinner/numa_maps"; printf '\0'; cat "$pinner/smaps"; printf '\0'; cat "$pinner/status"; printf '\0'; cat "$pinner/fdinfo/3"; } >"$c/held-pages/pinner"
printf '\0\0VmLck:\t 18446744073709551615 kB\nVmPin:\t1 kB\n' >"$c/held-pages/status-huge"
printf '\0\0\0UserBufs:\t3\n    0: 0x7f0000000000/4096\n    1: <none>\n    2: 0xffffffffffffffff/1\nPersonalities:\n' >"$c/held-pages/uring-sparse"
printf '7f0000000000 bind:1 anon=1 N0=1 kernelpagesize_kB=4\n\0007f0000000000-7f0000001000 rw-p 0 0:0 0\nVmFlags: lo\n\0VmLck:\t4 kB\nVmPin:\t4 kB\n\0UserBufs:\t1\n 0: 0x7f0000000000/4096\n' >"$c/held-pages/one-page"
# Names as a host's files and an admin's configuration hold them, for the sanitizer of --json and
# the escapes of the text output.
printf 'ens2f0np0' >"$c/utf8/ascii"
printf 'caf\xc3\xa9 \xe6\xa8\xa1\xe5\x9e\x8b \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf' >"$c/utf8/valid-every-length"
printf 'eth\x1b[31mred\xff\xfe\x01' >"$c/utf8/escape-and-invalid"
printf '\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf' >"$c/utf8/overlong"
printf '\xed\xa0\x80\xed\xbf\xbf\xf4\x90\x80\x80' >"$c/utf8/surrogates-and-too-large"
printf 'cut\xe6\xa8' >"$c/utf8/truncated"
printf '\x80\xbf\xc2\xc3\xa9\xf5\xff' >"$c/utf8/stray-bytes"
printf '{"message": "/etc/numaplan/\xfe.conf:3: bad memory \x271G\xff\x27"}' >"$c/utf8/json-document"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(1, 256)))' >"$c/utf8/every-byte"
echo "seeded $(find "$c" -type f | wc -l) inputs in $c"
