#!/bin/sh
# The installed system (farm/README.md, "Installed cells"): our amd64
# desktop and server .debs installed by dpkg into the farm's bookworm
# image (scripts/farm-image), booted on x86-intel through the initrd
# initramfs-tools made there and systemd, the agent a service of that
# system. Both reach multi-user.target and pass the root-disk check; the
# lying "GPU" loads its firmware on desktop and stalls the boot on
# server, a hang quoting systemd's last line and the IOMMU's faults.
# A .deb dpkg cannot install (an unmet dependency) is that cell's
# infra-error naming dpkg's error, with no image left half-made and no
# QEMU left running; so is an install stopped while its guest runs.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/debs/lib.sh
. "$(dirname "$0")/../debs/lib.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
command -v debootstrap >/dev/null || skip_all "debootstrap missing (make deps)"
need_debs amd64
desktop=$(deb "linux-image-$(kr_of desktop)" amd64)
server=$(deb "linux-image-$(kr_of server)" amd64)
[ -n "$desktop" ] && [ -n "$server" ] ||
	skip_all "no desktop and server images in $debs/amd64 (make debs ARCH=amd64)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 24

"$top/farm/farm" run --kernel "$desktop" --kernel "$server" \
	--machine x86-intel --workload installed-boot --workload installed-fw \
	--workload installed-blk --out "$tmp/r" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
res=$tmp/r/latest/results.json

for f in desktop server; do
	is "$(cell_rec $f installed-boot .outcome)" pass "$f: the installed system boots to the agent"
	is "$(cell_rec $f installed-boot .identity.uname)" "$(kr_of $f)" \
		"$f: it runs the kernel dpkg installed"
	is "$(cell_rec $f installed-blk .outcome)" pass "$f: the root disk behind the IOMMU reads back what was written"
done
log=$tmp/r/latest/$(cell_rec desktop installed-boot .log)
like "$(grep -a -n -e 'Reached target.*Multi-User System' -e "SAC [0-9a-f]* start" "$log" |
	cut -d: -f1 | tr '\n' ' ')" '^[0-9]+ [0-9]+ $' \
	"desktop: systemd reached multi-user.target before the agent started"
is "$(cell_rec desktop installed-boot '.timings_ms | has("systemd") and has("multi-user")')" true \
	"the record times the systemd and multi-user stages"
is "$(cell_rec desktop installed-fw .outcome)" pass "desktop: the lying card accepts its firmware (the SAC trick)"
like "$(cell_rec desktop installed-fw '.results[0].details.fw_status')" '^accepted try=1 ' \
	"desktop: at the first try"
is "$(cell_rec server installed-fw .outcome)" hang "server: the boot stalls on the card's firmware"
like "$(cell_rec server installed-fw .reason)" '^timed out waiting for stage multi-user; last systemd line \(line [0-9]+\): [A-Z]' \
	"server: the hang quotes systemd's last line"
like "$(grep -a -c 'sac-display: waiting for the card at' \
	"$tmp/r/latest/$(cell_rec server installed-fw .log)")" '^[1-9]' \
	"server: the console says what the system waits for"
like "$(cell_rec server installed-fw .reason)" 'IOMMU fault line' \
	"server: and the IOMMU faults before it"
image=$(ls -d "$BUILD_DIR"/farm-cache/image/installed-amd64-* | head -n 1)
like "$(cat "$image/install.log" 2>/dev/null)" "update-initramfs: Generating /boot/initrd.img-" \
	"the initrd that boots was made by initramfs-tools inside the image"

# dpkg refuses a package whose dependency nobody has
mkdir "$tmp/x"
dpkg-deb -R "$desktop" "$tmp/x/pkg"
sed -i 's/^Depends: /Depends: sac-farm-no-such-package, /' "$tmp/x/pkg/DEBIAN/control"
dpkg-deb -b "$tmp/x/pkg" "$tmp/x/unmet.deb" >/dev/null
"$top/farm/farm" run --kernel "$tmp/x/unmet.deb" --machine x86-intel \
	--workload installed-boot --out "$tmp/bad" >"$tmp/bad.out" 2>&1
status=$?
sed 's/^/# /' "$tmp/bad.out"
bad=$(jq -r '.records[0] | .outcome + ": " + .reason' "$tmp/bad/latest/results.json")
like "$bad" '^infra-error: .*dpkg.*(dependency problems|sac-farm-no-such-package)' \
	"a .deb dpkg cannot install is an infra-error naming dpkg's error"
is "$status" 1 "and that run is not as expected (exit 1)"
is "$(ls -d "$BUILD_DIR"/farm-cache/image/*.tmp 2>/dev/null | wc -l)" 0 \
	"no half-made image is left"
is "$(pgrep -f "qemu-system.*sacroot" | wc -l)" 0 "no QEMU is left running"

# An install stopped while its guest runs (a user's Ctrl-C, a CI limit):
# farm-image ends at once, its guest with it, and no half-made image is
# left. (A package of its own, so that no cached install answers.)
sed -i 's/^Depends: sac-farm-no-such-package, /Depends: /; s/^Version: .*/&+stop/' \
	"$tmp/x/pkg/DEBIAN/control"
dpkg-deb -b "$tmp/x/pkg" "$tmp/x/stop.deb" >/dev/null
"$top/scripts/farm-image" install amd64 "$tmp/x/stop.deb" >"$tmp/stop.out" 2>&1 &
fi_pid=$!
n=0
until pgrep -f "qemu-system-x86_64.*sac.image=install" >/dev/null || [ $n -ge 120 ]; do
	sleep 1
	n=$((n + 1))
done
[ $n -lt 120 ]
ok $? "farm-image's install guest started"
kill -TERM "$fi_pid"
n=0
while running "$fi_pid" && [ $n -lt 30 ]; do
	sleep 1
	n=$((n + 1))
done
! running "$fi_pid"
ok $? "a TERM during the install guest ends farm-image (not its guest's hour)"
wait "$fi_pid"
[ $? -ne 0 ]
ok $? "and it exits non-zero"
sleep 1
is "$(pgrep -f "qemu-system-x86_64.*sac.image=install" | wc -l)" 0 "its guest is gone"
is "$(ls -d "$BUILD_DIR"/farm-cache/image/*.tmp 2>/dev/null | wc -l)" 0 \
	"and no half-made image is left"
done_testing
