#!/bin/sh
# The kernel that ships, installed as a user installs it: the release
# base's amd64 desktop and server .debs (Debian's config, trimmed to the
# farm's modules, the flavour merged) installed into the farm's bookworm
# image and booted on x86-intel. From inside the guest, uname -r is the
# release kernel's (no farm in it) and its /boot/config says the
# flavour's SAC choice; the lying device passes on desktop and is caught
# on server, as on the farm base.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../debs/lib.sh"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
for f in desktop server; do
	d=$(flavour_debs release $f amd64) ||
		skip_all "no $(echo "$d" | tail -n 1) (make all-debs BASE=release)"
	set -- "$@" --kernel "$(echo "$d" | grep '/linux-image-[0-9]')"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 9

"$top/farm/farm" run "$@" --machine x86-intel --workload installed-boot \
	--workload edu-lying --out "$tmp/r" >"$tmp/out" 2>&1
sed 's/^/# /' "$tmp/out"
res=$tmp/r/latest/results.json

for f in desktop server; do
	kr=$("$top/scripts/gencontrol" --kr $f release)
	is "$(cell_rec release:$f installed-boot .outcome)" pass "release:$f: the installed system boots to the agent"
	is "$(cell_rec release:$f installed-boot .identity.uname)" "$kr" "release:$f: uname -r in the guest is $kr"
	like "$kr" "^[0-9.]+-sac-$f$" "release:$f: a release kernel's name, no base in it"
done
is "$(cell_rec release:desktop installed-boot .identity.sac)/$(cell_rec release:server installed-boot .identity.sac)" y/n \
	"the guests' /boot/config say desktop has the SAC trick and server has not"
is "$(cell_rec release:desktop edu-lying .outcome)" pass "release:desktop: the lying device works (the SAC trick)"
like "$(cell_rec release:server edu-lying .outcome)" "^(iommu-fault|data-corruption)$" \
	"release:server: the lying device is caught"
done_testing
