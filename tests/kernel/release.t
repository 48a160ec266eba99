#!/bin/sh
# make release-check: Debian's shipped config plus each flavour keeps
# the flavour's choice and compiles the code the series touches.
. "$(dirname "$0")/../lib/tap.sh"
arches=${ARCHES:-amd64 arm64}
plan $(($(echo $arches | wc -w) * 2 * 3))
for a in $arches; do
	for f in desktop server; do
		o=$BUILD_DIR/kernel/$a-release-$f
		[ -f "$o/.sac-config" ]
		ok $? "$a/release/$f: config verified"
		case $f in
		desktop) want='CONFIG_IOMMU_DMA_PCI_SAC=y' ;;
		server) want='# CONFIG_IOMMU_DMA_PCI_SAC is not set' ;;
		esac
		grep -qx "$want" "$o/.config"
		ok $? "$a/release/$f: '$want' on top of Debian's config"
		[ "$o/drivers/iommu/dma-iommu.o" -nt "$o/.sac-config" ]
		ok $? "$a/release/$f: drivers/iommu/dma-iommu.o compiled"
	done
done
done_testing
