#!/bin/sh
# The release gate on synthetic farm results: what ships, what blocks
# (missing work included), reruns that no shell sees, the baseline, and
# bad input.
. "$(dirname "$0")/../lib/tap.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/tests/gate/fixtures.sh"
plan 71

# The policy line that decides a cell expected to pass.
pass_line=$(grep -n '^expect \* \* \* \* pass' "$policy" | cut -d: -f1)

out=$("$gate" --help)
is $? 0 "--help exits 0"
like "$out" "^usage: gate RUN_DIR .*--save-baseline DIR" "--help prints the usage on stdout"
"$gate" --bogus >/dev/null 2>&1
is $? 2 "an unknown option is bad input (exit 2)"

run good "$(rec desktop x86-intel edu-lying pass '{"edu-lying.bytes_wrong":0}')" \
	"$(rec server x86-intel edu-lying iommu-fault)" \
	"$(rec desktop x86-intel blk pass '{"blk.read_mib_s":100}')" \
	"$(rec server x86-intel boot pass)"
out=$("$gate" "$t/good" --policy "$policy" --no-rerun)
is $? 0 "a run that meets the policy ships (exit 0)"
like "$(echo "$out" | tail -n 2 | head -n 1)" "^VERDICT: SHIP - 4 cells: 4 ok \(1 known hazards seen, 0 failures accepted\)" "one-line verdict"
like "$out" "server/amd64/x86-intel/edu-lying +iommu-fault\|data-corruption +iommu-fault +ok +known hazard seen" "the hazard cell is reported as seen"
for f in junit.xml kcidb.json report.html; do
	[ -s "$t/good/$f" ]
	ok $? "writes $f"
done
xmllint --noout "$t/good/junit.xml" 2>/dev/null
ok $? "junit.xml is well-formed XML"
is "$(grep -c '<testcase ' "$t/good/junit.xml")" 4 "junit.xml has one testcase per cell"
is "$(grep -c '<failure' "$t/good/junit.xml")" 0 "and no failures"
like "$(tr -d ' \n' <"$t/good/kcidb.json")" '"version":\{"major":4,"minor":0\}.*"checkouts":\[\{.*"builds":\[\{.*"tests":\[\{' \
	"kcidb.json has version, checkouts, builds and tests"
report=$(cat "$t/good/report.html")
like "$report" "$(deb_of desktop).*6\.1\.192-1.*(de){32}" "report.html names the desktop package, its version and sha256"
like "$report" "$(deb_of server).*6\.1\.192-1.*(5e){32}" "and the server package"

run broke "$(rec desktop x86-intel blk data-corruption)" "$(rec server x86-intel edu-lying iommu-fault)"
out=$("$gate" "$t/broke" --policy "$policy" --no-rerun)
is $? 1 "an expected pass that failed blocks (exit 1)"
like "$out" "desktop/amd64/x86-intel/blk .*FAIL +expected pass, got data-corruption" "names the cell and what it got"
like "$out" "desktop/amd64/x86-intel/blk .*FAIL .*\(policy line $pass_line\)" "and the policy line that decided it"
is "$(grep -c '<failure type="data-corruption"' "$t/broke/junit.xml")" 1 "junit.xml counts the failure, typed by its outcome"

run hazard "$(rec server x86-intel edu-lying pass)"
out=$("$gate" "$t/hazard" --policy "$policy" --no-rerun)
is $? 1 "a known hazard that passes blocks"
like "$out" "known hazard passed.*\(policy line $(grep -n '^expect server \* \* edu-lying iommu' "$policy" | cut -d: -f1)\)" \
	"and says the farm stopped seeing it, naming the hazard's policy line"

# A flavour on two bases: the farm base's cells (server) and the release
# base's (release:server) are cells of their own, each judged once; a
# policy line without a base is about both, one with a base about one.
run bases "$(rec server x86-intel edu-lying iommu-fault)" \
	"$(rec release:server x86-intel edu-lying iommu-fault)" \
	"$(rec release:desktop x86-intel edu-lying pass)"
out=$("$gate" "$t/bases" --policy "$policy" --no-rerun)
is $? 0 "server's hazard line holds on the release base too"
like "$out" "VERDICT: SHIP - 3 cells: 3 ok" "one flavour on two bases is two cells"
{ cat "$policy"; echo 'expect release:server * * edu-lying pass'; } >"$t/base-policy"
out=$("$gate" "$t/bases" --policy "$t/base-policy" --no-rerun)
is $? 1 "a line naming the release base..."
like "$out" "^release:server/amd64/x86-intel/edu-lying +pass +iommu-fault +FAIL " \
	"...judges the release base's cell"
like "$out" "^server/amd64/x86-intel/edu-lying +iommu-fault\|data-corruption +iommu-fault +ok " \
	"and not the farm base's"

# A failure the policy accepts (x86-amd server net: QEMU's AMD-Vi IOTLB)
# does not block, but is never shown as a plain pass: "accepted" with
# the policy's reason in the table, its own colour in report.html, a
# <system-out> in junit.xml, a waived FAIL in kcidb.json.
acc_line=$(grep -n '^expect server amd64 x86-amd net ' "$policy" | cut -d: -f1)
run accepted "$(rec server x86-amd net data-corruption)" "$(rec server x86-intel net pass)"
out=$("$gate" "$t/accepted" --policy "$policy" --no-rerun)
is $? 0 "an accepted data-corruption does not block (exit 0)"
row=$(echo "$out" | grep '^server/amd64/x86-amd/net ')
like "$row" "data-corruption +accepted +accepted: .*amdvi_iotlb_lookup.*\(policy line $acc_line\)" \
	"the table says accepted, with the policy's reason (the QEMU function) and line"
! printf '%s' "$row" | grep -q ' ok '
ok $? "and never ok"
like "$(echo "$out" | tail -n 2 | head -n 1)" "2 ok \(0 known hazards seen, 1 failures accepted\)" "the verdict line counts it"
html=$(grep '<td>amd64/x86-amd</td><td>net</td>' "$t/accepted/report.html")
like "$html" '<tr class="accepted" style="background:#ffb347">' "report.html gives the row the accepted colour"
! printf '%s' "$html" | grep -q '#b8e2b8'
ok $? "not the pass green"
like "$html" '<td>accepted</td><td>accepted: QEMU 7.2 .*amdvi_iotlb_lookup' "and shows the reason on the row"
like "$(grep 'class="verdict"' "$t/accepted/report.html")" "SHIP: .*1 failure accepted by the policy" \
	"the banner names the accepted failure"
like "$(tr -d '\n' <"$t/accepted/junit.xml")" 'name="net" [^>]*>[[:space:]]*<system-out>accepted: QEMU 7.2' \
	"junit.xml carries the reason in the case's system-out"
is "$(jq -r '.tests[] | select(.misc.cell == "server/amd64/x86-amd/net") | "\(.status) \(.waived) \(.misc.gate)"' "$t/accepted/kcidb.json")" \
	"FAIL true accepted" "kcidb.json: a waived FAIL, not a PASS"
like "$(echo "$out" | grep '^server/amd64/x86-intel/net ')" "pass +ok *$" "a plain pass is still plain"
# The same aliasing on the release base's installed boots (virtio-blk
# served AHCI's translations): accepted on release:server x86-amd alone.
# Desktop, the farm base and x86-intel never map near 2^64 beside AHCI,
# so a hang there still blocks.
blk_line=$(grep -n '^expect release:server amd64 x86-amd installed-b\* ' "$policy" | cut -d: -f1)
run ahci "$(rec release:server x86-amd installed-boot hang)" "$(rec release:server x86-amd installed-blk hang)"
out=$("$gate" "$t/ahci" --policy "$policy" --no-rerun)
is $? 0 "a release server installed boot that hangs on x86-amd does not block"
like "$(echo "$out" | grep '^release:server/amd64/x86-amd/installed-boot ')" \
	"hang +accepted +accepted: .*served AHCI's translations.*\(policy line $blk_line\)" \
	"it is accepted, with the policy's reason and line"
run ahci-elsewhere "$(rec release:desktop x86-amd installed-boot hang)" \
	"$(rec server x86-amd installed-boot hang)" "$(rec release:server x86-intel installed-boot hang)"
out=$("$gate" "$t/ahci-elsewhere" --policy "$policy" --no-rerun)
is "$(echo "$out" | grep -c 'installed-boot .*FAIL')" 3 "on desktop, the farm base or x86-intel it blocks"
printf 'expect * * * * pass\nexpect * * * net pass|data-corruption\n' >"$t/noreason.conf"
err=$("$gate" "$t/accepted" --policy "$t/noreason.conf" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$err" | grep -q "noreason.conf:2: .*must say why"
ok $? "a policy accepting a failure with no reason is refused ($err)"
printf 'expect * * * * pass\nexpect * * * net pass|data-corruption because\n' >"$t/noreason.conf"
err=$("$gate" "$t/accepted" --policy "$t/noreason.conf" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$err" | grep -q "noreason.conf:2: because needs a reason"
ok $? "and so is an empty reason ($err)"

run fast "$(rec desktop x86-intel blk pass '{"blk.read_mib_s":100}')"
run slow "$(rec desktop x86-intel blk pass '{"blk.read_mib_s":50}')"
out=$("$gate" "$t/slow" --policy "$policy" --no-rerun --baseline "$t/fast")
is $? 1 "a metric regression beyond its limit blocks"
like "$out" "blk.read_mib_s -50.0% against the baseline, limit -30% \(policy line [0-9]+\)" "names the metric, the delta, the limit and its line"
"$gate" "$t/fast" --policy "$policy" --no-rerun --baseline "$t/slow" >/dev/null
ok $? "an improvement does not block"

run missing "$(rec desktop x86-intel blk pass)"
out=$("$gate" "$t/missing" --policy "$policy" --no-rerun --baseline "$t/good")
is $? 1 "a cell the baseline had and the run lacks blocks"
like "$out" "server/amd64/x86-intel/edu-lying .*\(missing\) +FAIL +cell missing" "and is named"

EXTRA_CELLS="server/amd64/x86-intel/blk desktop/amd64/x86-intel/blk@stall" \
	run undeclared "$(rec desktop x86-intel blk pass)"
out=$("$gate" "$t/undeclared" --policy "$policy" --no-rerun)
is $? 1 "cells the matrix declares but the run lacks block, without a baseline"
like "$out" "server/amd64/x86-intel/blk .*\(missing\) +FAIL +cell missing from the run \(policy line $pass_line\)" "each missing cell is named with its policy line"
like "$out" "desktop/amd64/x86-intel/blk@stall .*\(missing\) +FAIL" "a missing variant cell too"

run skipped "$(rec desktop x86-intel blk pass)" "$(rec desktop x86-intel nvme skip)"
out=$("$gate" "$t/skipped" --policy "$policy" --no-rerun)
is $? 1 "a skip the policy does not expect blocks"
like "$out" "desktop/amd64/x86-intel/nvme .*skip +FAIL +unexpected skip" "and is called an unexpected skip"

printf 'expect * * * * pass|skip\n' >"$t/skips.conf"
run allskip "$(rec desktop x86-intel blk skip)" "$(rec server x86-intel blk skip)"
out=$("$gate" "$t/allskip" --policy "$t/skips.conf" --no-rerun)
is $? 1 "a run in which every cell was skipped blocks, even when the policy allows skips"
like "$out" "VERDICT: BLOCK .*no cell ran" "the verdict says no cell ran"
"$gate" "$t/allskip" --policy "$policy" --no-rerun >/dev/null
is $? 1 "and blocks under the release policy"
run empty
out=$("$gate" "$t/empty" --policy "$policy" --no-rerun)
is $? 1 "a run with no record blocks"

run was_pass "$(rec desktop x86-intel blk pass)" "$(rec desktop x86-intel boot pass)"
run now_skip "$(rec desktop x86-intel blk skip)" "$(rec desktop x86-intel boot pass)"
out=$("$gate" "$t/now_skip" --policy "$t/skips.conf" --no-rerun --baseline "$t/was_pass")
is $? 1 "a pass that became a skip against the baseline blocks"
like "$out" "desktop/amd64/x86-intel/blk .*FAIL +passed on the baseline, skipped now" "and says so"

# --save-baseline: only a run that ships.
"$gate" "$t/broke" --policy "$policy" --no-rerun --save-baseline "$t/base1" >/dev/null 2>"$t/err"
is $? 1 "a blocked run with --save-baseline exits 1"
[ ! -e "$t/base1/results.json" ]
ok $? "and is not saved as the baseline"
like "$(cat "$t/err")" "not saving .* as the baseline: the verdict is BLOCK" "saying so on stderr"
"$gate" "$t/good" --policy "$policy" --no-rerun --save-baseline "$t/base2" >/dev/null 2>&1
is $? 0 "a shipping run is saved"
cmp -s "$t/good/results.json" "$t/base2/results.json"
ok $? "as its results.json"

# Flaky: the fake runner's rerun passes.
mkdir -p "$t/bin"
cat >"$t/bin/runner" <<'RUNNER'
#!/bin/sh
# A stand-in farm/farm: records its argv, one word a line, and answers
# with the canned results the test left next to it.
here=$(dirname "$0")
printf '%s\n' "$@" >"$here/argv"
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
mkdir -p "$out/latest"
cp "$here/results.json" "$out/latest/results.json"
RUNNER
chmod +x "$t/bin/runner"
run again "$(rec desktop x86-intel blk pass)"
cp "$t/again/results.json" "$t/bin/results.json"
run flaky "$(rec desktop x86-intel blk hang)"
out=$("$gate" "$t/flaky" --policy "$policy" --runner "$t/bin/runner" 2>/dev/null)
is $? 1 "flaky blocks under 'flaky block'"
like "$out" "flaky: hang first, pass on the rerun" "reported as flaky, never silently passed"
sed 's/^flaky block/flaky allow/' "$policy" >"$t/allow.conf"
"$gate" "$t/flaky" --policy "$t/allow.conf" --runner "$t/bin/runner" >/dev/null 2>&1
ok $? "flaky ships under 'flaky allow'"

# Axis values and a kernel spec full of shell: the rerun passes them as
# words, so nothing runs.
evil_machine="x;touch $t/pwned"
evil_kernel="\$(touch $t/pwned)'\`touch $t/pwned\`"
evil_variant="v|touch $t/pwned"
printf '{"format":2,"matrix":[],"kernels":[],"records":[{"job_id":"evil","axes":{"flavour":"desktop","arch":"amd64","machine":"%s","workload":"blk","variant":"%s","kernel":"k"},"rerun":{"kernel":"%s","variant":"a=b; touch %s/pwned &"},"outcome":"hang","reason":"synthetic"}]}\n' \
	"$evil_machine" "$evil_variant" "$evil_kernel" "$t" >"$t/evil.json"
mkdir -p "$t/evil"
cp "$t/evil.json" "$t/evil/results.json"
rm -f "$t/bin/argv"
"$gate" "$t/evil" --policy "$policy" --runner "$t/bin/runner" >/dev/null 2>&1
[ -s "$t/bin/argv" ] && [ ! -e "$t/pwned" ]
ok $? "a rerun of a cell whose axes hold shell runs the runner and nothing else"
printf 'run\n--out\n%s/evil/reruns/0\n--arch\namd64\n--machine\n%s\n--kernel\n%s\n--workload\nblk\n--variant\n%s=a=b; touch %s/pwned &\n' \
	"$t" "$evil_machine" "$evil_kernel" "$evil_variant" "$t" >"$t/want-argv"
cmp -s "$t/want-argv" "$t/bin/argv"
r=$?
ok $r "the runner got every metacharacter as a literal argv word"
[ $r -eq 0 ] || diff "$t/want-argv" "$t/bin/argv" | sed 's/^/#   /'

printf '[{"axes": oops}]\n' >"$t/flaky/results.json"
err=$("$gate" "$t/flaky" --policy "$policy" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$err" | grep -q "results.json:1:"
ok $? "malformed results.json: exit 2 naming the file and line ($err)"
printf '[%s]\n' "$(rec desktop x86-intel blk pass)" >"$t/flaky/results.json"
err=$("$gate" "$t/flaky" --policy "$policy" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
	printf '%s' "$err" | grep -q "results.json: .*format 2"
ok $? "a results.json of another format: exit 2 and one line ($err)"
printf 'expect * * * * pass\nexpect server * * edu-lying explode\n' >"$t/bad.conf"
err=$("$gate" "$t/good" --policy "$t/bad.conf" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$err" | grep -q "bad.conf:2: unknown outcome"
ok $? "malformed policy: exit 2 naming the line ($err)"
done_testing
