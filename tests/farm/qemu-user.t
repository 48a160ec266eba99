#!/bin/sh
# As root, the farm runs QEMU as an unprivileged user (nobody, or
# FARM_QEMU_USER): read from /proc while a stalled blk guest is up, its
# QEMU has nobody's uid and gid, no supplementary groups, no
# capabilities, no_new_privs, is still in seccomp filter mode, runs in
# its job's dir and owns its scratch disk. Boots pass that way on both
# arches with the run dir under a private (0700) directory, through
# farm run and farm boot. FARM_QEMU_USER=root keeps QEMU root, an
# unknown FARM_QEMU_USER is refused, and an image QEMU's user cannot
# read makes the job an infra-error naming it, without a boot.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/kernels.sh
. "$(dirname "$0")/../lib/kernels.sh"
[ "$(id -u)" = 0 ] || skip_all "QEMU changes user only when the farm runs as root"
getent passwd nobody >/dev/null || skip_all "no user nobody"
command -v jq >/dev/null || skip_all "jq missing (make deps)"
need_kernels $SERIES-amd64-farm-desktop $SERIES-arm64-farm-desktop
farm=$top/farm/farm
amd64=$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop
uid=$(id -u nobody)
gid=$(id -g nobody)
# mktemp -d: mode 0700, so nobody cannot reach the run dirs by path
tmp=$(mktemp -d)
pid=''
cleanup() {
	for p in $pid $(pgrep -f -- "$tmp/|sac\.note=qemu-user-$$-"); do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
plan 25

# stalled NAME: a run of one stalled blk guest into $tmp/NAME in the
# background, as $pid; $job is its job dir once QEMU is up (qemu.pid),
# $qpid its QEMU, $st its /proc status.
stalled() {
	env --default-signal=INT,HUP,TERM "$farm" run --machine x86-intel \
		--workload blk --kernel "$amd64" \
		--variant "$1=sac.stall=agent sac.note=qemu-user-$$-$1" \
		--out "$tmp/$1" >"$tmp/$1.out" 2>&1 &
	pid=$!
	job='' qpid=''
	n=0
	while [ $n -lt 600 ] && [ -z "$qpid" ]; do
		for f in "$tmp/$1"/*/jobs/*/qemu.pid; do
			[ -s "$f" ] && job=${f%/qemu.pid} && qpid=$(cat "$f")
		done
		sleep 0.1
		n=$((n + 1))
	done
	st=/proc/$qpid/status
}

# field NAME: the value(s) of a line of $st, tabs as spaces.
field() {
	sed -n "s/^$1:[[:space:]]*//p" "$st" | tr '\t' ' ' | sed 's/ *$//'
}

# stop: SIGINT to the run; 0 once it and its QEMU are gone (10 s).
stop() {
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=''
	n=0
	while [ $n -lt 100 ] && pgrep -f "sac\.note=qemu-user-$$-$1( |\$)" >/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	! pgrep -f "sac\.note=qemu-user-$$-$1( |\$)" >/dev/null
}

# --- QEMU's process, as the farm runs it as root ---------------------------
stalled nobody
[ -n "$qpid" ] && grep -q '^qemu-system-' "/proc/$qpid/comm"
ok $? "a stalled guest's QEMU is up (pid ${qpid:-none}, from qemu.pid)"
is "$(field Uid)" "$uid $uid $uid $uid" "its real, effective, saved and fs uid are nobody's ($uid, not 0)"
is "$(field Gid)" "$gid $gid $gid $gid" "its gids are nobody's group ($gid)"
is "$(field Groups)" "" "it has no supplementary groups"
is "$(field CapPrm) $(field CapEff) $(field CapAmb) $(field CapBnd)" \
	"0000000000000000 0000000000000000 0000000000000000 0000000000000000" \
	"it has no capabilities, permitted, effective, ambient or bounding"
is "$(field NoNewPrivs)" 1 "no_new_privs is set: no setuid or file capability can raise it"
is "$(field Seccomp)" 2 "it is still in seccomp filter mode (-sandbox)"
is "$(readlink "/proc/$qpid/cwd")" "$job" "it runs in its job's dir"
is "$(stat -c '%u:%g %a' "$job/scratch.img")" "$uid:$gid 600" \
	"its scratch disk is handed to it (owner nobody, mode kept 600)"
ppid=$(ps -o ppid= -p "$qpid" | tr -d ' ')
tr '\0' ' ' <"/proc/$ppid/cmdline" | grep -q -- \
	"--exec-tied timeout --in $job --pidfile qemu.pid --as $uid:$gid qemu-system-x86_64 "
ok $? "its timeout started it through the tie with --as $uid:$gid"
stop nobody
ok $? "SIGINT to the run leaves no QEMU of it"

# --- boots pass that way ----------------------------------------------------
# shellcheck disable=SC2086 # $kernels: --kernel DIR
"$farm" run --machine x86-intel --machine arm64-smmuv3 --workload boot \
	--workload blk $kernels --out "$tmp/pass" >"$tmp/pass.out" 2>&1
ok $? "boot and blk on x86-intel and arm64-smmuv3 run as expected"
sed 's/^/# /' "$tmp/pass.out"
res=$tmp/pass/latest/results.json
is "$(jq '[.records[] | select(.outcome == "pass")] | length' "$res")" 4 \
	"all 4 jobs pass, the run dir private to root"
is "$(find "$tmp/pass" -name qemu.pid -o -name scratch.img | wc -l)" 0 \
	"no qemu.pid or scratch disk is left in the job dirs"

timeout 120 "$farm" boot --arch amd64 --machine x86-intel --kernel "$amd64" \
	--workload blk </dev/null >"$tmp/boot.out" 2>&1
ok $? "farm boot runs the blk guest to its end"
grep -q "^farm: booting: .* --as $uid:$gid qemu-system-x86_64 " "$tmp/boot.out"
ok $? "... with QEMU as nobody"
grep -aq '"workload":"blk","status":"pass"' "$tmp/boot.out"
ok $? "... and the guest's blk workload passes"

# --- FARM_QEMU_USER ---------------------------------------------------------
FARM_QEMU_USER=root stalled root
is "$(field Uid)" "0 0 0 0" "FARM_QEMU_USER=root: QEMU runs as root"
stop root
ok $? "... and goes with the run"

out=$(FARM_QEMU_USER=no-such-user-$$ "$farm" run --machine x86-intel \
	--workload boot --kernel "$amd64" --out "$tmp/bad" 2>&1)
is "$?" 2 "an unknown FARM_QEMU_USER stops the run (exit 2)"
is "$out" "farm: error: FARM_QEMU_USER=no-such-user-$$: no such user" \
	"... with one line naming it"

# --- an image QEMU's user cannot read -----------------------------------------
# the kernel's build dir, copied where only root can read it
k=$tmp/private/$SERIES-amd64-farm-desktop
mkdir -p "$k/arch/x86/boot" "$k/include/config" "$k/usr"
for f in .config include/config/kernel.release \
	arch/x86/boot/bzImage; do
	cp -p "$amd64/$f" "$k/$f"
done
"$farm" run --machine x86-intel --workload boot --kernel "$k" \
	--out "$tmp/unread" >"$tmp/unread.out" 2>&1
is "$?" 1 "a kernel image nobody cannot read: the run exits 1"
rec=$(jq -c '.records[0]' "$tmp/unread/latest/results.json")
is "$(printf '%s' "$rec" | jq -r .outcome)" infra-error "... its job is an infra-error"
like "$(printf '%s' "$rec" | jq -r .reason)" \
	"QEMU runs as nobody \\(uid $uid\\), who cannot read $k/arch/x86/boot/bzImage: Permission denied" \
	"... naming the file and QEMU's user"
! [ -e "$(ls -d "$tmp/unread/latest/jobs/"*)/console.log" ]
ok $? "... and nothing was booted"

done_testing
