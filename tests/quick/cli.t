#!/bin/sh
# The command line: --help on every script and farm command (usage on
# stdout, exit 0, nothing built), make help, one-line refusals of unknown
# farm commands, and the progress ticker of long builds (scripts/lib.sh),
# run around a fake build: its lines come, and it leaves no process.
. "$(dirname "$0")/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
farm=$top/farm/farm
cmds="list run boot lava gate"
scripts='' nscripts=0 ncmds=0
for f in "$top"/scripts/*; do
	if [ -f "$f" ] && [ -x "$f" ]; then
		scripts="$scripts ${f##*/}"
		nscripts=$((nscripts + 1))
	fi
done
for c in $cmds; do
	ncmds=$((ncmds + 1))
done
plan $((2 * nscripts + 1 + 2 + 3 * ncmds + 2 + 2 + 6 + 3 + 12 + 6))

# --- scripts/*: the header comment, holding a Usage: line
for s in $scripts; do
	out=$(BUILD_DIR=$tmp/b "$top/scripts/$s" --help 2>"$tmp/err")
	rc=$?
	[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^[Uu]sage: ' && [ ! -s "$tmp/err" ]
	ok $? "scripts/$s --help: exit 0 (got $rc), a usage line, nothing on stderr"
	[ "$(BUILD_DIR=$tmp/b "$top/scripts/$s" -h 2>&1)" = "$out" ]
	ok $? "scripts/$s -h says the same"
done
[ ! -e "$tmp/b" ]
ok $? "no script --help touched BUILD_DIR"

# --- farm/farm: every command listed, --help never builds
out=$(BUILD_DIR=$tmp/b "$farm" --help 2>&1)
rc=$?
missing=
for c in $cmds help; do
	printf '%s\n' "$out" | grep -q "^  $c " || missing="$missing $c"
done
[ $rc -eq 0 ] && [ -z "$missing" ] && printf '%s\n' "$out" | grep -q '^usage: farm '
ok $? "farm --help: exit 0, usage, every command listed (rc=$rc; missing:${missing:- none})"
[ "$(BUILD_DIR=$tmp/b "$farm" -h 2>&1)" = "$out" ] &&
	[ "$(BUILD_DIR=$tmp/b "$farm" help 2>&1)" = "$out" ]
ok $? "farm -h and farm help say the same"

for c in $cmds; do
	out=$(BUILD_DIR=$tmp/b "$farm" "$c" --help 2>"$tmp/err")
	rc=$?
	[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "^usage: farm $c"
	ok $? "farm $c --help: exit 0 and its usage (rc=$rc: $(head -n 1 "$tmp/err"))"
	[ ! -e "$tmp/b/logs/farm-tools.log" ] && [ ! -e "$tmp/b/host" ]
	ok $? "farm $c --help built nothing"
	[ "$(BUILD_DIR=$tmp/b "$farm" help "$c" 2>&1)" = "$out" ]
	ok $? "farm help $c says the same"
done

# A built runner answers for its own commands: the wrapper hands it the
# arguments as they are, still building nothing.
mkdir -p "$tmp/r/host"
printf '#!/bin/sh\necho "runner: $*"\n' >"$tmp/r/host/farm-runner"
chmod +x "$tmp/r/host/farm-runner"
out=$(BUILD_DIR=$tmp/r "$farm" lava render --out x -h 2>&1)
is "$out" "runner: lava render --out x -h" "farm lava render ... -h: the built runner's help"
[ ! -e "$tmp/r/logs" ]
ok $? "... and no tools build"

# --- refusals: one line on stderr, exit 2
for args in "nope" "" "help nope" "--nope"; do
	# shellcheck disable=SC2086 # "" is no argument at all
	out=$(BUILD_DIR=$tmp/b "$farm" $args 2>"$tmp/err")
	rc=$?
	[ $rc -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q '^farm: error: ' "$tmp/err"
	ok $? "farm ${args:-(no command)}: exit 2 (got $rc), one error line: $(head -n 1 "$tmp/err")"
done
[ ! -e "$tmp/b" ]
ok $? "no farm --help or refusal touched BUILD_DIR"
out=$(BUILD_DIR=$tmp/b "$farm" nope 2>&1)
like "$out" "unknown command 'nope'" "the refusal names the command"

# --- make help: the targets a user runs, the variables, all real
out=$(make -s -C "$top" help BUILD_DIR="$tmp/b" 2>&1)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^  farm ' &&
	printf '%s\n' "$out" | grep -q '^  check '
ok $? "make help: exit 0, names farm and check (rc=$rc)"
real=$(make -C "$top" -npq .DEFAULT 2>/dev/null |
	sed -n 's/^\([a-z][a-z0-9-]*\):.*/\1/p' | sort -u)
named=$(printf '%s\n' "$out" | sed -n '/^targets:/,/^[a-z]/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
bogus=$(printf '%s\n' "$named" | grep -vxF "$real" | tr '\n' ' ')
[ -n "$named" ] && [ -z "$bogus" ]
ok $? "every target make help names exists (not: ${bogus:-none})"
fl=$("$top/scripts/flavours" | tr '\n' ' ')
fl=${fl% }
missing=
for v in ARCH ARCHES BASE BUILD_DIR; do
	printf '%s\n' "$out" | grep -q "^  $v " || missing="$missing $v"
done
[ -z "$missing" ] && printf '%s\n' "$out" | grep -qx "  FLAVOURS .*: $fl"
ok $? "make help shows the variables, FLAVOURS from scripts/flavours ($fl; missing:${missing:- none})"

# make debs builds what ships unless told otherwise; all-debs (make check,
# make farm) the farm base. What make would run, not run (-n).
# debs_of ARGS...: the bases make-debs would build, one a word
debs_of() {
	make -s -n -C "$top" "$@" 2>/dev/null | grep -o 'make-debs build [a-z0-9]* [a-z]*' |
		awk '{ printf "%s%s", sep, $4; sep = " " }'
}
is "$(debs_of debs ARCH=amd64):$(debs_of debs ARCH=amd64 BASE=farm)" "release:farm" \
	"make debs: the release base, unless BASE=farm is given"
is "$(debs_of all-debs):$(debs_of all-debs BASE=release)" "farm farm:release release" \
	"make all-debs: the farm base for both arches, unless BASE=release is given"

# --- the progress ticker, around fake builds in a session of their own:
# whatever is left in that session afterwards is a leftover.
# in_session: the processes in session $sid, as PID (COMMAND).
in_session() {
	for s in /proc/[0-9]*/stat; do
		{ read -r l <"$s"; } 2>/dev/null || continue
		# shellcheck disable=SC2086 # the fields after "(comm) "
		set -- ${l##*") "}
		[ "${4:-}" = "$sid" ] && echo "${l%%") "*})"
	done
	return 0
}
cat >"$tmp/build" <<EOF
#!/bin/sh
# build SECS RC: a fake build, writing an object a tenth of a second for
# SECS seconds, then failing with RC, under progress (every second).
set -eu
. "$top/scripts/lib.sh"
echo \$\$ >"$tmp/pid"
fake() {
	i=0
	while [ \$i -lt \$((\$1 * 10)) ]; do
		: >"$tmp/o/f\$i.o"
		echo "  CC      f\$i.o"
		sleep 0.1
		i=\$((i + 1))
	done
	return "\$2"
}
rc=0
PROGRESS_EVERY=1 progress "fake build" "$tmp/log" "$tmp/o" fake "\$@" || rc=\$?
echo "progress returned \$rc"
exit "\$rc"
EOF
chmod +x "$tmp/build"
mkdir -p "$tmp/o" "$tmp/t"
TMPDIR=$tmp/t setsid "$tmp/build" 3 5 >"$tmp/out" 2>&1
rc=$?
sid=$(cat "$tmp/pid")
left=$(in_session)
n=$(grep -cE '^==> fake build: [0-9]+ objects, 0m0[0-9]s$' "$tmp/out")
[ "$n" -ge 2 ]
ok $? "a 3 s build under PROGRESS_EVERY=1: $n progress lines (2 or more)"
last=$(grep '^==> fake build' "$tmp/out" | tail -n 1 | sed 's/.*: \([0-9]*\) objects.*/\1/')
[ "${last:-0}" -gt 0 ]
ok $? "the lines count the objects written ($last by the last)"
[ "$(grep -c '^  CC ' "$tmp/log")" -eq 30 ] && ! grep -q '^==>' "$tmp/log" &&
	! grep -q '^  CC ' "$tmp/out"
ok $? "the build's output goes to its log, the progress lines to stdout"
is "$rc:$(tail -n 1 "$tmp/out")" "5:progress returned 5" "a failing build's status comes back through progress"
is "$left" "" "nothing left running after the build"
stamps=$(find "$tmp/t" -mindepth 1 | tr '\n' ' ')
[ -z "$stamps" ]
ok $? "the ticker's stamp file is removed (left: ${stamps:-none})"

# A step that compiles nothing (packaging a built kernel): its lines say
# it is running, not that it wrote "0 objects".
mkdir -p "$tmp/none"
out=$(cd "$tmp" && sh -c ". '$top/scripts/lib.sh'; PROGRESS_EVERY=1 \
	progress 'fake package' '$tmp/pkg.log' '$tmp/none' sleep 2.5" 2>&1)
printf '%s\n' "$out" | grep -qE '^==> fake package: running, 0m0[0-9]s$' &&
	! printf '%s\n' "$out" | grep -q 'objects'
ok $? "a step that writes no object: 'running', never '0 objects'"

# A command that ends at once stops the ticker before the ticker has
# set its TERM trap: a lost TERM must not keep progress waiting on it.
out=$(timeout 30 sh -c ". '$top/scripts/lib.sh'; i=0
	while [ \$i -lt 50 ]; do
		progress 'instant' /dev/null '$tmp/none' false || i=\$((i + 1))
	done; echo \$i" 2>&1)
is "$?:$out" 0:50 "50 commands that end at once under progress: each returns"

# Ctrl-C: SIGINT to the whole process group, as a terminal sends it (a
# job started with & ignores SIGINT, and a shell cannot trap what it was
# started ignoring: env gives the build the default back).
rm -f "$tmp/pid" "$tmp/log"
TMPDIR=$tmp/t setsid env --default-signal=INT "$tmp/build" 30 0 >"$tmp/out" 2>&1 &
bg=$!
i=0
while [ $i -lt 50 ] && ! grep -q '^==> fake build' "$tmp/out" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
sid=$(cat "$tmp/pid" 2>/dev/null)
kill -INT "-$sid"
wait "$bg"
rc=$?
left=$(in_session)
is "$rc" 130 "Ctrl-C during the build: the script exits 130"
is "$left" "" "Ctrl-C: nothing left running"
stamps=$(find "$tmp/t" -mindepth 1 | tr '\n' ' ')
[ -z "$stamps" ]
ok $? "Ctrl-C: the ticker's stamp file is removed (left: ${stamps:-none})"
! grep -q '^progress returned' "$tmp/out" &&
	[ "$(grep -c '^==> fake build' "$tmp/out")" -ge 1 ]
ok $? "Ctrl-C: the ticker had ticked, and the script stopped there"

# --- a workload's own variants (workloads.json "variants"): listed, and a
# malformed table refused in one line before anything runs
out=$("$farm" list 2>&1)
printf '%s\n' "$out" | grep -A3 '^  edu-pressure ' |
	grep -q '^    @strict .*bits=32  (needs CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS)$'
ok $? "farm list shows edu-pressure's variants with their command lines and needs"
mkdir -p "$tmp/top/farm"
cp "$top/farm/machines.json" "$top/farm/policy.conf" "$tmp/top/farm/"
jq '.workloads[0].variants = {"default": "x=1"}' "$top/farm/workloads.json" \
	>"$tmp/top/farm/workloads.json"
out=$(FARM_TOP=$tmp/top "$BUILD_DIR/host/farm-runner" list 2>&1)
is "$?:$(printf '%s\n' "$out" | wc -l)" "2:1" "a variant named default: one error line, exit 2"
like "$out" "entry 'boot': field 'variants' must be named by words" \
	"the line names the workload and the field"
jq '.workloads[0].variants = {"x": "x=1"}' "$top/farm/workloads.json" \
	>"$tmp/top/farm/workloads.json"
out=$(FARM_TOP=$tmp/top "$BUILD_DIR/host/farm-runner" list 2>&1)
is "$?:$(printf '%s\n' "$out" | wc -l)" "2:1" "a variant that is a bare command line: one error line, exit 2"
like "$out" "field 'variants' must be an object of NAME: {\"cmdline\"" \
	"the line says the shape a variant has"
jq '.workloads[0].variants = {"x": {"cmdline": "x=1", "needs": []}}' \
	"$top/farm/workloads.json" >"$tmp/top/farm/workloads.json"
out=$(FARM_TOP=$tmp/top "$BUILD_DIR/host/farm-runner" list 2>&1)
is "$?:$(printf '%s\n' "$out" | wc -l)" "2:1" "a variant with an unknown key: one error line, exit 2"
done_testing
