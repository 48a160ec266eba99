#!/bin/sh
# Each built flavour, on each arch, is the kernel it claims to be: its
# config, its release string and the SAC default compiled into vmlinux.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/flavours.sh"
arches=${ARCHES:-amd64 arm64}
nf=$(flavours | wc -l)
plan $(($(echo $arches | wc -w) * (nf * 5 + 1)))

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
	for f in $(flavours); do
		o=$BUILD_DIR/kernel/$SERIES-$a-farm-$f
		[ -f "$o/.sac-built" ]
		ok $? "$a/$f: build finished (stamp present)"
		[ -s "$o/$(image "$a")" ]
		ok $? "$a/$f: $(image "$a") exists"
		has_sac_lines "$f" "$o/.config"
		ok $? "$a/$f: .config has $(sac_shown "$f")"
		is "$(cat "$o/include/config/kernel.release" 2>/dev/null)" \
			"$("$top/scripts/gencontrol" --kr "$f" farm)" "$a/$f: kernel release names the flavour and the farm base"
		# The initial values of the global mode as linked into
		# vmlinux: iommu_dma_forcedac (01: never) and sac_adaptive
		# (01: adaptive, once forcedac is 00).
		t="$(initial_byte "$a" "$o/vmlinux" iommu_dma_forcedac) $(
			initial_byte "$a" "$o/vmlinux" sac_adaptive)"
		is "$t" "$(sac_bytes "$f")" \
			"$a/$f: iommu_dma_forcedac and sac_adaptive start as '$(sac_bytes "$f")' in vmlinux"
		types="$types$t
"
	done
	[ "$(printf '%s' "$types" | sort -u | wc -l)" -eq "$nf" ]
	ok $? "$a: the $nf flavours compile $nf different SAC defaults"
done
done_testing
