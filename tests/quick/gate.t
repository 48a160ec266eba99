#!/bin/sh
# The release gate on synthetic farm results: what ships, what blocks,
# and bad input.
. "$(dirname "$0")/../lib/tap.sh"
gate=$BUILD_DIR/host/gate
policy=$top/farm/policy.conf
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 25

# rec FLAVOUR MACHINE WORKLOAD OUTCOME [METRICS-JSON] [VARIANT]
rec() {
	printf '{"job_id":"%s-%s-%s","axes":{"flavour":"%s","arch":"amd64","machine":"%s","workload":"%s","variant":"%s","kernel":"k-%s"},"rerun":{"kernel":"k","variant":""},"outcome":"%s","reason":"synthetic %s","metrics":%s,"timings_ms":{"agent":2000}}' \
		"$1" "$2" "$3" "$1" "$2" "$3" "${6:-default}" "$1" "$4" "$4" "${5:-{\}}"
}

# run NAME RECORD... : a run dir holding those records
run() {
	d=$t/$1
	shift
	mkdir -p "$d/jobs"
	{
		printf '['
		sep=
		for r in "$@"; do
			printf '%s%s' "$sep" "$r"
			sep=,
		done
		printf ']\n'
	} >"$d/results.json"
}

good="$(rec desktop x86-intel edu-lying pass '{"edu-lying.bytes_wrong":0}') \
$(rec server x86-intel edu-lying iommu-fault) \
$(rec desktop x86-intel blk pass '{"blk.read_mib_s":100}') \
$(rec server x86-intel boot pass)"
# shellcheck disable=SC2086
eval run good $(for r in $good; do printf "'%s' " "$r"; done)

out=$("$gate" "$t/good" --policy "$policy" --no-rerun)
is $? 0 "a run that meets the policy ships (exit 0)"
like "$(echo "$out" | tail -n 2 | head -n 1)" "^VERDICT: SHIP - 4 cells: 4 ok \(1 known hazards seen\)" "one-line verdict"
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

run broke "$(rec desktop x86-intel blk data-corruption)" "$(rec server x86-intel edu-lying iommu-fault)"
out=$("$gate" "$t/broke" --policy "$policy" --no-rerun)
is $? 1 "an expected pass that failed blocks (exit 1)"
like "$out" "desktop/amd64/x86-intel/blk .*FAIL +expected pass, got data-corruption" "names the cell and what it got"
is "$(grep -c '<failure' "$t/broke/junit.xml")" 1 "junit.xml counts the failure"

run hazard "$(rec server x86-intel edu-lying pass)"
out=$("$gate" "$t/hazard" --policy "$policy" --no-rerun)
is $? 1 "a known hazard that passes blocks"
like "$out" "known hazard passed" "and says the farm stopped seeing it"

run fast "$(rec desktop x86-intel blk pass '{"blk.read_mib_s":100}')"
run slow "$(rec desktop x86-intel blk pass '{"blk.read_mib_s":50}')"
out=$("$gate" "$t/slow" --policy "$policy" --no-rerun --baseline "$t/fast")
is $? 1 "a metric regression beyond its limit blocks"
like "$out" "blk.read_mib_s -50.0% against the baseline, limit -30%" "names the metric, the delta and the limit"
"$gate" "$t/fast" --policy "$policy" --no-rerun --baseline "$t/slow" >/dev/null
ok $? "an improvement does not block"

run missing "$(rec desktop x86-intel blk pass)"
out=$("$gate" "$t/missing" --policy "$policy" --no-rerun --baseline "$t/good")
is $? 1 "a cell missing from the run blocks"
like "$out" "server/amd64/x86-intel/edu-lying .*\(missing\) +FAIL +cell missing" "and is named"

# Flaky: the fake runner's rerun passes.
mkdir -p "$t/bin"
cat >"$t/bin/runner" <<RUNNER
#!/bin/sh
while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; shift; done
mkdir -p "\$out"
echo '[$(rec desktop x86-intel blk pass)]' >"\$out/results.json"
RUNNER
chmod +x "$t/bin/runner"
run flaky "$(rec desktop x86-intel blk hang)"
out=$("$gate" "$t/flaky" --policy "$policy" --runner "$t/bin/runner" 2>/dev/null)
is $? 1 "flaky blocks under 'flaky block'"
like "$out" "flaky: hang first, pass on the rerun" "reported as flaky, never silently passed"
sed 's/^flaky block/flaky allow/' "$policy" >"$t/allow.conf"
"$gate" "$t/flaky" --policy "$t/allow.conf" --runner "$t/bin/runner" >/dev/null 2>&1
ok $? "flaky ships under 'flaky allow'"

printf '[{"axes": oops}]\n' >"$t/flaky/results.json"
err=$("$gate" "$t/flaky" --policy "$policy" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$err" | grep -q "results.json:1:"
ok $? "malformed results.json: exit 2 naming the file and line ($err)"
printf 'expect * * * * pass\nexpect server * * edu-lying explode\n' >"$t/bad.conf"
err=$("$gate" "$t/good" --policy "$t/bad.conf" --no-rerun 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$err" | grep -q "bad.conf:2: unknown outcome"
ok $? "malformed policy: exit 2 naming the line ($err)"
done_testing
