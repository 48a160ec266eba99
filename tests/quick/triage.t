#!/bin/sh
# triage (farm/farm triage): every fault format of every IOMMU family,
# written here in the words the kernel source prints and wrapped the ways
# logs reach a maintainer (plain dmesg, bare, journalctl -k with its
# prefix, journalctl -o short-monotonic, a "> "-quoted CRLF paste); the
# farm's own captured consoles; the composed logs of tests/data/triage;
# the analysis (cut IOVAs, 4 GiB, adaptive trips, another bug), the farm
# agent's data-corruption result where the IOMMU reported nothing, the
# suggestion, --json, --lspci, the bounds (long lines, NUL, many devices,
# many addresses, memory) and the refusals. The parser's unit tests
# (triage-unit) run first.
. "$(dirname "$0")/../lib/tap.sh"
tri=$BUILD_DIR/host/triage
unit=$BUILD_DIR/host/triage-unit
console=$top/tests/data/console
data=$top/tests/data/triage
[ -x "$tri" ] && [ -x "$unit" ] || skip_all "build first: make triage"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
styles="dmesg bare journal monotonic quoted"

# ---- the formats, one function each: the kernel's lines, nothing else ----

fmt_dmar61() { # 6.1: NO_PASID, 0x everywhere
	cat <<-'EOF'
	pci 0000:00:02.0: [1234:11e8] type 00 class 0x00ff00
	DMAR: DRHD: handling fault status reg 2
	DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set
	DMAR: DRHD: handling fault status reg 2
	DMAR: [DMA Write NO_PASID] Request device [00:02.0] fault addr 0xfffc0000 [fault reason 0x05] PTE Write access is not set
	EOF
}
fmt_dmar5x() { # 5.x: PASID ffffffff before the address, no 0x
	cat <<-'EOF'
	pci 0000:3b:00.1: [abcd:1001] type 00 class 0x020000
	DMAR: [DMA Read] Request device [3b:00.1] PASID ffffffff fault addr fffff000 [fault reason 06] PTE Read access is not set
	DMAR: [DMA Read] Request device [3b:00.1] PASID ffffffff fault addr ffffe000 [fault reason 06] PTE Read access is not set
	dmar_fault: 9 callbacks suppressed
	EOF
}
fmt_dmar_old() { # the oldest: the reason on a line of its own
	cat <<-'EOF'
	pci 0000:02:00.0: [abcd:1002] type 00 class 0x010400
	DMAR: DRHD: handling fault status reg 2
	DMAR:[DMA Write] Request device [02:00.0] fault addr fffc0000 
	DMAR:[fault reason 05] PTE Write access is not set
	EOF
}
fmt_dmar_low() { # a segment, 0x on the fields, and an address no cut explains
	cat <<-'EOF'
	pci 0001:05:00.0: [abcd:1003] type 00 class 0x010802
	DMAR: [DMA Read PASID 0x1] Request device [0x0001:0x05:0x00.0x0] fault addr 0x3ffff000 [fault reason 0x06] PTE Read access is not set
	EOF
}
fmt_amd61() { # 6.1: the faulting device names itself
	cat <<-'EOF'
	pci 0000:28:00.0: [1b21:0612] type 00 class 0x010601
	ahci 0000:28:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d address=0x7fffff00000 flags=0x0000]
	ahci 0000:28:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d address=0x7fffff00200 flags=0x0020]
	amd_iommu_report_page_fault: 5 callbacks suppressed
	EOF
}
fmt_amd_old() { # older: device= inside the brackets, no segment
	cat <<-'EOF'
	pci 0000:28:00.0: [1b21:0612] type 00 class 0x010601
	AMD-Vi: Event logged [IO_PAGE_FAULT device=28:00.0 domain=0x000d address=0x00007fffff00000 flags=0x0000]
	EOF
}
fmt_amd_split() { # one event over two lines
	cat <<-'EOF'
	pci 0000:28:00.0: [1b21:0612] type 00 class 0x010601
	AMD-Vi: Event logged [
	IO_PAGE_FAULT device=28:00.0 domain=0x000d address=0x7fffff00000 flags=0x0000]
	EOF
}
fmt_amd_iommu_prefix() { # 5.x: the prefix is the IOMMU's own function
	cat <<-'EOF'
	pci 0000:05:00.3: [abcd:1004] type 00 class 0x0c0330
	pci 0000:00:00.2: AMD-Vi: Event logged [IO_PAGE_FAULT device=05:00.3 domain=0x0008 address=0xffffffc0 flags=0x0020]
	EOF
}
fmt_smmuv3_raw() { # 6.1: the header, then the four raw words
	cat <<-'EOF'
	pci 0000:01:00.0: [abcd:1005] type 00 class 0x010802
	arm-smmu-v3 9050000.smmuv3: event 0x10 received:
	arm-smmu-v3 9050000.smmuv3: 	0x0000010000000010
	arm-smmu-v3 9050000.smmuv3: 	0x0000020080000000
	arm-smmu-v3 9050000.smmuv3: 	0x00000003ffffe000
	arm-smmu-v3 9050000.smmuv3: 	0x0000000000000000
	arm_smmu_evtq_thread: 2 callbacks suppressed
	EOF
}
fmt_smmuv3_decoded() { # newer kernels decode the event themselves
	cat <<-'EOF'
	pci 0000:01:00.0: [abcd:1005] type 00 class 0x010802
	arm-smmu-v3 arm-smmu-v3.0.auto: event: F_TRANSLATION client: 0000:01:00.0 sid: 0x100 ssid: 0x0 iova: 0xfffff000 ipa: 0x0
	arm-smmu-v3 arm-smmu-v3.0.auto: unpriv data write s1 "translation fault" stag: 0x0
	arm-smmu-v3 arm-smmu-v3.0.auto: EVTQ overflow detected -- events lost
	EOF
}
fmt_virtio() { # 6.1 viommu_fault_handler; the farm agent names the device
	cat <<-'EOF'
	SAC 0123456789abcdef identity {"uname":"6.1.192-sac-server","sac":"n","pci":[{"bdf":"0000:00:02.0","vendor":"1234","device":"11e8","group":2,"domain":"DMA"}]}
	virtio_iommu virtio0: page fault from EP 16 at 0xfffff000 [R]
	virtio_iommu virtio0: page fault from EP 16 at 0xffffe000 [W]
	viommu_fault_handler: 3 callbacks suppressed
	EOF
}
fmt_adaptive() { # newer mainline: the trip, then faults no address explains
	cat <<-'EOF'
	pci 0000:01:00.0: [abcd:1006] type 00 class 0x010802
	nvme 0000:01:00.0: Using 64-bit DMA addresses
	AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:01:00.0 domain=0x0002 address=0x1234000 flags=0x0000]
	EOF
}
fmt_series() { # this project's fallback line, naming the ID itself
	cat <<-'EOF'
	edu 0000:00:02.0: 32-bit IOVA space full, mapping above 4GB from now on; if the device then fails, its DMA mask is wider than it decodes: report it, and pin it first with iommu.sac_devices=1234:11e8:sac
	DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set
	EOF
}
fmt_intr() { # interrupt remapping: no DMA address at all
	cat <<-'EOF'
	DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x1c [fault reason 0x25] Blocked a compatibility format interrupt request
	EOF
}

# FORMAT BDF | ID FAMILY VERDICT FAULTS+SUPPRESSED BITS ABOVE_4G SUGGESTION
cases="dmar61 0000:00:02.0|1234:11e8 intel-dmar sac 2+0 32 0 iommu.sac_devices=1234:11e8:sac
dmar5x 0000:3b:00.1|abcd:1001 intel-dmar sac 2+9 32 0 iommu.sac_devices=abcd:1001:sac
dmar_old 0000:02:00.0|abcd:1002 intel-dmar sac 1+0 32 0 iommu.sac_devices=abcd:1002:sac
dmar_low 0001:05:00.0|abcd:1003 intel-dmar other 1+0 - 0 -
amd61 0000:28:00.0|1b21:0612 amd-vi sac 2+5 43 2 iommu.sac_devices=1b21:0612:sac
amd_old 0000:28:00.0|1b21:0612 amd-vi sac 1+0 43 1 iommu.sac_devices=1b21:0612:sac
amd_split 0000:28:00.0|1b21:0612 amd-vi sac 1+0 43 1 iommu.sac_devices=1b21:0612:sac
amd_iommu_prefix 0000:05:00.3|abcd:1004 amd-vi sac 1+0 32 0 iommu.sac_devices=abcd:1004:sac
smmuv3_raw 0000:01:00.0|abcd:1005 arm-smmu-v3 sac 1+2 34 1 iommu.sac_devices=abcd:1005:sac
smmuv3_decoded 0000:01:00.0|abcd:1005 arm-smmu-v3 sac 1+0 32 0 iommu.sac_devices=abcd:1005:sac
virtio 0000:00:02.0|1234:11e8 virtio-iommu sac 2+3 32 0 iommu.sac_devices=1234:11e8:sac
adaptive 0000:01:00.0|abcd:1006 amd-vi sac 1+0 - 0 iommu.sac_devices=abcd:1006:sac
series 0000:00:02.0|1234:11e8 intel-dmar sac 1+0 32 0 iommu.sac_devices=1234:11e8:sac
intr 0000:f0:1f.0|- intel-dmar other 1+0 - 0 -"
n_cases=$(printf '%s\n' "$cases" | wc -l)
# shellcheck disable=SC2086 # one word per style
n_styles=$(printf "%s\n" $styles | wc -l)
plan $((1 + n_cases * n_styles * 2 + 11 + 13 + 8 + 9 + 7 + 10 + 2))

"$unit" >"$t/unit" 2>&1
r=$?
grep '^not ok' "$t/unit" | sed 's/^/# /'
ok $r "unit tests of the parser ($(grep -c '^ok' "$t/unit") checks)"

# wrap STYLE: the lines on stdin as that kind of log
wrap() {
	case $1 in
	dmesg) awk '{ printf "[%5d.%06d] %s\n", NR, NR * 7, $0 }' ;;
	bare) cat ;;
	journal) sed 's/^/Dec 04 10:00:01 host kernel: /' ;;
	monotonic) awk '{ printf "[%5d.%06d] host kernel: %s\n", NR, NR, $0 }' ;;
	quoted) awk '{ printf "> [%5d.%06d] %s\r\n", NR, NR, $0 }' ;;
	esac
}

# flat FILE: its lines as one, for patterns that span them
flat() {
	tr '\n' ' ' <"$1"
}

# summary BDF [JSON...]: one line per report of what it said about that device
summary() {
	b=$1
	shift
	jq -r --arg b "$b" '.devices[] | select(.bdf == $b) |
		"\(.pci.id // "-") \(.family) \(.verdict) \(.faults)+\(.suppressed) \(.decodes_bits // "-") \(.above_4g) \(.suggestion.cmdline // "-")"' "$@"
}

while IFS='|' read -r head want; do
	f=${head% *}
	bdf=${head#* }
	for s in $styles; do
		"fmt_$f" | wrap "$s" >"$t/$f.$s"
		"$tri" --json "$t/$f.$s" >"$t/$f.$s.json" 2>"$t/err"
		is "$?:$(cat "$t/err")" 1: "$f ($s): exit 1, nothing on stderr"
	done
	# one jq for the five: it is the slow part
	# shellcheck disable=SC2046 # one word per style
	set -- $(for s in $styles; do echo "$t/$f.$s.json"; done)
	summary "$bdf" "$@" >"$t/got"
	for s in $styles; do
		read -r got
		is "$got" "$want" "$f ($s): $bdf $want"
	done <"$t/got"
done <<EOF
$cases
EOF

# ---- what the text says, and the analysis around the verdicts ----
fmt_dmar61 | wrap dmesg | "$tri" >"$t/text"
is "$?" 1 "text: exit 1 on findings"
text=$(cat "$t/text")
like "$text" "device 0000:00:02.0 \\[1234:11e8\\] \\(from the kernel's PCI enumeration\\), behind intel-dmar" \
	"text: the device, its ID and where the ID came from"
like "$text" "cut IOVA      2 of 2: the device decodes about 32 bits" "text: the cut IOVA and the bits"
like "$text" "strict limit  32 bits: what a future iommu.sac_devices=1234:11e8:bits=32" \
	"text: the strict limit a future :bits= entry would take, :sac suggested"
is "$(tail -n 2 "$t/text")" "suggest: iommu.sac_devices=1234:11e8:sac
quirk: CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"1234:11e8:sac\"" "text: ends with the entry and the quirk line"
is "$("$tri" "$t/dmar61.dmesg" | sed 1d)" "$(sed 1d "$t/text")" \
	"a file and standard input read the same"
is "$("$tri" --json "$t/adaptive.bare" | jq -r '.devices[0].adaptive_before_faults')" true \
	"adaptive: the trip came before the faults, which alone make it the trick"
{ fmt_amd61; fmt_virtio; fmt_dmar_low; } | "$tri" --json >"$t/many.json"
is "$(jq -r '.suggestion.cmdline' "$t/many.json")" \
	"iommu.sac_devices=1b21:0612:sac,1234:11e8:sac" \
	"two devices of two families: one entry for both, the low-address one left out"
fmt_dmar_low | "$tri" >"$t/low"
like "$?:$(flat "$t/low")" "^1:.*another bug: the fault addresses are below 4 GiB and none is a cut" \
	"faults below 4 GiB, not cut: another bug, said plainly"
! grep -q '^suggest:' "$t/low"
ok $? "... and no entry suggested"
printf 'Dec 04 10:00:00 host kernel: Linux version 6.1.192-sac-server\nDec 04 10:00:01 host systemd[1]: Reached target sysinit.target - System Initialization.\n[  *** ] A start job is running for /dev/disk/by-uuid/7d2a (12s / 1min 30s)\n' |
	"$tri" --json >"$t/clean.json"
is "$?:$(jq -r '"\(.found) \(.devices | length) \(.kernel.release) \(.kernel.last_target)|\(.kernel.start_job)"' "$t/clean.json")" \
	"0:false 0 6.1.192-sac-server sysinit.target - System Initialization|/dev/disk/by-uuid/7d2a" \
	"a clean log: exit 0, nothing found; the release, systemd's last target and start job"

# ---- the farm's captured consoles (tests/data/console) ----
cap() { "$tri" "$console/$1/console.log" >"$t/$1" 2>&1; echo $?; }
is "$(cap iommu-fault-dmar)" 1 "console iommu-fault-dmar: findings"
like "$(cat "$t/iommu-fault-dmar")" "device 0000:00:02.0 \\[1234:11e8\\] \\(from the farm agent's identity line\\)" \
	"console iommu-fault-dmar: the edu device, named by the agent's identity line"
like "$(cat "$t/iommu-fault-dmar")" "suggest: iommu.sac_devices=1234:11e8:sac" \
	"console iommu-fault-dmar: suggests iommu.sac_devices=1234:11e8:sac"
is "$(cap iommu-fault-smmuv3-arm64)" 1 "console iommu-fault-smmuv3-arm64: findings"
like "$(flat "$t/iommu-fault-smmuv3-arm64")" "device 0000:00:01.0 \\[1234:11e8\\].*from id       0x8, read as a PCI requester ID" \
	"console iommu-fault-smmuv3-arm64: StreamID 0x8 is 0000:00:01.0, the edu device"
like "$(flat "$t/iommu-fault-smmuv3-arm64")" "verdict       unknown: cannot tell: the faults \\(C_BAD_STREAMID\\).*suggest: iommu.sac_devices=1234:11e8:sac" \
	"console iommu-fault-smmuv3-arm64: no address to judge (C_BAD_STREAMID), the entry still to try"
# The composed case splices an arm64 event (edu at 00:01.0 on virt, StreamID
# 0x8) into an x86 log whose 00:01.0 is the VGA: triage follows the log.
is "$(cap iommu-fault-smmuv3)" 1 "console iommu-fault-smmuv3: findings"
like "$(flat "$t/iommu-fault-smmuv3")" "device 0000:00:01.0 \\[1234:1111\\].*F_TRANSLATION.*0x7ffffff000.*above 4 GiB   1 of 1" \
	"console iommu-fault-smmuv3: StreamID 0x8 (0000:00:01.0, 1234:1111 in that log), F_TRANSLATION above 4 GiB"
sed 's/0x0000000800000010/0x0000001000000010/' "$console/iommu-fault-smmuv3/console.log" >"$t/sid10.log"
"$tri" "$t/sid10.log" >"$t/sid10"
like "$(flat "$t/sid10")" "device 0000:00:02.0 \\[1234:11e8\\].*suggest: iommu.sac_devices=1234:11e8:sac" \
	"the same with edu's x86 StreamID 0x10: 0000:00:02.0, 1234:11e8, the entry"
is "$(cap pass)" 0 "console pass: exit 0"
like "$(cat "$t/pass")" "nothing SAC-related in this log" "console pass: says plainly that nothing is SAC-related"
quiet=
for d in "$console"/*/; do
	c=$(basename "$d")
	[ -f "$d/console.log" ] || continue
	# the cases whose console holds IOMMU faults are judged above
	grep -qx 'outcome=iommu-fault' "$d/case" 2>/dev/null && continue
	"$tri" "$d/console.log" >/dev/null 2>&1 || quiet="$quiet $c"
done
is "${quiet:-none}" none "every other captured console: nothing found (exit 0)"
"$tri" --json "$console/iommu-fault-smmuv3-arm64/console.log" >"$t/arm64.json"
is "$(jq -r '.devices[0] | "\(.bdf_from_id) \(.id) \(.faults) \(.type) \(.code)"' "$t/arm64.json")" \
	"true 0x8 10 C_BAD_STREAMID 2" "console iommu-fault-smmuv3-arm64 --json: ten events, the StreamID"

# ---- the composed logs of tests/data/triage ----
"$tri" --json --lspci "$data/lspci-nn.txt" "$data/amd-journal.log" >"$t/amd.json"
is "$?" 1 "amd-journal.log: findings"
is "$(summary 0000:28:00.0 "$t/amd.json")" "1b21:0612 amd-vi sac 3+37 43 3 iommu.sac_devices=1b21:0612:sac" \
	"amd-journal.log: the SATA controller, 3 faults (one split) + 37 suppressed, about 43 bits"
is "$(jq -r '.devices[0].pci | "\(.source): \(.name)"' "$t/amd.json")" \
	"lspci: ASMedia Technology Inc. ASM1062 Serial ATA Controller" "--lspci wins over the kernel's enumeration, with the name"
is "$(jq -r '.devices[] | select(.bdf == "0000:2a:00.0") | "\(.verdict) \(.adaptive_bits)"' "$t/amd.json")" \
	"adaptive 64" "amd-journal.log: the NIC only left the 32-bit path"
is "$(jq -r '.kernel.start_job' "$t/amd.json")" "/dev/disk/by-uuid/7d2a-0c1d" \
	"amd-journal.log: the start job systemd was still waiting for"
"$tri" "$data/intel-paste.log" >"$t/paste"
like "$?:$(flat "$t/paste")" "^1:.*iommu.forcedac=1.*112 more suppressed.*1 overflow marks.*device 0000:03:00.0, behind intel-dmar" \
	"intel-paste.log (quoted, CRLF, 5.x): the device, forcedac=1, 112 suppressed, an overflow"
like "$(cat "$t/paste")" "next: the log does not say what 0000:03:00.0 is: run \`lspci -nn -s 0000:03:00.0\`" \
	"intel-paste.log: no ID in the log: the next step is lspci -nn"
"$tri" --json "$data/intel-paste.log" >"$t/paste.json"
is "$(jq -r '"\(.devices[0].suggestion) \(.suggestion) \(.devices[0].decodes_bits)"' "$t/paste.json")" \
	"null null 32" "intel-paste.log --json: no suggestion without an ID, 32 bits"

# ---- silent corruption: no fault line, only the farm agent's result ----
# QEMU 7.2's AMD IOMMU reports no fault for the lying edu device: the
# server edu-lying cell only corrupts data, and its result says where.
silent=$data/x86-amd-silent.log
"$tri" "$silent" >"$t/silent"
like "$?:$(flat "$t/silent")" "^1:.*device 0000:00:03.0 \\[1234:11e8\\] \\(from the farm agent's identity line\\) +family +none \\(no fault reported: silent corruption\\)" \
	"x86-amd-silent.log: no fault line, yet 0000:00:03.0 [1234:11e8] (identity line), family none: silent corruption"
like "$(flat "$t/silent")" "dma buffers   16 of 16 in its working set above 4 GiB.*verdict       sac: .*edu-lying result \\(line 29\\).*no fault was reported" \
	"x86-amd-silent.log: 16 of 16 buffers above 4 GiB, verdict sac"
is "$(tail -n 2 "$t/silent")" "suggest: iommu.sac_devices=1234:11e8:sac
quirk: CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"1234:11e8:sac\"" \
	"x86-amd-silent.log: suggests iommu.sac_devices=1234:11e8:sac and the quirk line"
"$tri" --json "$silent" >"$t/silent.json"
is "$(summary 0000:00:03.0 "$t/silent.json")" "1234:11e8 none sac 0+0 - 0 iommu.sac_devices=1234:11e8:sac" \
	"x86-amd-silent.log --json: family none, no fault, verdict sac, the entry"
is "$(jq -r '.devices[0].silent_corruption | "\(.first_line) \(.workload) \(.above_4g)/\(.working_set) \(.addresses | length) \(.addresses[0])"' "$t/silent.json")" \
	"29 edu-lying 16/16 6 0xfffffffffffec000" \
	"x86-amd-silent.log --json: the result's line, workload, buffers above 4 GiB, addresses"
# Today's agent chains its lines (a seq and a mac before the JSON); a
# user's log comes without the job's key, so triage reads them unchecked.
mac=$(printf '%064d' 0)
sed -E "s/^(SAC 5ac0ffee00a3d000 [a-z]+) \{/\1 7 $mac {/" "$silent" >"$t/chained.log"
"$tri" --json "$t/chained.log" >"$t/chained.json"
is "$(summary 0000:00:03.0 "$t/chained.json")" "$(summary 0000:00:03.0 "$t/silent.json")" \
	"chained agent lines (seq, mac unchecked): the same finding"
is "$(jq -c .devices[0].silent_corruption "$t/chained.json")" \
	"$(jq -c .devices[0].silent_corruption "$t/silent.json")" \
	"chained agent lines: the same silent corruption, line for line"
sed '/ result /{s/above_4g=16/above_4g=0/;s/0xfffffffffff/0x00000000fff/g}' "$silent" >"$t/low-silent.log"
"$tri" "$t/low-silent.log" >"$t/low-silent"
like "$?:$(flat "$t/low-silent")" "^1:.*dma buffers   0 of 16 .*verdict       other: another bug: the farm agent's edu-lying result \\(line 29\\) found the data corrupted with no DMA buffer above 4 GiB" \
	"a data-corruption result with above_4g=0: no sac verdict, another bug"
! grep -q '^suggest:' "$t/low-silent"
ok $? "... and no entry suggested"
# forged NAME LINE: the identity, then LINE; triage's exit status
id_line=$(grep '^SAC 5ac0ffee00a3d000 identity ' "$silent")
good=$(sed -n 's/^SAC 5ac0ffee00a3d000 result //p' "$silent")
r='SAC 5ac0ffee00a3d000 result'
f='"workload":"edu-lying","status":"fail","reason":"data-corruption: 64 of 64 bytes differ"'
forged() {
	printf '%s\n%s\n' "$id_line" "$2" >"$t/forged-$1.log"
	"$tri" "$t/forged-$1.log" >"$t/forged-$1" 2>&1
	echo $?
}
is "$(forged good "$r {$f,\"details\":{\"dev0\":\"0000:00:03.0 above_4g=1\"}}")" 1 \
	"the identity and a minimal data-corruption result: findings (the control for the forged lines)"
long=$(head -c 4000 /dev/zero | tr '\0' x)
loud=
n_forged=0
while IFS='|' read -r name line; do
	n_forged=$((n_forged + 1))
	[ "$(forged "$name" "$line")" = 0 ] || loud="$loud $name"
done <<EOF
array|$r {$f,"details":["0000:00:03.0 above_4g=16"]}
object|$r {$f,"details":{"dev0":{"bdf":"0000:00:03.0","above_4g":16}}}
no-bdf|$r {$f,"details":{"dev0":"ws=16 above_4g=16"}}
bad-bdf|$r {$f,"details":{"dev0":"0000:00:03.9 above_4g=16"}}
bdf-glued|$r {$f,"details":{"dev0":"0000:00:03.0,above_4g=16"}}
words|$r {$f,"details":{"dev0":"0000:00:03.0 ws=16 above_4g=lots"}}
negative|$r {$f,"details":{"dev0":"0000:00:03.0 above_4g=-16"}}
huge|$r {$f,"details":{"dev0":"0000:00:03.0 above_4g=99999999999999999999"}}
ws-only|$r {$f,"details":{"dev0":"0000:00:03.0 ws_above_4g=16"}}
key|$r {$f,"details":{"device0":"0000:00:03.0 above_4g=16"}}
key-zero|$r {$f,"details":{"dev00":"0000:00:03.0 above_4g=16"}}
key-tail|$r {$f,"details":{"dev0x":"0000:00:03.0 above_4g=16"}}
reason|$r {"workload":"edu-lying","status":"fail","reason":"timeout","details":{"dev0":"0000:00:03.0 above_4g=16"}}
reason-array|$r {"workload":"edu-lying","status":"fail","reason":["data-corruption"],"details":{"dev0":"0000:00:03.0 above_4g=16"}}
pass|$r {"workload":"edu-lying","status":"pass","reason":"data-corruption","details":{"dev0":"0000:00:03.0 above_4g=16"}}
no-workload|$r {"status":"fail","reason":"data-corruption","details":{"dev0":"0000:00:03.0 above_4g=16"}}
duplicate|$r {$f,"details":{"dev0":"0000:00:03.0 above_4g=16","dev0":"0000:00:03.0 above_4g=16"}}
not-json|$r {dev0: 0000:00:03.0 above_4g=16}
cut|$(printf '%s %s' "$r" "$good" | cut -c 1-400)
trailing|$r $good junk
nonce|SAC 0123456789abcdef result $good
kind|SAC 5ac0ffee00a3d000 results $good
too-long|$r {$f,"details":{"dev0":"0000:00:03.0 above_4g=16","pad":"$long"}}
EOF
is "${loud:-none}" none "$n_forged forged or misshapen result lines (shape, nonce, kind, length): each ignored, nothing found"

# ---- bounds: long lines, NUL, no newline, many devices and addresses ----
fault='DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault reason 0x06] x'
{ head -c 20000 /dev/zero | tr '\0' x; printf '\n%s\n' "$fault"; } | "$tri" --json >"$t/long.json"
is "$(jq -r '"\(.cut_lines) \(.devices[0].faults)"' "$t/long.json")" "1 1" \
	"a 20000-byte line is cut and counted; the fault after it is found"
printf 'DMAR: [DMA Read NO_PASID] Req\000uest device [00:02.0] fault a\rddr 0xfffff000\r\n%s' "$fault" |
	"$tri" --json >"$t/nul.json"
is "$(jq -r '"\(.lines) \(.devices[0].faults) \(.devices[0].addresses[0])"' "$t/nul.json")" \
	"2 2 0xfffff000" "NUL and stray CR dropped; the last line needs no newline"
awk 'BEGIN { for (i = 0; i < 100; i++) printf "DMAR: [DMA Read NO_PASID] Request device [%02x:00.0] fault addr 0xfffff000 [fault reason 0x06] x\n", i }' |
	"$tri" --json >"$t/devs.json"
is "$?:$(jq -r '"\(.devices | length) \(.devices_dropped_events) \(.families["intel-dmar"].faults)"' "$t/devs.json")" \
	"1:64 36 100" "100 faulting devices: 64 kept, the rest counted"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x%x [fault reason 0x06] x\n", 4294967296 - 4096 * (i + 1) }' |
	"$tri" --json >"$t/addrs.json"
is "$(jq -r '.devices[0] | "\(.addresses | length) \(.addresses_unlisted) \(.with_address) \(.cut)"' "$t/addrs.json")" \
	"16 4984 5000 5000" "5000 distinct addresses: 16 listed, the rest counted, every one a cut IOVA"
awk -v f="$fault" 'BEGIN { for (i = 0; i < 100000; i++) { print f; print "usb 1-1: new high-speed USB device number 3 using xhci_hcd and some more words" } }' >"$t/big.log"
/usr/bin/time -f %M -o "$t/rss" "$tri" "$t/big.log" >/dev/null 2>&1
rss=$(tail -n 1 "$t/rss")
[ "${rss:-99999}" -lt 8192 ]
ok $? "a $(($(wc -c <"$t/big.log") / 1048576)) MiB log is streamed: ${rss:-?} KiB resident"
head -c 300000 /dev/urandom >"$t/junk"
"$tri" --json "$t/junk" >"$t/junk.json" 2>"$t/err"
r=$?
[ $r -le 1 ] && [ ! -s "$t/err" ] && jq -e . "$t/junk.json" >/dev/null
ok $? "300 KB of random bytes: exit $r, nothing on stderr, valid JSON"
: >"$t/empty"
is "$("$tri" "$t/empty" >/dev/null; echo $?)" 0 "an empty log: exit 0"

# ---- refusals: exit 2, one line on stderr ----
refuse() { # DESCRIPTION ARG...
	what=$1
	shift
	"$tri" "$@" >"$t/out" 2>"$t/err"
	r=$?
	[ $r -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && [ ! -s "$t/out" ] &&
		grep -q '^triage: error: ' "$t/err"
	ok $? "$what: exit 2 (got $r), one line: $(cat "$t/err")"
}
refuse "a missing log" "$t/no-such.log"
refuse "a directory" "$t"
refuse "an unknown option" --bogus "$t/empty"
refuse "two logs" "$t/empty" "$t/empty"
refuse "--lspci without a file" "$t/empty" --lspci
refuse "--lspci of a missing file" --lspci "$t/no-such" "$t/empty"
refuse "--lspci of a file with no lspci line" --lspci "$t/empty" "$t/empty"
"$tri" --help >"$t/out" 2>&1
like "$?:$(head -n 1 "$t/out")" "^0:usage: triage \\[FILE\\|-\\]" "--help: usage on stdout, exit 0"
out=$(BUILD_DIR=$t/b "$top/farm/farm" triage --help 2>&1)
like "$?:$out" "^0:usage: farm triage \\[FILE\\|-\\] \\[--lspci FILE\\] \\[--json\\]" \
	"farm triage --help: its usage, exit 0"
[ ! -e "$t/b" ]
ok $? "farm triage --help built nothing"
done_testing
