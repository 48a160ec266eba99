#!/bin/sh
# The farm takes any distro kernel .deb: Debian's own current amd64
# image boots behind intel-iommu, loads its virtio/NVMe modules from the
# initramfs the farm packs, and passes blk and net; what it cannot run
# (no CONFIG_VIRTIO_IOMMU) is skipped with the reason, not failed. With
# the image's linux-headers, -common and linux-kbuild .debs next to it,
# the farm builds sac_edu.ko from them: edu-honest passes, and so does
# edu-lying, every IOVA below 4 GiB (stock 6.1 has the SAC trick on).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
stock_kernel 6.1 amd64
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 8

"$top/farm/farm" run --kernel "$deb" --machine x86-intel --machine x86-virtio \
	--workload blk --workload net --workload edu-honest --workload edu-lying \
	--out "$tmp/r" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
res=$tmp/r/latest/results.json
o() {
	jq -r --arg m "$1" --arg w "$2" '.records[] |
		select(.axes.machine == $m and .axes.workload == $w) | .outcome' "$res"
}
is "$(o x86-intel blk)" pass "$(basename "$deb"): blk passes on x86-intel"
is "$(o x86-intel net)" pass "$(basename "$deb"): net passes on x86-intel"
is "$(o x86-virtio blk)" skip "x86-virtio is skipped (stock config has no virtio-iommu)"
like "$(jq -r '.records[] | select(.axes.machine == "x86-virtio") | .reason' "$res" | head -n 1)" \
	"CONFIG_VIRTIO_IOMMU" "and the reason names the missing option"
is "$(o x86-intel edu-honest)" pass "edu-honest passes with sac_edu.ko built from $hdr"
is "$(o x86-intel edu-lying)" pass "edu-lying passes: the SAC trick hides the lying device"
is "$(jq -r '.records[] | select(.axes.machine == "x86-intel" and
	.axes.workload == "edu-lying") | .metrics["edu-lying.above_4g"]' "$res")" 0 \
	"every lying transfer's IOVA was below 4 GiB"
ko=$(ls -t "$BUILD_DIR/module/$(basename "$deb" .deb)"-*/sac_edu.ko 2>/dev/null | head -n 1)
like "$(/sbin/modinfo -F vermagic "$ko" 2>/dev/null)" "^${hdr#linux-headers-} " \
	"the module was built for $(dpkg-deb -f "$deb" Package) (vermagic)"
done_testing
