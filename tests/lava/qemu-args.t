#!/bin/sh
# The QEMU command LAVA assembles from a rendered job and device
# dictionary is the local engine's, word for word, on every machine in
# farm/machines.json. lava-run itself does the assembling: each rendered
# job runs with a recorder in place of the device's QEMU command, and the
# words it was handed are compared with `farm run --print-qemu` (less the
# timeout wrapper; the images at LAVA's copies; the nonces, fresh per
# render, masked).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
farm=$top/farm/farm
command -v lava-run >/dev/null || skip_all "lava-run missing (make deps: lava-dispatcher)"
[ "$(id -u)" = 0 ] || skip_all "lava-run must run as root"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels $SERIES-amd64-farm-desktop $SERIES-arm64-farm-desktop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

machines=$(jq -r '.machines[].id' "$top/farm/machines.json")
nm=$(printf '%s\n' "$machines" | wc -l)
# blk: a scratch disk and its devices; net: four device words and a hub;
# a command line with quotes, a backslash and spaces LAVA must not split
odd='sac.note="a b" c\d '"'e'"
cells="$(for m in $machines; do echo --machine "$m"; done) --workload blk --workload net"
# shellcheck disable=SC2086
"$farm" run --print-qemu $cells $kernels --variant default= \
	--variant "odd=$odd" >"$tmp/local.jsonl" 2>"$tmp/local.err"
rc=$?
njobs=$(wc -l <"$tmp/local.jsonl")
plan $((3 + 2 * njobs))
ok $rc "farm run --print-qemu prints every cell's QEMU command ($njobs cells)"
# shellcheck disable=SC2086
"$farm" lava render $cells $kernels --variant default= --variant "odd=$odd" \
	--out "$tmp/r" >"$tmp/render.out" 2>&1
ok $? "farm lava render renders the same cells"
sed 's/^/# /' "$tmp/render.out"
got=$(for m in $machines; do
	[ -f "$tmp/r/devices/$m.yaml" ] && jq -r --arg m "$m" \
		'select(.job | contains("-" + $m + "-")) | .job' \
		"$tmp/local.jsonl" | head -n 1
done | wc -l)
is "$got" "$nm" "every machine in machines.json has a device dictionary and cells"

# Words one a line; nonces masked; LAVA's image copies named by label.
mask() {
	sed -e 's/[0-9a-f]\{16\}/NONCE/g' \
		-e 's#/var/lib/lava/dispatcher/tmp/[^/]*/deployimages-[^/]*/\([a-z]*\)/[^,]*#{\1}#g'
}

# url: 'file://PATH' of image LABEL in a rendered job
image_path() {
	sed -n "/^      $2:\$/,/url:/s#^ *url: 'file://\\(.*\\)'\$#\\1#p" "$1"
}

n=0
while read -r line; do
	n=$((n + 1))
	id=$(printf '%s' "$line" | jq -r .job)
	job=$tmp/r/$id.yaml
	m=$(sed -n "s/^  farm.machine: '\(.*\)'\$/\1/p" "$job")
	cmd=$(sed -n "s/^ *command: '\(.*\)'\$/\1/p" "$tmp/r/devices/$m.yaml")
	is "$cmd" "$(printf '%s' "$line" | jq -r '.argv[3]')" \
		"$id: the device's command is the local QEMU binary"

	# the local words after the wrapper (timeout --kill-after=2 SECS)
	printf '%s' "$line" | jq -r '.argv[4:][]' |
		awk -v k="$(image_path "$job" kernel)" \
			-v i="$(image_path "$job" initrd)" \
			'$0 == k { $0 = "{kernel}" } $0 == i { $0 = "{initrd}" } 1' |
		mask >"$tmp/$n.local"

	rec=$tmp/$n.argv
	printf '#!/bin/sh\nfor a; do printf "%%s\\n" "$a"; done >%s\n' "$rec" \
		>"$tmp/$n.qemu"
	chmod +x "$tmp/$n.qemu"
	sed "s#^\\( *command: \\).*#\\1'$tmp/$n.qemu'#" \
		"$tmp/r/devices/$m.yaml" >"$tmp/$n.device.yaml"
	lava-run --job-id "farm-args-$$-$n" --output-dir "$tmp/$n.out" \
		--device "$tmp/$n.device.yaml" "$job" >"$tmp/$n.log" 2>&1
	rm -rf "/var/lib/lava/dispatcher/tmp/farm-args-$$-$n"
	if [ -f "$rec" ]; then
		mask <"$rec" >"$tmp/$n.lava"
		diff -u "$tmp/$n.local" "$tmp/$n.lava" >"$tmp/$n.diff"
	else
		echo "lava-run never started QEMU" >"$tmp/$n.diff"
		false
	fi
	r=$?
	ok $r "$id: LAVA hands QEMU the local engine's words"
	[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/$n.diff" | head -20
done <"$tmp/local.jsonl"

done_testing
