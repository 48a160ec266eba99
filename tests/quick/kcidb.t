#!/bin/sh
# The gate's kcidb.json: valid against KCIDB I/O schema v4.0
# (tests/data/kcidb/kcidb-v4.schema.json, with python3-jsonschema); IDs
# origin-prefixed and different for every run and release; checkout data
# from debian/changelog and git; the packages as build outputs; a seen
# hazard is a PASS that is not waived.
. "$(dirname "$0")/../lib/tap.sh"
schema=$top/tests/data/kcidb/kcidb-v4.schema.json
py=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import jsonschema' 2>/dev/null && py=$p && break
done
[ -n "$py" ] || skip_all "python3-jsonschema not installed (make deps)"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
. "$top/tests/gate/fixtures.sh"
plan 21

# validate FILE: prints the first errors as TAP comments.
validate() {
	"$py" - "$schema" "$1" <<'PY'
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
v = cls(schema, format_checker=jsonschema.FormatChecker())
errors = sorted(v.iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors[:5]:
    print("#   %s: %s" % ("/".join(map(str, e.absolute_path)), e.message))
sys.exit(1 if errors else 0)
PY
}

# Two runs of the same cells: the second has another run dir and run_id.
for name in one two; do
	EXTRA_CELLS=server/amd64/x86-intel/blk run "$name" \
		"$(rec desktop x86-intel blk pass)" \
		"$(rec server x86-intel edu-lying iommu-fault)" \
		"$(rec desktop x86-intel nvme infra-error)" \
		"$(rec desktop x86-intel net skip)"
	(cd "$t" && "$gate" "$t/$name" --policy "$policy" --no-rerun \
		--source-dir "$top" >/dev/null 2>&1)
	is $? 1 "run $name: the gate blocks (infra error, skip, missing cell)"
	validate "$t/$name/kcidb.json"
	ok $? "run $name: kcidb.json validates against KCIDB v4.0"
done
k=$t/one/kcidb.json

ids() {
	jq -r '(.checkouts[], .builds[], .tests[]) | .id, (.checkout_id // empty), (.build_id // empty)' "$1" | sort -u
}
ids "$t/one/kcidb.json" >"$t/ids1"
ids "$t/two/kcidb.json" >"$t/ids2"
[ -s "$t/ids1" ] && [ -s "$t/ids2" ] &&
	[ "$(comm -12 "$t/ids1" "$t/ids2" | wc -l)" -eq 0 ]
ok $? "no ID is shared between two runs"
[ -s "$t/ids1" ] && ! grep -vq '^sacfarm:' "$t/ids1"
ok $? "every ID starts with the origin"
is "$(jq '[.tests[].id] | length == (unique | length)' "$k")" true "test IDs are unique in a run"
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
is "$(jq -r '.checkouts[0].id' "$k")" "sacfarm:$version-run-one" \
	"the checkout ID holds the changelog's version and the run ID"
if commit=$(git -C "$top" rev-parse --verify -q HEAD); then
	is "$(jq -r '.checkouts[0].git_commit_hash' "$k")" "$commit" "the checkout carries git HEAD"
else
	ok 0 "# SKIP not a git checkout"
fi
is "$(jq -r '[.builds[].output_files[0].name] | sort | join(" ")' "$k")" \
	"$(deb_of desktop) $(deb_of server)" "each package gated is a build whose output is the .deb"
is "$(jq -r '.builds[] | select(.config_name == "server") | .misc.sha256' "$k")" \
	"$(printf '5e%.0s' $(seq 32))" "with its sha256"

test_of() {
	jq -c --arg c "$1" '.tests[] | select(.misc.cell == $c)' "$k"
}
hazard=$(test_of server/amd64/x86-intel/edu-lying)
like "$hazard" '"status":"PASS".*"waived":false' "a seen hazard is PASS and not waived"
like "$hazard" '"expected":"iommu-fault\|data-corruption","got":"iommu-fault"' "misc shows what was expected and seen"
is "$(jq '[.tests[] | select(.waived)] | length' "$k")" 0 "nothing the farm saw is waived"
like "$(test_of desktop/amd64/x86-intel/nvme)" '"status":"ERROR"' "an infra error is ERROR"
like "$(test_of desktop/amd64/x86-intel/net)" '"status":"FAIL"' "an unexpected skip is FAIL"
like "$(test_of server/amd64/x86-intel/blk)" '"status":"ERROR".*"got":"missing"' "a missing cell is ERROR"
blk=$(test_of desktop/amd64/x86-intel/blk)
like "$blk" '"duration":1\.5' "a test has its duration"
url=$(printf '%s' "$blk" | jq -r .log_url)
[ "${url#file:///}" != "$url" ] && [ -f "${url#file://}" ]
ok $? "and its console log as a file:// URL ($url)"

# One package name, two arches (the runner's kernel axis for a .deb is
# its package name): two builds, each test under its own arch's build.
run twoarch "$(rec desktop x86-intel boot pass)"
jq '.kernels[0].name = "linux-image-6.1.192-sac-desktop" |
	.kernels += [.kernels[0] | .arch = "arm64"] |
	.records[0].axes.kernel = "linux-image-6.1.192-sac-desktop" |
	.records += [.records[0] | .axes.arch = "arm64" | .axes.machine = "arm64-smmuv3" |
		.job_id = "arm64-boot"] |
	.matrix += ["desktop/arm64/arm64-smmuv3/boot"]' "$t/twoarch/results.json" >"$t/two.json"
mv "$t/two.json" "$t/twoarch/results.json"
"$gate" "$t/twoarch" --policy "$policy" --no-rerun >/dev/null 2>&1
is "$(jq -r '[.tests[] | .build_id | split("/")[1]] | sort | join(" ")' "$t/twoarch/kcidb.json")" \
	"amd64 arm64" "one package name on two arches: each test under its own arch's build"

jq '.tests[0].status = "WAIVED" | .tests[1].id = "no-origin"' "$k" >"$t/bad.json"
! validate "$t/bad.json" >/dev/null
ok $? "the schema refuses an unknown status and an ID without its origin"
done_testing
