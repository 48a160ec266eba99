#!/bin/sh
# farm/farm triage end to end, on real guests. Every server edu-lying cell
# on x86-intel and arm64-smmuv3 faults; triage of its console log names
# the edu device (the identity's BDF and 1234:11e8) and suggests
# iommu.sac_devices=1234:11e8:sac. The same cells booted with that entry
# as a variant (triage=...) pass, as farm/policy.conf expects, and triage
# of their consoles finds nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
farm_test $SERIES-amd64-farm-server $SERIES-arm64-farm-server
machines="x86-intel arm64-smmuv3"
plan 18

# run OUT [OPTION]...: the edu-lying cells of both machines, server kernels
run() {
	out=$1
	shift
	# shellcheck disable=SC2086 # $kernels: one word per option
	"$farm" run --machine x86-intel --machine arm64-smmuv3 \
		--workload edu-lying $kernels --out "$tmp/$out" "$@" \
		>"$tmp/$out.out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/$out.out"
	return $rc
}

# q RUN MACHINE JQ: JQ applied to that machine's server edu-lying record
q() {
	jq -r --arg m "$2" ".records[] | select(.axes.machine == \$m and
		.axes.flavour == \"server\" and .axes.workload == \"edu-lying\") |
		$3" "$tmp/$1/latest/results.json" 2>/dev/null
}

# log RUN MACHINE: that cell's console log (.../latest/jobs/*/console.log)
log() {
	echo "$tmp/$1/latest/$(q "$1" "$2" .log)"
}

run faults
entries=
for m in $machines; do
	is "$(q faults "$m" .outcome)" iommu-fault "$m server edu-lying: iommu-fault"
	edu=$(q faults "$m" '.identity.pci[] | select(.vendor == "1234" and
		.device == "11e8") | .bdf')
	"$farm" triage "$(log faults "$m")" >"$tmp/$m.txt" 2>"$tmp/$m.err"
	is "$?:$(cat "$tmp/$m.err")" 1: "$m: triage exits 1 (findings), nothing on stderr"
	like "$(cat "$tmp/$m.txt")" "device $edu \\[1234:11e8\\]" \
		"$m: triage names the edu device ${edu:-?} as 1234:11e8"
	entry=$(sed -n 's/^suggest: //p' "$tmp/$m.txt")
	is "$entry" iommu.sac_devices=1234:11e8:sac "$m: triage suggests the entry"
	"$farm" triage --json "$(log faults "$m")" >"$tmp/$m.json"
	is "$(jq -r --arg b "$edu" '.devices[] | select(.bdf == $b) |
		"\(.verdict) \(.decodes_bits) \(.suggestion.cmdline)"' "$tmp/$m.json")" \
		"sac 32 iommu.sac_devices=1234:11e8:sac" \
		"$m: --json: verdict sac, the device decodes about 32 bits, the entry"
	entries="$entries${entries:+ }$entry"
done
# shellcheck disable=SC2086 # one word per machine
set -- $entries
[ "$#" -eq 2 ] && [ "$1" = "$2" ]
ok $? "both machines' consoles give the same entry ($entries)"

run fixed --variant "triage=$1"
ok $? "booted with the entry: every cell as farm/policy.conf expects"
for m in $machines; do
	is "$(q fixed "$m" '"\(.axes.variant) \(.outcome) \(.as_expected)"')" \
		"triage pass true" "$m server edu-lying@triage: pass, as expected"
	like "$(q fixed "$m" .cmdline)" " $1( |\$)" "$m: the guest booted with $1"
	"$farm" triage "$(log fixed "$m")" >"$tmp/$m.fixed" 2>&1
	like "$?:$(tail -n 1 "$tmp/$m.fixed")" "^0:nothing SAC-related in this log" \
		"$m: triage of the passing console finds nothing"
done
done_testing
