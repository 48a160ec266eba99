#!/bin/sh
# A cell runs only on a kernel that has the options its machine and
# workload require; a string option left empty counts as absent. The
# release base keeps Debian's empty CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS (no
# built-in list), so edu-listed, which tests the farm base's list, is a
# skip there rather than a failure. Read from fake build dirs through
# farm lava render, which boots nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
render_test requires
plan 3

# fake NAME QUIRKS: a kernel with edu-listed's options, its built-in list
# set to QUIRKS
fake() {
	fake_kernel "$1" 6.1.192-sac-desktop CONFIG_PCI_STUB=y CONFIG_VIRTIO_BLK=y \
		CONFIG_VIRTIO_PCI=y CONFIG_LOCALVERSION='"-sac-desktop"' \
		"CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"$2\""
}

# render NAME: farm lava render of NAME's edu-listed cell; its output
render() {
	"$top/farm/farm" lava render --kernel "$tmp/$tag-$1" --machine x86-intel \
		--workload edu-listed --out "$tmp/r-$1" 2>&1
}

fake listed 1b36:0005
fake empty ""
# (edu-listed's farm module makes it a cell LAVA cannot take: "not
# renderable", after the options are found)
like "$(render listed)" "\(0 skipped, 1 not renderable\)" "a built-in list: the cell is not skipped"
out=$(render empty)
like "$out" "0 jobs, .*1 skipped" "an empty built-in list: the cell is skipped"
like "$out" "lacks CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS" "... saying the kernel lacks the list"
done_testing
