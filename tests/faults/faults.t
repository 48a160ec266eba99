#!/bin/sh
# The fault-injection suite: every class of fault in tests/faults/classes
# is injected (for real where the farm can provoke it: a real kernel of
# the debug farm base under QEMU, a real build script; from crafted input
# where it cannot) and must be caught: end as the table says, never as a
# pass. One test per class, then one line, on stdout and on stderr (prove
# shows stderr):
#
#   fault classes: N/M caught, F false passes
#
# --quick: only the classes that boot no kernel (make check-quick).
# FAULTS_ARCHES: the arches whose debug kernel the farm classes boot
# (default: every one built, $BUILD_DIR/kernel/ARCH-debug-desktop);
# FAULTS_KEEP=1 keeps the scratch dir (farm runs, crafted files).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
quick=
[ "${1:-}" = --quick ] && quick=1
table=$top/tests/faults/classes
data=$top/tests/data/console
nonce=5ac0ffee00c0ffee
command -v jq >/dev/null || skip_all "jq missing (make deps)"
for tool in classify gate kconfig-verify; do
	[ -x "$BUILD_DIR/host/$tool" ] || skip_all "build first: make host-tools"
done
make -s -C "$top" -f farm/guest/guest.mk guest-unit BUILD_DIR="$BUILD_DIR" \
	>/dev/null 2>&1 || skip_all "cannot build agent-unit"
t=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait
	if [ -n "${FAULTS_KEEP:-}" ]; then
		echo "# FAULTS_KEEP: the runs and crafted files are in $t"
	else
		rm -rf "$t"
	fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

# The table's lines, fields trimmed: CLASS|HOW|INJECTOR ARGS|EXPECT|WHY
sed -e '/^#/d' -e '/^[[:space:]]*$/d' -e 's/[[:space:]]*|[[:space:]]*/|/g' \
	-e 's/[[:space:]]*$//' "$table" >"$t/classes"

# verdict VERDICT REASON: what an injector found (into $got and $why;
# $aside, which the table's pattern does not see, may add to it)
verdict() {
	got=$1
	why=$2
}

# ---- build: scripts/kernel-build on a fake tarball, in a copy ----------

# A copy of what kernel-build reads, its own patches/, a tiny tarball
# (never the real one) and a BUILD_DIR of its own; kb runs it there.
kb() {
	env BUILD_DIR="$t/bd" LINUX_TARBALL="$t/linux-fake.tar.xz" \
		"$t/repo/scripts/kernel-build" "$@"
}
build_setup() {
	[ -d "$t/repo" ] && return 0
	r=$t/repo
	rp=$r/patches/$SERIES
	mkdir -p "$r/debian" "$rp" "$r/fake/linux-fake" "$t/bd/host"
	cp -r "$top/scripts" "$top/config-fragments" "$r/"
	cp "$top/patches/$SERIES/origin" "$rp/"
	cp "$top/debian/changelog" "$r/debian/"
	ln -s "$BUILD_DIR/host/kconfig-verify" "$t/bd/host/kconfig-verify"
	printf 'hello\n' >"$r/fake/linux-fake/README"
	printf 'obj-y += nothing.o\n' >"$r/fake/linux-fake/Makefile"
	tar -cJf "$t/linux-fake.tar.xz" -C "$r/fake" linux-fake
	cat >"$rp/0001-applies.patch" <<'EOF'
--- a/README
+++ b/README
@@ -1 +1,2 @@
 hello
+patched
EOF
	cat >"$rp/0002-does-not-apply.patch" <<'EOF'
--- a/Makefile
+++ b/Makefile
@@ -1 +1 @@
-obj-y += something-else.o
+obj-y += sac.o
EOF
}

inject_build() {
	build_setup
	src=$t/bd/src/linux-$SERIES
	case $1 in
	patch-reject)
		printf '0001-applies.patch\n0002-does-not-apply.patch\n' \
			>"$rp/series"
		kb source amd64 farm desktop >"$t/out" 2>&1
		rc=$?
		if [ $rc -eq 0 ] || [ -f "$src/.sac-source" ]; then
			verdict pass "exit $rc, stamp: $(ls "$src/.sac-source" 2>&1)"
		else
			verdict refused "$(tail -n 1 "$t/out")"
		fi
		;;
	interrupted)
		# killed while it patches: no stamp, and the next run redoes it
		printf '0001-applies.patch\n' >"$rp/series"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$t/slow"
		cat >"$t/slow/patch" <<EOF
#!/bin/sh
: >"$t/patching"
exec sleep 60
EOF
		chmod +x "$t/slow/patch"
		PATH=$t/slow:$PATH setsid env BUILD_DIR="$t/bd" \
			LINUX_TARBALL="$t/linux-fake.tar.xz" \
			"$r/scripts/kernel-build" source amd64 farm desktop \
			>"$t/out" 2>&1 &
		n=0
		while [ ! -e "$t/patching" ] && [ $n -lt 300 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -KILL "-$!" 2>/dev/null
		wait $! 2>/dev/null
		if [ ! -e "$t/patching" ]; then
			verdict error "kernel-build never reached its patches: $(tail -n 1 "$t/out")"
		elif [ -f "$src/.sac-source" ]; then
			verdict pass "killed mid-stage, yet the source stamp is there"
		elif ! kb source amd64 farm desktop >"$t/out" 2>&1; then
			verdict error "the rerun failed: $(tail -n 1 "$t/out")"
		elif ! grep -q 'unpacking' "$t/out" ||
			! grep -q patched "$src/README"; then
			verdict pass "the rerun did not redo the stage: $(tail -n 1 "$t/out")"
		else
			verdict redone "killed while patching, no stamp left; the rerun: $(grep unpacking "$t/out")"
		fi
		;;
	concurrent)
		# a second kernel-build on the same build dir while the first
		# patches: it must wait, and find the tree done, not race it
		printf '0001-applies.patch\n' >"$rp/series"
		rm -rf "$src" "$src.tmp" "$t/patching"
		mkdir -p "$t/slow"
		cat >"$t/slow/patch" <<EOF
#!/bin/sh
: >"$t/patching"
sleep 2
exec /usr/bin/patch "\$@"
EOF
		chmod +x "$t/slow/patch"
		PATH=$t/slow:$PATH env BUILD_DIR="$t/bd" \
			LINUX_TARBALL="$t/linux-fake.tar.xz" \
			"$r/scripts/kernel-build" source amd64 farm desktop \
			>"$t/first" 2>&1 &
		first=$!
		n=0
		while [ ! -e "$t/patching" ] && [ $n -lt 300 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kb source amd64 farm desktop >"$t/out" 2>&1
		rc=$?
		wait $first
		if [ ! -e "$t/patching" ]; then
			verdict error "the first kernel-build never reached its patches: $(tail -n 1 "$t/first")"
		elif [ $rc -ne 0 ] || grep -q unpacking "$t/out" ||
			! grep -q patched "$src/README"; then
			verdict pass "the second build did not wait (exit $rc): $(tail -n 1 "$t/out")"
		else
			verdict waited "$(grep waiting "$t/out")"
		fi
		;;
	esac
}

# ---- kconfig: the config verifier on a config that lost an option -------

inject_kconfig() {
	opt=$2
	f=$top/config-fragments
	frags="$f/base/farm-common.config $f/base/farm-amd64.config $f/desktop.config"
	cfg=$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop/.config
	# without a built kernel: the fragments themselves make a config
	# that honours them all
	[ -f "$cfg" ] || cfg=$t/frags.config
	# shellcheck disable=SC2086 # $frags: the fragment files
	[ -f "$cfg" ] || cat $frags >"$cfg"
	grep -v "^$opt=\|^# $opt is not set" "$cfg" >"$t/dropped.config"
	# shellcheck disable=SC2086
	"$BUILD_DIR/host/kconfig-verify" "$t/dropped.config" $frags \
		>"$t/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		verdict pass "kconfig-verify accepted a config without $opt"
	else
		verdict refused "exit $rc: $(cat "$t/out")"
	fi
}

# ---- deb: the farm given a broken kernel package -------------------------

inject_deb() {
	# a linux-image package cut short, as a failed download leaves it
	p=$t/pkg
	mkdir -p "$p/DEBIAN" "$p/boot"
	cat >"$p/DEBIAN/control" <<'EOF'
Package: linux-image-6.1.192-sac-broken
Version: 6.1.192-1
Architecture: amd64
Maintainer: SAC farm <sac@example.org>
Description: a kernel package cut short
EOF
	head -c 2000000 /dev/urandom >"$p/boot/vmlinuz-6.1.192-sac-broken"
	dpkg-deb -b -Zgzip "$p" "$t/whole.deb" >/dev/null
	head -c 1000000 "$t/whole.deb" >"$t/broken.deb"
	"$top/farm/farm" run --kernel "$t/broken.deb" --out "$t/deb" \
		>"$t/out" 2>"$t/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		verdict pass "farm run took the broken .deb"
	elif [ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ]; then
		verdict refused "$(cat "$t/err")"
	else
		verdict error "exit $rc, $(wc -l <"$t/err") error lines: $(head -n 1 "$t/err")"
	fi
}

# ---- console: the classifier on a crafted console -----------------------

# classify CASE-DIR LOG: the record of LOG under CASE-DIR's status, key
# and workloads, as the verdict
classify_log() {
	wl=$(sed -n 's/^workloads=//p' "$1/case")
	"$BUILD_DIR/host/classify" --log "$2" --status "$1/status" \
		--key "$data/key" --nonce $nonce --workloads "$wl" >"$t/rec" 2>&1
	verdict "$(jq -r .outcome "$t/rec" 2>/dev/null || echo error)" \
		"$(jq -r '"\(.reason) [\(.counts.foreign) foreign, \(.counts.bad) bad]"' \
			"$t/rec" 2>/dev/null || cat "$t/rec")"
}

# rewrite CASE-DIR AWK: CASE's console rewritten by AWK, which sees each
# line (its CRs stripped into cr), agent (an agent line of the job) and
# seq (its sequence number), and prints with say()
rewrite() {
	awk -v nonce=$nonce -v other="$(cat "$t/other" 2>/dev/null)" '
	function say(s) { printf "%s%s\n", s, cr }
	{ cr = $0; sub(/^[^\r]*/, "", cr); sub(/\r+$/, "") }
	{ agent = $0 ~ ("^SAC " nonce " "); seq = agent ? $4 : -1 }
	'"$2" "$1/console.log" >"$t/crafted.log"
}

# The failing result line's seq in CASE-DIR's console.
fail_seq() {
	grep -a "^SAC $nonce result [0-9]* [0-9a-f]* {[^}]*\"status\":\"fail\"" \
		"$1/console.log" | cut -d ' ' -f 4
}

# shellcheck disable=SC2016 # the awk programs' $0 is awk's
inject_console() {
	d=$data/$2
	case $1 in
	case)	# a composed case of tests/data/console as it is
		classify_log "$d" "$d/console.log"
		return ;;
	forged)	# the fail result rewritten as a pass, seq and mac kept
		rewrite "$d" 'agent && seq == '"$(fail_seq "$d")"' {
			sub(/"status":"fail","reason":"[^"]*"/, "\"status\":\"pass\",\"reason\":\"\"") }
			{ say($0) }' ;;
	stale)	# another job's passing result (its nonce, its key) in its place
		s=$(fail_seq "$d")
		printf 'another job' | "$BUILD_DIR/guest/host/agent-unit" sha256 >"$t/other.key"
		sed "s/$nonce/0badc0de0badc0de/g" "$data/pass/console.log" |
			"$BUILD_DIR/guest/host/agent-unit" sign "$(cat "$t/other.key")" \
				0badc0de0badc0de | tr -d '\r' |
			grep -a "^SAC 0badc0de0badc0de result $s " >"$t/other"
		rewrite "$d" 'agent && seq == '"$s"' { say(other); next } { say($0) }' ;;
	suppressed)	# the fail result left out
		rewrite "$d" 'agent && seq == '"$(fail_seq "$d")"' { next } { say($0) }' ;;
	truncated)	# the log ends inside the last result: its end is lost
		rewrite "$d" 'agent && seq == 5 { say(substr($0, 1, 120)); exit } { say($0) }' ;;
	esac
	classify_log "$d" "$t/crafted.log"
}

# ---- gate: the release gate on a run with a skipped cell -----------------

inject_gate() {
	# shellcheck source=tests/gate/fixtures.sh disable=SC2154 # gate, policy: set there
	. "$top/tests/gate/fixtures.sh"
	run skipped "$(rec desktop x86-intel blk pass)" \
		"$(rec desktop x86-intel nvme skip)"
	out=$("$gate" "$t/skipped" --policy "$policy" --no-rerun)
	case $? in
	0) verdict pass "$(printf '%s\n' "$out" | grep '^VERDICT')" ;;
	1) verdict BLOCK "$(printf '%s\n' "$out" | grep '/nvme ')" ;;
	*) verdict error "$out" ;;
	esac
}

# ---- farm: cells of farm runs on the debug kernels ----------------------

# Every farm line is a variant of its workload's run. The runs start first
# and work while the other injectors do, one run after the other: the
# debug kernels under TCG need the cores the pool gives them, or their
# stages outlast the machine's timeouts.
farm_kernels=
for a in ${FAULTS_ARCHES:-amd64 arm64}; do
	k=$BUILD_DIR/kernel/$SERIES-$a-debug-desktop
	[ -f "$k/.sac-built" ] && farm_kernels="$farm_kernels --kernel $k"
done
farm_runs=
# farm_run: workload $w's run, each class of the table on it a variant
farm_run() {
	set --
	while IFS='|' read -r name how inj rest; do
		set -- "$@" --variant "$name=${inj#farm "$w" }"
	done <<EOF
$(grep "^[^|]*|[^|]*|farm $w " "$t/classes")
EOF
	# shellcheck disable=SC2086 # $farm_kernels: --kernel DIR...
	SAC_CONSOLE_CAP=131072 "$top/farm/farm" run --workload "$w" \
		--machine x86-intel --machine arm64-smmuv3 $farm_kernels \
		"$@" --out "$t/farm-$w" >"$t/farm-$w.out" 2>&1
}
farm_start() {
	[ -z "$quick" ] && [ -n "$farm_kernels" ] || return 0
	# built once here, not by the runs at once
	make -s -C "$top" farm-tools >"$t/farm-tools.log" 2>&1 ||
		{ sed 's/^/# /' "$t/farm-tools.log"; return 0; }
	# shellcheck disable=SC2013 # workload names are words
	(for w in $(awk -F'|' '$3 ~ /^farm / { split($3, a, " "); print a[2] }' \
		"$t/classes" | sort -u); do
		farm_run
	done) &
	farm_runs=$!
	pids="$pids $farm_runs"
}

# inject_farm WORKLOAD CMDLINE: this class's cells (variant CLASS), one
# per arch; the first that is a pass, or not what the table expects,
# decides, else the last.
inject_farm() {
	res=$t/farm-$1/latest/results.json
	wait "$farm_runs" 2>/dev/null
	if [ ! -f "$res" ]; then
		verdict error "farm run of $1 wrote no results: $(tail -n 1 "$t/farm-$1.out")"
		return
	fi
	jq -r --arg v "$name" '.records[] | select(.axes.variant == $v) |
		"\(.axes.arch)\t\(.outcome)\t\(.reason)"' "$res" >"$t/cells"
	verdict error "no cell of variant $name in $res"
	while IFS='	' read -r arch outcome reason; do
		verdict "$outcome" "$reason"
		decided=$arch
		if [ "$outcome" = pass ] || ! expected "$got" "$why"; then
			break
		fi
	done <"$t/cells"
	[ -s "$t/cells" ] &&
		aside="the $decided cell's; cells: $(cut -f 1,2 "$t/cells" |
			tr '\t\n' ' ,' | sed 's/,$//; s/,/, /g')"
}

# expected VERDICT REASON: the current class's MUST END AS holds
expected() {
	want=${expect%% ~ *}
	re=
	[ "$want" = "$expect" ] || re=${expect#* ~ }
	[ "$1" = "$want" ] && { [ -z "$re" ] || printf '%s\n' "$2" | grep -Eq -- "$re"; }
}

# ---- the run -------------------------------------------------------------

farm_start
total=0 caught=0 false=0 skipped=0
plan "$(wc -l <"$t/classes")"
while IFS='|' read -r name how inj expect note; do
	# shellcheck disable=SC2086 # inj: INJECTOR ARGS
	set -- $inj
	kind=$1
	shift
	skip_why=
	if [ "$kind" = farm ] && [ -n "$quick" ]; then
		skip_why="--quick: boots a kernel"
	elif [ "$kind" = farm ] && [ -z "$farm_kernels" ]; then
		skip_why="no debug farm kernel (make debug-kernels)"
	elif [ "$kind" = deb ] && [ -n "$quick" ]; then
		skip_why="--quick: runs the farm"
	fi
	if [ -n "$skip_why" ]; then
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $name # SKIP $skip_why"
		skipped=$((skipped + 1))
		not_run=${skip_why%%:*}
		continue
	fi
	aside=
	"inject_$kind" "$@" </dev/null
	total=$((total + 1))
	said="$why${aside:+ ($aside)}"
	if [ "$got" = pass ]; then
		false=$((false + 1))
		ok 1 "$name ($how): FALSE PASS: $said"
	elif expected "$got" "$why"; then
		caught=$((caught + 1))
		ok 0 "$name ($how): $got: $said"
	else
		ok 1 "$name ($how): $got: $said"
		echo "#   must end as: $expect"
	fi
	[ -z "$note" ] || echo "#   $how: $note"
done <"$t/classes"
for w in "$t"/farm-*.out; do
	[ -f "$w" ] && sed 's/^/# /' "$w"
done
line="fault classes: $caught/$total caught, $false false passes"
[ "$skipped" -eq 0 ] || line="$line ($skipped not run: $not_run)"
echo "# $line"
echo "$line" >&2
done_testing
