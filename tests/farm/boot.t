#!/bin/sh
# The farm end to end: every flavour boots on x86-intel and arm64-smmuv3
# and proves from inside the guest which flavour it is; every job's agent
# lines are chained under its own key, which is nowhere else; a stalled
# guest is reported as a hang within its timeout and leaves no QEMU
# behind; the results files parse and count right; bad input is refused.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/flavours.sh"
farm=$top/farm/farm

kernels='' nk=0
for k in $(farm_kernels); do
	if [ -f "$BUILD_DIR/kernel/$k/.sac-built" ]; then
		kernels="$kernels --kernel $BUILD_DIR/kernel/$k"
		nk=$((nk + 1))
	else
		echo "# $k is not built: its jobs are left out"
	fi
done
[ "$nk" -gt 0 ] || skip_all "no farm kernel built (make all-kernels)"
command -v jq >/dev/null || skip_all "jq missing"
desktop=$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop
[ -f "$desktop/.sac-built" ] || desktop=$BUILD_DIR/kernel/$SERIES-arm64-farm-desktop

plan $((4 * nk + 22))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- every flavour boots and says which flavour it is -----------------
# shellcheck disable=SC2086
"$farm" run --machine x86-intel --machine arm64-smmuv3 --workload boot \
	$kernels --out "$tmp/boot" >"$tmp/boot.out" 2>&1
ok $? "farm run (boot on x86-intel and arm64-smmuv3) exits 0"
sed 's/^/# /' "$tmp/boot.out"
res=$tmp/boot/latest/results.json

for k in $kernels; do
	[ "$k" = --kernel ] && continue
	name=${k##*/} flavour=${k##*-}
	want_sac=y
	trick_off "$flavour" && want_sac=n
	rec=$(jq -c --arg k "$name" '.records[] | select(.axes.kernel == $k)' \
		"$res" 2>/dev/null)
	is "$(printf '%s' "$rec" | jq -r .outcome)" pass "$name: boot passes"
	like "$(printf '%s' "$rec" | jq -r .identity.uname)" "-sac-$flavour\$" \
		"$name: uname -r inside the guest ends -sac-$flavour"
	is "$(printf '%s' "$rec" | jq -r .identity.sac)" "$want_sac" \
		"$name: guest's own config says IOMMU_DMA_PCI_SAC=$want_sac"
	is "$(printf '%s' "$rec" | jq -r .accel)" tcg \
		"$name: ran under TCG (KVM does not work on this host)"
done

is "$(jq '.records | length' "$res")" "$nk" \
	"results.json has one record per job"
is "$(jq -r '[.records[].nonce] | unique | length' "$res")" "$nk" \
	"every job had its own nonce"
junit=$tmp/boot/latest/junit.xml
if command -v xmllint >/dev/null; then
	xmllint --noout "$junit"
	ok $? "junit.xml is well-formed XML"
	is "$(xmllint --xpath 'count(//testcase)' "$junit")" "$nk" \
		"junit.xml has one testcase per job"
else
	grep -q '</testsuites>' "$junit"
	ok $? "junit.xml is complete"
	is "$(grep -c '<testcase ' "$junit")" "$nk" "junit.xml has one testcase per job"
fi
is "$(grep -c '<failure' "$junit")" 0 "junit.xml has no failures"

# --- the chain's key (farm/PROTOCOL.md, "Integrity") ----------------------
jobs=$tmp/boot/latest/jobs
is "$(stat -c '%a %s' "$jobs"/*/key | sort -u)" "600 65" \
	"every job has its key file: mode 600, 64 hex digits and a newline"
is "$(find "$jobs" -name keyed.cpio | wc -l)" 0 \
	"no job's keyed initrd is left behind"
: >"$tmp/leak"
for k in "$jobs"/*/key; do
	grep -rlF "$(cat "$k")" "$tmp/boot" | grep -v '/key$' >>"$tmp/leak"
done
is "$(cat "$tmp/leak")" "" "no key is anywhere in the run but in its key file"
is "$(jq -r '.records[] | .nonce as $n | .cmdline | startswith("sac.nonce=\($n) sac.run=boot ")' "$res" | sort -u)" \
	true "every command line starts with the agent's orders, the nonce first"
is "$(jq -r '.records[] | "\(.counts.bad) \(.evidence | test("^SAC [0-9a-f]{16} done 5 [0-9a-f]{64} "))"' "$res" | sort -u)" \
	"0 true" "every job's chain verified, sealed by done at seq 5"
! grep -l 'sac-agent: no key' "$jobs"/*/console.log
ok $? "every agent found its key"

# --- a stalled agent is a hang, within its timeout, with no QEMU left ----
start=$(date +%s)
"$farm" run --machine x86-intel --machine arm64-smmuv3 --workload boot \
	--kernel "$desktop" --variant stall=sac.stall=agent \
	--out "$tmp/hang" >"$tmp/hang.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
sed 's/^/# /' "$tmp/hang.out"
[ "$rc" -ne 0 ]
ok $? "a run with a hung job exits non-zero"
rec=$(jq -c '.records[0]' "$tmp/hang/latest/results.json")
is "$(printf '%s' "$rec" | jq -r .outcome)" hang "the stalled job is a hang"
# The agent prints its start line, then stalls: the stage that times out
# is the first one after the agent came up.
like "$(printf '%s' "$rec" | jq -r .stage)" '^(agent|boot)$' \
	"the hang is at the agent's stage (agent up, workload never begun)"
like "$(printf '%s' "$rec" | jq -r .reason)" 'timed out' \
	"the reason says which wait timed out"
[ "$took" -lt 90 ]
ok $? "the hang is reported within its timeout (${took} s)"
nonce=$(printf '%s' "$rec" | jq -r .nonce)
! pgrep -f "sac.nonce=$nonce" >/dev/null
ok $? "no QEMU of the hung job is left running"
is "$(grep -c '<failure' "$tmp/hang/latest/junit.xml")" 1 \
	"junit.xml reports the hang as one failure"
grep -q 'SAC [0-9a-f]* start' "$tmp/hang/latest/junit.xml"
ok $? "the failure body holds the last console lines"

# --- bad input: one clear error, non-zero, no run ------------------------
out=$("$farm" run --kernel /etc/passwd 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'error')" -eq 1 ]
ok $? "a file that is not a .deb is refused with one error line"
if out=$("$farm" run --machine no-such-machine 2>&1); then
	false
else
	printf '%s' "$out" | grep -q "unknown machine 'no-such-machine'"
fi
ok $? "an unknown machine is refused by name"

done_testing
