#!/bin/sh
# Paths with a blank in them. The farm writes its initramfs itself, so a
# build dir, a cache and an output dir with blanks work: Debian's stock
# kernel .deb is unpacked under "$tmp/build dir", its NVMe and virtio
# modules are packed from there, and the guests pass. A kernel build
# cannot live there (Linux's Makefile refuses such a source path):
# kernel-build says so in one line before it unpacks anything.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
[ -x "$BUILD_DIR/host/farm-runner" ] || skip_all "farm-runner not built (make farm-tools)"
stock_kernel 6.1 amd64
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"	# QEMU, run as nobody, reads the kernel from under it
plan 6

# The build dir with a blank: the farm's own tools by symlink, its cache
# (the unpacked .deb, the initramfs) for real.
b="$tmp/build dir"
mkdir -p "$b" "$tmp/my debs"
ln -s "$BUILD_DIR/host" "$b/host"
ln -s "$BUILD_DIR/guest" "$b/guest"
cp "$deb" "$tmp/my debs/"
BUILD_DIR=$b FARM_TOP=$top "$b/host/farm-runner" run \
	--kernel "$tmp/my debs/$(basename "$deb")" --machine x86-intel \
	--workload blk --workload nvme --out "$tmp/out dir" >"$tmp/run.out" 2>&1
is "$?" 0 "a run with blanks in its build, kernel and output paths exits 0"
sed 's/^/# /' "$tmp/run.out"
res="$tmp/out dir/latest/results.json"
for w in blk nvme; do
	is "$(jq -r --arg w "$w" '.records[] | select(.axes.workload == $w)
		| .outcome' "$res")" pass "$w passes, its modules packed from \"build dir\""
done
ls "$b"/farm-cache/initramfs/*/nvme.cpio >/dev/null 2>&1
ok $? "the initramfs was written under the build dir with a blank"

out=$(BUILD_DIR="$tmp/build dir" "$top/scripts/kernel-build" source amd64 farm desktop 2>&1)
is "$?" 1 "kernel-build refuses a build dir with a blank"
like "$out" "^kernel-build: error: cannot build a kernel under '$tmp/build dir': kbuild" \
	"... in one line naming it, before unpacking anything"
done_testing
