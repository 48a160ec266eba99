# Synthetic farm runs for the gate's tests: results.json of format 2
# (farm/PROTOCOL.md), built from one-line records. Sourced after
# tests/lib/tap.sh, with $t a scratch directory.
# shellcheck shell=sh disable=SC2034,SC2154 # top, t: from the test; gate, policy: for it

gate=$BUILD_DIR/host/gate
policy=$top/farm/policy.conf

# The .deb a flavour's cells run on (the "kernel" axis and kernels[].name).
deb_of() {
	printf 'linux-image-6.1.192-sac-%s_6.1.192-1_%s.deb' "$1" "${2:-amd64}"
}

# rec FLAVOUR MACHINE WORKLOAD OUTCOME [METRICS-JSON] [VARIANT]
# One record on amd64; its job dir gets a console.log.
rec() {
	job=$1-$2-$3${6:+-$6}
	printf '{"job_id":"%s","axes":{"flavour":"%s","arch":"amd64","machine":"%s","workload":"%s","variant":"%s","kernel":"%s"},"rerun":{"kernel":"%s/debs/%s","variant":""},"outcome":"%s","reason":"synthetic %s","duration_s":1.5,"log":"jobs/%s/console.log","metrics":%s,"timings_ms":{"agent":2000}}' \
		"$job" "$1" "$2" "$3" "${6:-default}" "$(deb_of "$1")" "$t" \
		"$(deb_of "$1")" "$4" "$4" "$job" "${5:-{\}}"
}

# run NAME RECORD... : $t/NAME with those records, its matrix their
# cells plus the ids in $EXTRA_CELLS, its kernels the records' .debs.
run() {
	d=$t/$1
	shift
	mkdir -p "$d/jobs"
	printf '%s\n' "$@" | jq -s --arg id "$(basename "$d")" \
		--arg extra "${EXTRA_CELLS:-}" --arg debs "$t/debs" '
		def cell: .axes as $a | "\($a.flavour)/\($a.arch)/\($a.machine)/\($a.workload)"
			+ (if ($a.variant // "default") == "default" then "" else "@\($a.variant)" end);
		def kernel: .axes as $a | {
			name: $a.kernel, spec: "\($debs)/\($a.kernel)", arch: $a.arch,
			flavour: $a.flavour, release: "6.1.192-sac-\($a.flavour)",
			package: "linux-image-6.1.192-sac-\($a.flavour)",
			version: "6.1.192-1", file: $a.kernel,
			sha256: ((if $a.flavour == "desktop" then "de" else "5e" end) * 32) };
		{ format: 2, run_id: "run-\($id)", started_utc: "2026-01-01T00:00:00Z",
		  duration_s: 10, engine: "local",
		  kernels: (map(select(.axes.kernel) | kernel) | unique_by(.name)),
		  matrix: (map(cell) + ($extra | split(" ") | map(select(length > 0)))),
		  records: . }' >"$d/results.json"
	for job in $(jq -r '.records[].job_id // empty' "$d/results.json"); do
		mkdir -p "$d/jobs/$job"
		echo "console of $job" >"$d/jobs/$job/console.log"
	done
}
