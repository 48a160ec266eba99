#!/bin/sh
# Pressure (patches 0005, 0006): the lying edu device with the 32-bit IOVA
# space of its domain exhausted, by its own mappings (edu-pressure) or by
# a sibling in its IOMMU group (edu-pressure-group), on x86-intel and
# arm64-smmuv3, both flavours, under each choice a distribution has: the
# flavour's global mode, adaptive, the device listed as sac, and the
# strict 32-bit limit. Every try-32-bit-first choice falls back above
# 4 GiB and must be caught, adaptive with its one notice quoted; server's
# full range is caught at once; the strict limit passes, its mapping
# refused cleanly.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
farm_test amd64-farm-desktop amd64-farm-server arm64-farm-desktop arm64-farm-server
machines="x86-intel arm64-smmuv3"
workloads="edu-pressure edu-pressure-group"
variants="default adaptive listed strict"
plan $((1 + 2 * 2 * 2 * (4 + 3)))

# shellcheck disable=SC2086
"$farm" run --machine x86-intel --machine arm64-smmuv3 $kernels \
	--workload edu-pressure --workload edu-pressure-group \
	--out "$tmp/p" >"$tmp/p.out" 2>&1
sed 's/^/# /' "$tmp/p.out"
res=$tmp/p/latest/results.json
is "$(jq '.records | length' "$res" 2>/dev/null)" 32 \
	"32 cells: 2 machines x 2 flavours x 2 workloads x 4 variants"

# q MACHINE FLAVOUR WORKLOAD VARIANT JQ: JQ applied to that cell's record
q() {
	jq -r --arg m "$1" --arg f "$2" --arg w "$3" --arg v "$4" ".records[] |
		select(.axes.machine == \$m and .axes.flavour == \$f and
		.axes.workload == \$w and .axes.variant == \$v) | $5" "$res" 2>/dev/null
}

for m in $machines; do
	for w in $workloads; do
		for f in desktop server; do
			for v in $variants; do
				o=$(q "$m" "$f" "$w" "$v" .outcome)
				c="$m $f $w@$v"
				if [ "$v" = strict ]; then
					is "$o" pass "$c: the strict limit keeps the device safe"
				else
					like "$o" '^(iommu-fault|data-corruption)$' \
						"$c: caught ($o: $(q "$m" "$f" "$w" "$v" .reason | cut -c1-160))"
				fi
			done
			is "$(q "$m" "$f" "$w" adaptive '.metrics["'"$w"'.notices"]')" 1 \
				"$m $f $w@adaptive: the kernel said once that the device switched"
			like "$(q "$m" "$f" "$w" adaptive .reason)" \
				'; 1 SAC fallback notice, first at line [0-9]+: "sac_edu [0-9a-f:.]+: Using [0-9]+-bit DMA addresses"' \
				"$m $f $w@adaptive: the reason quotes the notice, naming the device"
			like "$(q "$m" "$f" "$w" strict '.results[0].details.outcome')" \
				'^clean mapping error' \
				"$m $f $w@strict: the mapping was refused, no byte harmed ($(q "$m" "$f" "$w" strict '.results[0].details.sac'))"
		done
	done
done
done_testing
