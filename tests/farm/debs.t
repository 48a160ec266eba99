#!/bin/sh
# The farm boots our kernels from their packages (out/farm-debs/<series>/<arch>/, make
# all-debs), as make farm does: every flavour's linux-image .deb of both
# arches runs edu-lying with sac_edu.ko built from the linux-headers .deb
# next to it (arm64 cross-built with the amd64 linux-kbuild). The lying
# device faults where the flavour's trick is off (server) and passes where
# it is on (desktop, adaptive), and each kernel's module
# is its own although both arches' packages share one name.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/debs/lib.sh
. "$(dirname "$0")/../debs/lib.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_debs amd64 arm64
kernels='' n=0
for a in amd64 arm64; do
	for f in $(flavours); do
		d=$(deb "linux-image-$(kr_of "$f")" "$a")
		[ -n "$d" ] || skip_all "no linux-image-$(kr_of "$f") in $debs/$a (make debs ARCH=$a)"
		kernels="$kernels --kernel $d"
		n=$((n + 1))
	done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan $((4 * n))

# shellcheck disable=SC2086
"$top/farm/farm" run $kernels --machine x86-intel --machine arm64-smmuv3 \
	--workload edu-lying --out "$tmp/r" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
res=$tmp/r/latest/results.json

# rec ARCH FLAVOUR FILTER: FILTER of that cell's record
rec() {
	jq -r --arg a "$1" --arg f "$2" ".records[] |
		select(.axes.arch == \$a and .axes.flavour == \$f) | $3" "$res" 2>/dev/null
}

for a in amd64 arm64; do
	case $a in
	amd64) uname_arch=x86_64 elf='Advanced Micro Devices X86-64' ;;
	arm64) uname_arch=aarch64 elf=AArch64 ;;
	esac
	for f in $(flavours); do
		kr=$(kr_of "$f")
		want=pass
		trick_off "$f" && want=iommu-fault
		is "$(rec "$a" "$f" .outcome)" "$want" "$a $f from its .deb: edu-lying is $want"
		is "$(rec "$a" "$f" '.identity.uname + " " + .identity.arch')" \
			"$kr $uname_arch" "$a $f: the guest runs $kr on $uname_arch"
		ko=$(ls -t "$BUILD_DIR/module/linux-image-${kr}_${version}_$a"-*/sac_edu.ko 2>/dev/null | head -n 1)
		is "$(readelf -h "$ko" 2>/dev/null | sed -n 's/^ *Machine: *//p')" "$elf" \
			"$a $f: its sac_edu.ko (${ko#"$BUILD_DIR"/}) is an $a module"
		like "$(/sbin/modinfo -F vermagic "$ko" 2>/dev/null)" "^$kr " \
			"$a $f: built against linux-headers-$kr (vermagic)"
	done
done
done_testing
