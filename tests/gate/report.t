#!/bin/sh
# report.html renders in headless Chromium and the screenshot shows the
# outcome matrix and both plots (their colours are in the picture); it
# names the packages gated and links each cell's console log. A failure
# the policy accepts (x86-amd server net) is drawn in its own colour,
# never the pass green.
. "$(dirname "$0")/../lib/tap.sh"
command -v chromium >/dev/null || skip_all "chromium not installed (make deps)"
command -v convert >/dev/null || skip_all "imagemagick not installed (make deps)"
t=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$t/shot.png" "$KEEP"; rm -rf "$t"' EXIT
plan 9

mkdir -p "$t/run/jobs/j1"
echo "console" >"$t/run/jobs/j1/console.log"
cat >"$t/run/results.json" <<'JSON'
{"format": 2, "run_id": "20260101T000000Z",
 "kernels": [
  {"name": "linux-image-6.1.192-sac-desktop_6.1.192-1_amd64.deb", "arch": "amd64", "flavour": "desktop",
   "package": "linux-image-6.1.192-sac-desktop", "version": "6.1.192-1", "release": "6.1.192-sac-desktop",
   "file": "linux-image-6.1.192-sac-desktop_6.1.192-1_amd64.deb",
   "sha256": "1111111111111111111111111111111111111111111111111111111111111111"},
  {"name": "linux-image-6.1.192-sac-server_6.1.192-1_amd64.deb", "arch": "amd64", "flavour": "server",
   "package": "linux-image-6.1.192-sac-server", "version": "6.1.192-1", "release": "6.1.192-sac-server",
   "file": "linux-image-6.1.192-sac-server_6.1.192-1_amd64.deb",
   "sha256": "2222222222222222222222222222222222222222222222222222222222222222"}],
 "matrix": ["desktop/amd64/x86-intel/boot", "server/amd64/x86-intel/boot",
  "server/amd64/x86-intel/edu-lying", "desktop/amd64/x86-intel/iova-bench",
  "server/amd64/x86-intel/iova-bench", "server/amd64/x86-amd/net"],
 "records": [
 {"job_id":"j1","log":"jobs/j1/console.log","axes":{"flavour":"desktop","arch":"amd64","machine":"x86-intel","workload":"boot"},"outcome":"pass","timings_ms":{"agent":2100}},
 {"job_id":"j2","axes":{"flavour":"server","arch":"amd64","machine":"x86-intel","workload":"boot"},"outcome":"pass","timings_ms":{"agent":1900}},
 {"job_id":"j3","axes":{"flavour":"server","arch":"amd64","machine":"x86-intel","workload":"edu-lying"},"outcome":"iommu-fault"},
 {"job_id":"j6","axes":{"flavour":"server","arch":"amd64","machine":"x86-amd","workload":"net"},"outcome":"data-corruption","reason":"data-corruption: 12 of 5374 frames corrupt"},
 {"job_id":"j4","axes":{"flavour":"desktop","arch":"amd64","machine":"x86-intel","workload":"iova-bench"},"outcome":"pass",
  "metrics":{"iova-bench.map_p50_ns_fill0":900,"iova-bench.map_p50_ns_fill50":1200,"iova-bench.map_p50_ns_fill100":3000}},
 {"job_id":"j5","axes":{"flavour":"server","arch":"amd64","machine":"x86-intel","workload":"iova-bench"},"outcome":"pass",
  "metrics":{"iova-bench.map_p50_ns_fill0":850,"iova-bench.map_p50_ns_fill50":860,"iova-bench.map_p50_ns_fill100":870}}]}
JSON
"$BUILD_DIR/host/gate" "$t/run" --policy "$top/farm/policy.conf" --no-rerun >/dev/null
ok $? "the gate ships this run and writes report.html"
! grep -Eq '(src|href)="https?:' "$t/run/report.html"
ok $? "report.html is self-contained (no network references)"
grep -q 'linux-image-6.1.192-sac-server_6.1.192-1_amd64.deb.*6.1.192-1.*2\{64\}' "$t/run/report.html"
ok $? "report.html names the packages gated, with version and sha256"
grep -q '<a href="jobs/j1/console.log">pass</a>' "$t/run/report.html"
ok $? "a cell links to its console log"

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
has FFB347
ok $? "the matrix shows the accepted failure in its own colour (orange)"
has 1F77B4 && has D62728
ok $? "the plots are drawn (series colours present)"
done_testing
