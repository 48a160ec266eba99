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

# initial_byte ARCH VMLINUX SYMBOL: the first byte of SYMBOL's data, hex.
initial_byte() {
	case $1 in
	amd64) od=objdump ;;
	arm64) od=aarch64-linux-gnu-objdump ;;
	esac
	addr=$(nm "$2" 2>/dev/null | awk -v s="$3" '$3 == s {print $1}')
	[ -n "$addr" ] || return 0
	$od -s --start-address="0x$addr" \
		--stop-address="0x$(echo "obase=16; ibase=16; $(echo "$addr" |
			tr a-f A-F) + 1" | bc)" "$2" |
		awk -v a="$addr" '$1 == a {print $2}'
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
		# The initial value of iommu_dma_forcedac as linked into
		# vmlinux: 00 (SAC on) for desktop, 01 for server.
		t=$(initial_byte "$a" "$o/vmlinux" iommu_dma_forcedac)
		case $f in
		desktop) is "$t" 00 "$a/$f: iommu_dma_forcedac starts false in vmlinux" ;;
		server) is "$t" 01 "$a/$f: iommu_dma_forcedac starts true in vmlinux" ;;
		esac
		types="$types$t"
	done
	[ "$types" = 0001 ]
	ok $? "$a: the two flavours compile different SAC defaults"
done
done_testing
