#!/bin/sh
# Every job of the default matrix, rendered for LAVA, is accepted by
# LAVA: lava_common's schemas (what lava-server checks on submission)
# for every job and device dictionary, lava-run --validate (the
# dispatcher) for every machine and workload. A job LAVA rejects fails here, not in a lab. Also:
# --base-url publishes the images under the render dir, and bad input is
# refused in one line.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
farm=$top/farm/farm
command -v lava-run >/dev/null || skip_all "lava-run missing (make deps: lava-dispatcher)"
[ "$(id -u)" = 0 ] || skip_all "lava-run must run as root"
# Debian's python3, which has lava_common (a python3 earlier in PATH may not)
py=/usr/bin/python3
"$py" -c 'import lava_common.schemas, yaml' 2>/dev/null ||
	skip_all "lava_common or python3-yaml missing (make deps)"
ls "$BUILD_DIR"/kernel/*-farm-*/.sac-built >/dev/null 2>&1 ||
	skip_all "no farm kernel built (make all-kernels)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# schema KIND FILE...: lava_common's check, one line per rejected file
schema() {
	"$py" - "$@" <<'EOF'
import sys, yaml
from lava_common.schemas import device, validate
kind, bad = sys.argv[1], 0
for path in sys.argv[2:]:
    try:
        with open(path) as f:
            data = yaml.safe_load(f)
        if kind == "device":
            device.validate(data)
        else:
            validate(data, strict=True)
    except Exception as e:
        print("%s: %s" % (path, e))
        bad += 1
sys.exit(1 if bad else 0)
EOF
}

# lava_validate JOB: lava-run --validate against the job's machine's device
lava_validate() {
	m=$(sed -n "s/^  farm.machine: '\(.*\)'\$/\1/p" "$1")
	id=farm-validate-$$-$(basename "$1" .yaml)
	lava-run --validate --job-id "$id" --output-dir "$tmp/v/$id" \
		--device "$2/devices/$m.yaml" "$1" >"$tmp/validate.log" 2>&1
	r=$?
	# --validate leaves the job's download dir behind
	rm -rf "/var/lib/lava/dispatcher/tmp/$id"
	return $r
}

"$farm" lava render --out "$tmp/r" >"$tmp/render.out" 2>&1
rc=$?
jobs=$(ls "$tmp"/r/*.yaml 2>/dev/null)
n=$(printf '%s\n' "$jobs" | grep -c .)
# lava-run --validate (0.6 s a job) on the first job of each machine and
# workload: kernels, flavours and choices change values, not actions, so
# these are every shape of job the matrix has. The schemas take all.
shapes=$(for job in $jobs; do
	echo "$(sed -n "s/^  farm\.\(machine\|workload\): '\(.*\)'\$/\2/p" "$job" |
		paste -sd/) $job"
done | sort -s -u -k1,1 | cut -d' ' -f2)
plan $(($(printf '%s\n' "$shapes" | grep -c .) + 13))
ok $rc "farm lava render renders the default matrix"
sed 's/^/# /' "$tmp/render.out"
like "$(tail -n 1 "$tmp/render.out")" "^farm: lava render: $n jobs, [0-9]+ device dictionaries" \
	"the summary counts the $n job files written"

for job in $shapes; do
	lava_validate "$job" "$tmp/r"
	r=$?
	ok $r "lava-run --validate accepts $(basename "$job")"
	[ $r -eq 0 ] || grep -E '"(error|exception)"' "$tmp/validate.log" |
		sed 's/^/#   /' | head -5
done

# shellcheck disable=SC2086
out=$(schema job $jobs)
ok $? "lava-server's job schema accepts every job"
[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -5
out=$(schema device "$tmp"/r/devices/*.yaml)
ok $? "lava-server's device schema accepts every device dictionary"
[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -5

# --- the checks can fail -------------------------------------------------
first=$(printf '%s\n' "$jobs" | head -n 1)
sed '/^context:/,/^  arch:/d' "$first" >"$tmp/noarch.yaml"
! lava_validate "$tmp/noarch.yaml" "$tmp/r"
ok $? "a job without its context arch is rejected by lava-run --validate"
sed 's/^\(    seconds:\) .*/\1 0/' "$first" >"$tmp/zero.yaml"
! schema job "$tmp/zero.yaml" >/dev/null
ok $? "a zero timeout is rejected by the job schema"

# --- --base-url: the images published under the render dir -------------
k=$(ls -d "$BUILD_DIR"/kernel/*-farm-*/.sac-built | head -n 1)
k=${k%/.sac-built}
"$farm" lava render --kernel "$k" --machine x86-intel --machine arm64-smmuv3 \
	--workload blk --base-url https://lab.example/farm/ --out "$tmp/b" \
	>"$tmp/b.out" 2>&1
ok $? "lava render --base-url renders"
job=$(ls "$tmp"/b/*.yaml | head -n 1)
urls=$(sed -n "s/^ *url: '\(.*\)'\$/\1/p" "$job")
is "$(printf '%s\n' "$urls" | grep -vc '^https://lab.example/farm/images/')" 0 \
	"every image URL is under the base URL, with no doubled slash"
missing=0
for u in $urls; do
	[ -s "$tmp/b/${u#https://lab.example/farm/}" ] || missing=$((missing + 1))
done
is "$missing" 0 "every URL names a file in the render dir, ready to serve"
out=$(schema job "$tmp"/b/*.yaml)
ok $? "the base-URL jobs pass the job schema"

# --- bad input -----------------------------------------------------------
out=$("$farm" lava render --base-url ftp://x --out "$tmp/x" 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | grep -c error)" -eq 1 ]
ok $? "an ftp:// base URL is refused in one error line"
out=$("$farm" lava render --machine no-such-machine --out "$tmp/x" 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q "unknown machine 'no-such-machine'"
ok $? "an unknown machine is refused by name"
out=$("$farm" lava render 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q 'needs --out DIR'
ok $? "render without --out is a usage error"

done_testing
