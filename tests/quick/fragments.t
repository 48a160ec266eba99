#!/bin/sh
# The flavour fragments say what each flavour is, and bad input is refused
# with one line.
. "$(dirname "$0")/../lib/tap.sh"
frag=$top/config-fragments
plan 9

grep -qx 'CONFIG_IOMMU_DMA_PCI_SAC=y' "$frag/desktop.config"
ok $? "desktop turns the SAC trick on"
grep -qx '# CONFIG_IOMMU_DMA_PCI_SAC is not set' "$frag/server.config"
ok $? "server turns the SAC trick off"
for f in desktop server; do
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
err=$("$kb" build amd64 farm laptop 2>&1)
like "$err" "known: desktop server" "the flavours are the fragments, declared once"
done_testing
