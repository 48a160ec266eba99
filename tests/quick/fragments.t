#!/bin/sh
# The flavour fragments say what each flavour is, and bad input is refused
# with one line.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
frag=$top/config-fragments
plan 13

grep -qx 'CONFIG_IOMMU_DMA_PCI_SAC=y' "$frag/desktop.config"
ok $? "desktop turns the SAC trick on"
grep -qx '# CONFIG_IOMMU_DMA_PCI_SAC is not set' "$frag/server.config"
ok $? "server turns the SAC trick off"
grep -qx 'CONFIG_IOMMU_DMA_PCI_SAC=y' "$frag/adaptive.config" &&
	grep -qx 'CONFIG_IOMMU_DMA_PCI_SAC_ADAPTIVE=y' "$frag/adaptive.config"
ok $? "adaptive turns the SAC trick on, per device until it runs out"
for f in adaptive desktop server; do
	grep -qx "CONFIG_LOCALVERSION=\"-sac-$f\"" "$frag/$f.config"
	ok $? "$f sets a LOCALVERSION naming the flavour"
done

kb=$top/scripts/kernel-build
for bad in "build sparc farm desktop:unknown arch 'sparc'" \
	"build amd64 farm laptop:unknown flavour 'laptop'" \
	"build amd64 cloud desktop:unknown base 'cloud'" \
	"paint amd64 farm desktop:unknown stage 'paint'"; do
	args=${bad%%:*} want=${bad#*:}
	# shellcheck disable=SC2086
	err=$("$kb" $args 2>&1 >/dev/null)
	rc=$?
	[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
		printf '%s' "$err" | grep -q "$want"
	ok $? "kernel-build $args: one line naming $want (rc=$rc)"
done
err=$(BUILD_DIR=$(mktemp -u) "$top/scripts/release-modules" amd64 sparc 2>&1)
is "$?:$err" "1:release-modules: error: unknown arch 'sparc' (known: amd64 arm64)" \
	"release-modules amd64 sparc: one line, before anything boots"
err=$("$kb" build amd64 farm laptop 2>&1)
like "$err" "known: adaptive desktop server" "the flavours are the fragments, declared once"
# Bad input is refused at once while another build holds the lock (make
# check builds the debug kernels beside the tests).
b=$(mktemp -d)
hold_build_lock "$b" 30
err=$(BUILD_DIR=$b timeout 10 "$kb" paint amd64 farm desktop 2>&1)
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
rm -rf "$b"
is "$rc:$err" "1:kernel-build: error: unknown stage 'paint' (known: source config build object)" \
	"with the lock held elsewhere, an unknown stage is refused at once"
done_testing
