#!/bin/sh
# The farm takes any distro kernel .deb: Debian's own current amd64
# image boots behind intel-iommu, loads its virtio/NVMe modules from the
# initramfs the farm packs, and passes blk and net; what it cannot run
# (no CONFIG_VIRTIO_IOMMU) is skipped with the reason, not failed.
. "$(dirname "$0")/../lib/tap.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
dir=$BUILD_DIR/stock-kernel
mkdir -p "$dir"
if ! ls "$dir"/linux-image-6.1.0-*-amd64_*.deb >/dev/null 2>&1; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || skip_all "apt does not know linux-image-amd64"
	(cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null 2>&1) ||
		skip_all "cannot download $pkg"
fi
deb=$(ls "$dir"/linux-image-6.1.0-*-amd64_*.deb | head -n 1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 4

"$top/farm/farm" run --kernel "$deb" --machine x86-intel --machine x86-virtio \
	--workload blk --workload net --out "$tmp/r" >"$tmp/out" 2>&1
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
done_testing
