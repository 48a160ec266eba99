#!/bin/sh
# Re-capture the real console logs in tests/data/console/ (see README.md):
# a real x86_64 farm kernel under QEMU/TCG with intel-iommu (or another
# IOMMU) and edu, driven by farm/console.exp, with stand-in-init.c as PID 1.
#
# usage: capture.sh KERNEL_O_DIR [CASE...]   (default: every case below)
# With ARM64_O_DIR=<arm64 O= dir> set, also the arm64 SMMUv3 case (needs
# aarch64-linux-gnu-gcc and libc6-dev-arm64-cross for a static init).
# Needs: gcc (static), qemu-system-x86_64, expect. Takes about a minute.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
data=$(dirname "$here")
[ $# -ge 1 ] || { echo "usage: capture.sh KERNEL_O_DIR [CASE...]" >&2; exit 2; }
kdir=$1
shift
kernel=$kdir/arch/x86/boot/bzImage
cpio=$kdir/usr/gen_init_cpio
if [ ! -f "$kernel" ] || [ ! -x "$cpio" ]; then
	echo "capture.sh: no bzImage or gen_init_cpio in $kdir" >&2
	exit 2
fi

nonce=5ac0ffee00c0ffee
dmar='DMAR: Intel\(R\) Virtualization Technology for Directed I/O'
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# The stand-in prints unchained agent lines; the agent's own line writer
# (agent-unit sign) chains them under the cases' key, as the agent would.
make -s -C "$top" -f farm/guest/guest.mk guest-unit
unit=${BUILD_DIR:-$top/build}/guest/host/agent-unit
chain() { # CASE
	"$unit" sign "$(cat "$data/key")" $nonce <"$data/$1/console.log" >"$t/signed"
	cat "$t/signed" >"$data/$1/console.log"
}

gcc -O2 -Wall -static -o "$t/init" "$here/stand-in-init.c"
cat >"$t/agent.list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
file /init $t/init 0755 0 0
EOF
"$cpio" "$t/agent.list" >"$t/agent.cpio"
head -2 "$t/agent.list" >"$t/noinit.list"
"$cpio" "$t/noinit.list" >"$t/noinit.cpio"

# run CASE INITRD IOMMU_DEVICE IOMMU_RE T_AGENT RUN [EXTRA_CMDLINE]
run() {
	case=$1 initrd=$2 iommu=$3 re=$4 tagent=$5 work=$6 extra=${7:-}
	mkdir -p "$data/$case"
	# shellcheck disable=SC2046,SC2086
	expect "$top/farm/console.exp" "$data/$case/console.log" \
		"$data/$case/status" $nonce "$re" 30 30 "$tagent" 5 10 \
		$(echo "$work" | tr , ' ') -- \
		timeout 120 qemu-system-x86_64 -M q35 -cpu max -m 512M \
		-nographic -no-reboot -nic none -monitor none $iommu \
		-device edu,dma_mask=0xffffffff -kernel "$kernel" \
		-initrd "$t/$initrd.cpio" -append "console=ttyS0 panic=-1 \
intel_iommu=on iommu.strict=1 sac.nonce=$nonce sac.run=$work $extra"
	chain "$case"
	echo "$case: $(tr '\n' ' ' <"$data/$case/status")"
}

intel='-device intel-iommu,intremap=on,aw-bits=48'
all="$*"
pick() { [ -z "$all" ] || echo " $all " | grep -q " $1 "; }

pick pass && run pass agent "$intel" "$dmar" 20 ok,ok
pick workload-fail && run workload-fail agent "$intel" "$dmar" 20 ok,fail
pick data-corruption && run data-corruption agent "$intel" "$dmar" 20 corrupt
pick iommu-fault-dmar && run iommu-fault-dmar agent "$intel" "$dmar" 20 ok,dmar
pick skip && run skip agent "$intel" "$dmar" 20 skip,skip
pick panic && run panic noinit "$intel" "$dmar" 20 ok
pick hang-agent && run hang-agent agent "$intel" "$dmar" 3 ok sac.stall=agent
pick hang-workload && run hang-workload agent "$intel" "$dmar" 20 ok,fail \
	sac.stall=fail
pick qemu-crash && run qemu-crash agent "$intel" "$dmar" 20 ok,abort
pick qemu-bad-option && run qemu-bad-option agent '-device no-such-device' \
	"$dmar" 20 ok
pick garbage && run garbage agent "$intel" "$dmar" 20 garbage,ok

# arm64: virt with SMMUv3; edu unbound, so its DMA raises SMMU events.
if [ -n "${ARM64_O_DIR:-}" ] && pick iommu-fault-smmuv3-arm64; then
	c64='iommu-fault-smmuv3-arm64'
	aarch64-linux-gnu-gcc -O2 -Wall -static -o "$t/init64" \
		"$here/stand-in-init.c"
	sed "s|$t/init |$t/init64 |" "$t/agent.list" >"$t/agent64.list"
	"$ARM64_O_DIR/usr/gen_init_cpio" "$t/agent64.list" >"$t/agent64.cpio"
	mkdir -p "$data/$c64"
	expect "$top/farm/console.exp" "$data/$c64/console.log" \
		"$data/$c64/status" $nonce 'arm-smmu-v3 .*ias' 30 30 20 5 10 \
		ok dmar -- timeout 120 qemu-system-aarch64 \
		-M virt,iommu=smmuv3,gic-version=3 -cpu cortex-a57 -smp 2 \
		-m 1G -nographic -no-reboot -nic none -monitor none \
		-device edu,dma_mask=0xffffffff \
		-kernel "$ARM64_O_DIR/arch/arm64/boot/Image" \
		-initrd "$t/agent64.cpio" -append "console=ttyAMA0 \
iommu.strict=1 panic=-1 sac.nonce=$nonce sac.run=ok,dmar"
	chain "$c64"
	echo "$c64: $(tr '\n' ' ' <"$data/$c64/status")"
fi
true
