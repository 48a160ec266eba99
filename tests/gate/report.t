#!/bin/sh
# report.html renders in headless Chromium and the screenshot shows the
# outcome matrix and both plots (their colours are in the picture).
. "$(dirname "$0")/../lib/tap.sh"
command -v chromium >/dev/null || skip_all "chromium not installed (make deps)"
command -v convert >/dev/null || skip_all "imagemagick not installed (make deps)"
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$t/shot.png" "$KEEP"; rm -rf "$t"' EXIT
plan 6

mkdir -p "$t/run/jobs/j1"
echo "console" >"$t/run/jobs/j1/console.log"
cat >"$t/run/results.json" <<'JSON'
[{"job_id":"j1","axes":{"flavour":"desktop","arch":"amd64","machine":"x86-intel","workload":"boot"},"outcome":"pass","timings_ms":{"agent":2100}},
 {"job_id":"j2","axes":{"flavour":"server","arch":"amd64","machine":"x86-intel","workload":"boot"},"outcome":"pass","timings_ms":{"agent":1900}},
 {"job_id":"j3","axes":{"flavour":"server","arch":"amd64","machine":"x86-intel","workload":"edu-lying"},"outcome":"iommu-fault"},
 {"job_id":"j4","axes":{"flavour":"desktop","arch":"amd64","machine":"x86-intel","workload":"iova-bench"},"outcome":"pass",
  "metrics":{"iova-bench.map_p50_ns_fill0":900,"iova-bench.map_p50_ns_fill50":1200,"iova-bench.map_p50_ns_fill100":3000}},
 {"job_id":"j5","axes":{"flavour":"server","arch":"amd64","machine":"x86-intel","workload":"iova-bench"},"outcome":"pass",
  "metrics":{"iova-bench.map_p50_ns_fill0":850,"iova-bench.map_p50_ns_fill50":860,"iova-bench.map_p50_ns_fill100":870}}]
JSON
"$BUILD_DIR/host/gate" "$t/run" --policy "$top/farm/policy.conf" --no-rerun >/dev/null
ok $? "the gate ships this run and writes report.html"
! grep -Eq '(src|href)="https?:' "$t/run/report.html"
ok $? "report.html is self-contained (no network references)"

chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$t/profile" --window-size=1000,1600 --hide-scrollbars \
	--screenshot="$t/shot.png" "file://$t/run/report.html" >/dev/null 2>&1
[ -s "$t/shot.png" ]
ok $? "chromium took a screenshot"
colours=$(convert "$t/shot.png" -format %c histogram:info:- 2>/dev/null | tr 'a-f' 'A-F')
has() {
	printf '%s' "$colours" | grep -q "#$1"
}
has B8E2B8
ok $? "the matrix shows passing cells (green)"
has B9D7F2
ok $? "the matrix shows the seen hazard (blue)"
has 1F77B4 && has D62728
ok $? "the plots are drawn (series colours present)"
done_testing
