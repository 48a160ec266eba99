#!/bin/sh
# scripts/run-check, make check's test run, around a fake make and a fake
# prove: the debug kernels build in the background at the lowest priority
# while the first tests run, the debug tests run only once that build has
# finished, a failed build fails the check even when every test passed,
# a stopped check leaves no build behind, and --make targets build first,
# beside the debug build, at the normal priority; a setsid slow to make
# its group loses no stop.
. "$(dirname "$0")/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 21
mkdir -p "$tmp/bin"
# make: records its niceness and arguments; as the debug build, builds
# for STUB_SECS and exits STUB_RC (its child sleep is what a stop must
# reach); any other target exits STUB_TARGET_RC at once
cat >"$tmp/bin/make" <<'EOF'
#!/bin/sh
echo "nice=$(nice) $*" >>"$STUB_LOG"
case $* in *debug-kernels) ;; *) exit "${STUB_TARGET_RC:-0}" ;; esac
echo "==> fake debug build"
sleep "${STUB_SECS:-1}"
echo "built" >>"$STUB_LOG"
exit "${STUB_RC:-0}"
EOF
# prove: records its tests, and whether the build had finished then
cat >"$tmp/bin/prove" <<'EOF'
#!/bin/sh
if grep -q '^built' "$STUB_LOG"; then state=after; else state=during; fi
echo "prove $state: $*" >>"$STUB_LOG"
case " $* " in *" fail.t "*) exit 1 ;; esac
exit 0
EOF
printf '#!/bin/sh\nsleep 42.25\n' >"$tmp/bin/slow-prove"
# setsid: the real one; for the debug build, after STUB_SETSID_SECS (a
# loaded machine's delay between the fork and the new process group)
cat >"$tmp/bin/setsid" <<EOF
#!/bin/sh
case \$* in *debug-kernels) sleep "\${STUB_SETSID_SECS:-0}" ;; esac
exec $(command -v setsid) "\$@"
EOF
chmod +x "$tmp/bin/make" "$tmp/bin/prove" "$tmp/bin/slow-prove" "$tmp/bin/setsid"
rc() {
	: >"$tmp/log"
	env PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/log" BUILD_DIR="$tmp/b" \
		PROVE=prove "$@" >"$tmp/out" 2>"$tmp/err"
	echo $?
}

out=$(rc "$top/scripts/run-check" a.t b.t)
is "$out:$(wc -l <"$tmp/err")" "1:1" "no '--': one error line, exit 1"

out=$(rc "$top/scripts/run-check" a.t b.t -- d.t)
is "$out" 0 "both sets pass and the build succeeds: exit 0"
grep -q '^nice=19 .*debug-kernels$' "$tmp/log"
ok $? "the debug kernels build at niceness 19"
is "$(grep '^prove' "$tmp/log" | tr '\n' '|')" \
	"prove during: a.t b.t|prove after: d.t|" \
	"the first tests run during the build, the debug tests after it"
grep -q '^==> fake debug build' "$tmp/out"
ok $? "the build's progress lines show while the check waits for it"
pgrep -f "tail .*$tmp/b/logs" >/dev/null
is "$?" 1 "and their follower has ended when the check does"

out=$(STUB_RC=2 rc "$top/scripts/run-check" a.t -- d.t)
is "$out" 1 "a failed debug build fails the check"
grep -q 'error: the debug kernels did not build' "$tmp/err"
ok $? "and says so"
grep -q '^prove after' "$tmp/log"
is "$?" 1 "no debug test runs on a failed build"

out=$(rc "$top/scripts/run-check" fail.t -- d.t)
is "$out" 1 "a failed first test fails the check"
grep -q '^prove after: d.t' "$tmp/log"
ok $? "the debug tests still run"

out=$(STUB_SECS=2 rc "$top/scripts/run-check" --make pkgs a.t -- d.t)
is "$out" 0 "--make pkgs: the target, both sets and the build pass: exit 0"
is "$(sed '/debug-kernels$/d; s/ -C [^ ]* --no-print-directory//' "$tmp/log" | tr '\n' '|')" \
	"nice=0 pkgs|prove during: a.t|built|prove after: d.t|" \
	"the target builds beside the debug build at the normal priority, then the tests"
out=$(STUB_TARGET_RC=2 STUB_SECS=41.25 rc "$top/scripts/run-check" --make pkgs a.t -- d.t)
is "$out:$(wc -l <"$tmp/err")" "1:1" "a failed target: one error line, exit 1"
grep -q 'error: make pkgs failed: no test was run' "$tmp/err"
ok $? "naming the target"
grep -q '^prove' "$tmp/log"
is "$?" 1 "and no test runs"
out=$(STUB_SETSID_SECS=0.5 STUB_TARGET_RC=2 STUB_SECS=41.25 \
	rc "$top/scripts/run-check" --make pkgs a.t -- d.t)
is "$out:$(wc -l <"$tmp/err")" "1:1" \
	"a failed target before the build has its group: one error line, exit 1"
sleep 1
pgrep -f "sleep 41.25" >/dev/null
is "$?" 1 "and the build is stopped all the same"
out=$(rc "$top/scripts/run-check" --make)
is "$out:$(wc -l <"$tmp/err")" "1:1" "--make without a target: one error line, exit 1"

# A stop: TERM to the check reaches the build's process group.
: >"$tmp/log"
env PATH="$tmp/bin:$PATH" STUB_LOG="$tmp/log" BUILD_DIR="$tmp/b" \
	STUB_SECS=41.25 PROVE=slow-prove "$top/scripts/run-check" a.t -- d.t \
	>/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
is "$?" 130 "a stopped check ends at once, with status 130"
sleep 1
pgrep -f "sleep 4[12].25" >/dev/null
is "$?" 1 "and leaves neither the build nor the tests behind (nor a failed target's build)"
done_testing
