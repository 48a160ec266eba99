#!/bin/sh
# make release-check: Debian's shipped config plus each flavour keeps
# the flavour's choice and compiles the code the series touches.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/flavours.sh"
arches=${ARCHES:-amd64 arm64}
src=$BUILD_DIR/src/linux-$SERIES
plan $(($(echo $arches | wc -w) * $(flavours | wc -l) * 3))
for a in $arches; do
	for f in $(flavours); do
		o=$BUILD_DIR/kernel/$SERIES-$a-release-$f
		[ -f "$o/.sac-config" ]
		ok $? "$a/release/$f: config verified"
		has_sac_lines "$f" "$o/.config"
		ok $? "$a/release/$f: $(sac_shown "$f") on top of Debian's config"
		# newer than the patched source: the config stage may be redone
		# (a fragment's comment changed) with nothing for kbuild to redo
		[ "$o/drivers/iommu/dma-iommu.o" -nt "$src/drivers/iommu/dma-iommu.c" ]
		ok $? "$a/release/$f: drivers/iommu/dma-iommu.o compiled from the patched source"
	done
done
done_testing
