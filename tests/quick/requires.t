#!/bin/sh
# A cell runs only on a kernel that has the options its machine and
# workload require. The release base keeps Debian's empty
# CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS (no built-in list): edu-listed, which
# tests the farm base's list (it requires the option =1b36:0005:sac), is
# a skip there rather than a failure, while edu-declared, which needs
# only the series (the option set, empty or not), runs. Read from fake
# build dirs through farm lava render, which boots nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
render_test requires
plan 4

# fake NAME QUIRKS: a kernel with edu-listed's options, its built-in list
# set to QUIRKS
fake() {
	fake_kernel "$1" 6.1.192-sac-desktop CONFIG_PCI_STUB=y CONFIG_VIRTIO_BLK=y \
		CONFIG_VIRTIO_PCI=y CONFIG_LOCALVERSION='"-sac-desktop"' \
		"CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"$2\""
}

# render NAME [WORKLOAD]: farm lava render of NAME's edu-listed (or
# WORKLOAD's) cell; its output
render() {
	"$top/farm/farm" lava render --kernel "$tmp/$tag-$1" --machine x86-intel \
		--workload "${2:-edu-listed}" --out "$tmp/r-$1-${2:-edu-listed}" 2>&1
}

fake listed 1b36:0005:sac
fake empty ""
# (edu-listed's farm module makes it a cell LAVA cannot take: "not
# renderable", after the options are found)
like "$(render listed)" "\(0 skipped, 1 not renderable\)" "a built-in list: the cell is not skipped"
out=$(render empty)
like "$out" "0 jobs, .*1 skipped" "an empty built-in list: the cell is skipped"
like "$out" 'has CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS="", needs "1b36:0005:sac"' \
	"... saying what the list holds and what it needs"
out=$(render empty edu-declared)
like "$out" "\(0 skipped, 1 not renderable\)" \
	"an empty built-in list: edu-declared, which needs only the series, is not skipped"
done_testing
