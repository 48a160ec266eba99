#!/bin/sh
# The gate's junit.xml is valid against Jenkins' JUnit schema
# (tests/data/junit/jenkins-junit.xsd) even when a failing cell's console
# holds bytes no XML may carry; each case has its time, an infra error is
# an <error>, a failure is typed by its outcome.
. "$(dirname "$0")/../lib/tap.sh"
xsd=$top/tests/data/junit/jenkins-junit.xsd
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/tests/gate/fixtures.sh"
plan 12

run garbage "$(rec desktop x86-intel blk iommu-fault)" \
	"$(rec desktop x86-intel nvme infra-error)" \
	"$(rec server x86-intel edu-lying iommu-fault)" \
	"$(rec desktop x86-intel boot pass)"
log=$t/garbage/jobs/desktop-x86-intel-blk/console.log
{
	printf 'DMAR: [DMA Read] fault addr 0xfffff000\n'
	printf 'bad bytes: \377\376 \300\200 \355\240\200 end\n'
	printf 'controls: \001\002\033[0m\013\014 and a NUL: '
	printf '\000'
	printf ' after\n'
	printf 'markup: <&>"'"'"' and ]]> and </failure>\n'
	printf 'last line\r\r\n'
} >>"$log"

"$gate" "$t/garbage" --policy "$policy" --no-rerun >/dev/null
is $? 1 "the gate blocks the run with a failing cell"
junit=$t/garbage/junit.xml
err=$(xmllint --noout --schema "$xsd" "$junit" 2>&1)
r=$?
ok $r "junit.xml validates against the Jenkins JUnit schema"
[ $r -eq 0 ] || printf '%s\n' "$err" | head -5 | sed 's/^/#   /'
is "$(grep -c '<testcase ' "$junit")" 4 "one testcase per cell"
is "$(grep -c '<testcase [^>]* time="[0-9]*\.[0-9]*"' "$junit")" 4 "every testcase has a time"
like "$(grep 'name="blk"' "$junit")" 'time="1\.500"' "the time is the cell's duration_s"
like "$(cat "$junit")" '<failure type="iommu-fault" message="expected pass, got iommu-fault' \
	"a failing cell is a <failure> typed by its outcome"
like "$(cat "$junit")" '<error type="infra-error"' "an infra-error cell is an <error>"
body=$(sed -n '/<failure type="iommu-fault"/,/<\/failure>/p' "$junit")
like "$body" 'markup: &lt;&amp;&gt;&quot;&apos; and \]\]&gt; and &lt;/failure&gt;' \
	"the console tail is in the body, its markup escaped"
like "$body" "bad bytes: $(printf '\357\277\275\357\277\275')" \
	"bytes that are not UTF-8 became U+FFFD"
! grep -q "$(printf '\033')" "$junit"
ok $? "no control byte reached the file"

# The schema and the validator do refuse what Jenkins would.
printf '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase time="1"/></testsuite></testsuites>\n' >"$t/noname.xml"
! xmllint --noout --schema "$xsd" "$t/noname.xml" >/dev/null 2>&1
ok $? "the schema refuses a testcase without a name"
printf '<testsuites><testsuite name="s" tests="1" failures="1" errors="0" time="1.5"><testcase name="c"><failure>\377</failure></testcase></testsuite></testsuites>\n' >"$t/raw.xml"
! xmllint --noout --schema "$xsd" "$t/raw.xml" >/dev/null 2>&1
ok $? "a raw non-UTF-8 byte is refused, as Jenkins would"
done_testing
