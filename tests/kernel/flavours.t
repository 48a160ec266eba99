#!/bin/sh
# Each built flavour, on each arch, is the kernel it claims to be: its
# config, its release string and the SAC default compiled into vmlinux.
. "$(dirname "$0")/../lib/tap.sh"
arches=${ARCHES:-amd64 arm64}
flavours="desktop server"
plan $(($(echo $arches | wc -w) * 2 * 5 + $(echo $arches | wc -w)))

image() {
	case $1 in
	amd64) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}

for a in $arches; do
	types=
	for f in $flavours; do
		o=$BUILD_DIR/kernel/$a-farm-$f
		[ -f "$o/.sac-built" ]
		ok $? "$a/$f: build finished (stamp present)"
		[ -s "$o/$(image "$a")" ]
		ok $? "$a/$f: $(image "$a") exists"
		case $f in
		desktop) want='CONFIG_IOMMU_DMA_PCI_SAC=y' ;;
		server) want='# CONFIG_IOMMU_DMA_PCI_SAC is not set' ;;
		esac
		grep -qx "$want" "$o/.config"
		ok $? "$a/$f: .config has '$want'"
		is "$(cat "$o/include/config/kernel.release" 2>/dev/null)" \
			"6.1.192-sac-$f" "$a/$f: kernel release names the flavour"
		# nm: the initial value decides the section, so desktop
		# (false, SAC on) is in .bss and server (true) in .data.
		t=$(nm "$o/vmlinux" 2>/dev/null | awk '$3 == "iommu_dma_forcedac" {print $2}')
		case $f in
		desktop) like "$t" '^[bB]$' "$a/$f: iommu_dma_forcedac starts false (nm: $t)" ;;
		server) like "$t" '^[dD]$' "$a/$f: iommu_dma_forcedac starts true (nm: $t)" ;;
		esac
		types="$types$t"
	done
	[ ${#types} -eq 2 ] && [ "${types%?}" != "${types#?}" ]
	ok $? "$a: the two flavours compile different SAC defaults"
done
done_testing
