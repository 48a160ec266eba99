# What each flavour chooses, read from its fragment (config-fragments/
# FLAVOUR.config), so the tests follow a new flavour without an edit.
# Sourced after tests/lib/tap.sh.
# shellcheck shell=sh

flavours() {
	"$top/scripts/flavours"
}

# sac_lines FLAVOUR: the fragment's SAC option lines, as a .config has
# them (CONFIG_IOMMU_DMA_PCI_SAC=y, # CONFIG_IOMMU_DMA_PCI_SAC is not set,
# CONFIG_IOMMU_DMA_PCI_SAC_ADAPTIVE=y, ...).
sac_lines() {
	grep -E '^(# )?CONFIG_IOMMU_DMA_PCI_SAC' "$top/config-fragments/$1.config"
}

# sac_shown FLAVOUR: those lines on one line, for a test's description.
sac_shown() {
	sac_lines "$1" | paste -sd, -
}

# farm_kernels: every flavour's farm kernel of both arches, as
# $BUILD_DIR/kernel names them (6.1-amd64-farm-desktop, ...).
farm_kernels() {
	for _a in amd64 arm64; do
		flavours | sed "s/^/$SERIES-$_a-farm-/"
	done
}

# has_sac_lines FLAVOUR CONFIG: every SAC line of FLAVOUR is in CONFIG.
has_sac_lines() {
	sac_lines "$1" | while IFS= read -r l; do
		grep -qxF "$l" "$2" 2>/dev/null || exit 1
	done
}

# trick_off FLAVOUR: true if FLAVOUR never tries a 32-bit IOVA first.
trick_off() {
	sac_lines "$1" | grep -qx '# CONFIG_IOMMU_DMA_PCI_SAC is not set'
}

# adaptive_on FLAVOUR: true if FLAVOUR's built-in mode is adaptive.
adaptive_on() {
	sac_lines "$1" | grep -qx 'CONFIG_IOMMU_DMA_PCI_SAC_ADAPTIVE=y'
}

# sac_bytes FLAVOUR: the initial bytes, hex, of iommu_dma_forcedac and
# sac_adaptive that FLAVOUR's fragment asks vmlinux to start with:
# "01 00" for never, "00 00" for always, "00 01" for adaptive.
sac_bytes() {
	# sourced helpers share the caller's variables: no name of its own
	if trick_off "$1"; then
		printf '01 '
	else
		printf '00 '
	fi
	if adaptive_on "$1"; then
		echo 01
	else
		echo 00
	fi
}
