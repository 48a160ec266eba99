#!/bin/sh
# The per-device SAC policy (patches 0002, 0003) on x86-intel and
# arm64-smmuv3, both flavours. The lying edu device that the server
# flavour exposes (edu-lying) is rescued there by iommu.sac_devices=
# while the virtio-blk disk in the same guest keeps full-range IOVAs; a
# driver that declares its 64-bit device good gets IOVAs above 4 GiB even
# on desktop; malformed list entries are each reported and the good ones
# still apply; the writable policy file and the built-in list show up in
# iommu_dma_sac/. The agent checks policy/source itself (workload fails
# otherwise); this test checks the numbers behind the claims.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
farm=$top/farm/farm
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels $SERIES-amd64-farm-desktop $SERIES-amd64-farm-server $SERIES-arm64-farm-desktop $SERIES-arm64-farm-server
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
workloads="edu-lying edu-listed edu-declared sac-list-bad"
plan $((2 * (2 * 4 + 8)))

# shellcheck disable=SC2086
"$farm" run --machine x86-intel --machine arm64-smmuv3 $kernels \
	$(for w in $workloads; do echo --workload "$w"; done) \
	--out "$tmp/m" >"$tmp/m.out" 2>&1
sed 's/^/# /' "$tmp/m.out"
res=$tmp/m/latest/results.json

# q MACHINE FLAVOUR WORKLOAD JQ: JQ applied to that cell's record
q() {
	jq -r --arg m "$1" --arg f "$2" --arg w "$3" ".records[] |
		select(.axes.machine == \$m and .axes.flavour == \$f and
		.axes.workload == \$w) | $4" "$res" 2>/dev/null
}

# sac MACHINE FLAVOUR WORKLOAD IDS: the iommu_dma_sac line of that device
sac() {
	q "$1" "$2" "$3" '.results[0].details | to_entries[] |
		select(.key | startswith("sac.")) | .value' | grep "^$4 "
}

for m in x86-intel arm64-smmuv3; do
	for f in desktop server; do
		for w in $workloads; do
			o=$(q "$m" "$f" "$w" .outcome)
			if [ "$w/$f" = edu-lying/server ]; then
				like "$o" '^(iommu-fault|data-corruption)$' \
					"$m $f $w: without the list the lying device fails ($o)"
			else
				is "$o" pass "$m $f $w passes"
			fi
		done
	done

	like "$(sac "$m" server edu-listed 1234:11e8)" \
		'policy=sac source=cmdline attempts=[1-9][0-9]* hits=[1-9][0-9]* fallbacks=0$' \
		"$m server edu-listed: edu is on the SAC path by the list, every try got a 32-bit IOVA"
	is "$(q "$m" server edu-listed '.metrics["edu-listed.above_4g"]')" 0 \
		"$m server edu-listed: no edu transfer used an IOVA above 4 GiB"
	like "$(sac "$m" server edu-listed 1af4:1042)" \
		'policy=dac source=default attempts=0 ' \
		"$m server edu-listed: the disk in the same guest never tried below 4 GiB"
	like "$(sac "$m" desktop edu-listed 1b36:0005)" 'policy=sac source=quirk ' \
		"$m desktop edu-listed: pci-testdev gets its policy from the built-in list"
	is "$(q "$m" desktop edu-listed '.results[0].details["knob.dac"]')" dac/sysfs \
		"$m desktop edu-listed: a policy written to sysfs wins"
	like "$(sac "$m" desktop edu-declared 1234:11e8)" 'policy=dac source=driver attempts=0 ' \
		"$m desktop edu-declared: the declared device skips the 32-bit attempt"
	is "$(q "$m" desktop edu-declared '.metrics["edu-declared.above_4g"] ==
		.metrics["edu-declared.transfers"] and .metrics["edu-declared.transfers"] > 0')" true \
		"$m desktop edu-declared: every transfer used an IOVA above 4 GiB ($(q "$m" desktop edu-declared '.results[0].details.iova_range'))"
	like "$(q "$m" server sac-list-bad '[.results[0].details | to_entries[] |
		select(.key | startswith("rejected")) | .value] | join(";")')" \
		'"12g4:11e8": IDs are four hex digits;.*"1234:11e8:xac": policy must be sac, dac, adaptive or bits=32\.\.64;.*"": want vendor:device;.*"1234:11e8:bits=0": policy must.*"1234:11e8:bits=65": policy must.*"1234:11e8:bits=x": policy must.*"1234:11e8:bits=12": policy must' \
		"$m server sac-list-bad: each malformed entry is named with its fault"
done
done_testing
