# Minimal TAP helpers for the project's shell tests. Sourced.
# shellcheck shell=sh
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$top/build}
# The kernel series of the kernels the tests boot (make exports it):
# $BUILD_DIR/kernel/$SERIES-ARCH-BASE-FLAVOUR.
SERIES=${SERIES:-$("$top/scripts/series" --default)}
export SERIES
tap_n=0
tap_failed=0

plan() {
	echo "1..$1"
}

# ok COND-EXIT-STATUS DESCRIPTION
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

# is GOT WANT DESCRIPTION
is() {
	[ "$1" = "$2" ]
	r=$?
	ok $r "$3"
	[ $r -eq 0 ] || printf '#   got:  %s\n#   want: %s\n' "$1" "$2"
}

# like STRING PATTERN DESCRIPTION (grep -E pattern)
like() {
	printf '%s\n' "$1" | grep -Eq -- "$2"
	r=$?
	ok $r "$3"
	[ $r -eq 0 ] || printf '#   %s\n#   does not match: %s\n' "$1" "$2"
}

# running PID: PID is a process that has not ended (a zombie has).
running() {
	_st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$_st" ] && [ "${_st#Z}" = "$_st" ]
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

done_testing() {
	[ "$tap_failed" -eq 0 ]
}
