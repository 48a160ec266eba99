#!/bin/sh
# make release-check: Debian's shipped config plus each flavour keeps
# the flavour's choice and compiles the code the series touches.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/flavours.sh"
arches=${ARCHES:-amd64 arm64}
plan $(($(echo $arches | wc -w) * $(flavours | wc -l) * 3))
for a in $arches; do
	for f in $(flavours); do
		o=$BUILD_DIR/kernel/$SERIES-$a-release-$f
		[ -f "$o/.sac-config" ]
		ok $? "$a/release/$f: config verified"
		has_sac_lines "$f" "$o/.config"
		ok $? "$a/release/$f: $(sac_shown "$f") on top of Debian's config"
		[ "$o/drivers/iommu/dma-iommu.o" -nt "$o/.sac-config" ]
		ok $? "$a/release/$f: drivers/iommu/dma-iommu.o compiled"
	done
done
done_testing
