# Shared helpers for the project's shell glue. Sourced, not run.
# shellcheck shell=sh

top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$top/build}
FRAGMENTS=${FRAGMENTS:-$top/config-fragments}
# The project's persistent caches, outside the checkout: the compiler's,
# and the farm's Debian images (scripts/farm-image), each keyed by what
# it was made from.
SAC_CACHE_HOME=${XDG_CACHE_HOME:-$HOME/.cache}/sac-farm
SAC_CCACHE_HOME=$SAC_CACHE_HOME/ccache

# -h or --help anywhere in a script's arguments: its header comment (the
# lines after #!, up to the first that is not a comment, holding a
# "Usage:" line) on stdout, exit 0. The header is the one place a
# script's usage is written; sourcing this file is what answers --help.
for _arg in "$@"; do
	case $_arg in
	-h | --help)
		awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"
		exit 0
		;;
	esac
done
unset _arg

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# Progress for a person watching a long job.
step() {
	printf '==> %s\n' "$*"
}

# The flavours, one a line: scripts/flavours is their one enumerator.
flavours() {
	FRAGMENTS=$FRAGMENTS "$top/scripts/flavours"
}

check_flavour() {
	[ -f "$FRAGMENTS/$1.config" ] ||
		die "unknown flavour '$1' (known: $(flavours | tr '\n' ' '))"
}

# The kernel series: a directory under patches/ each (scripts/series
# lists them). SERIES picks one for a build; bookworm's kernel unless
# told otherwise.
PATCHES=${PATCHES:-$top/patches}
DEFAULT_SERIES=6.1
SERIES=${SERIES:-$DEFAULT_SERIES}

all_series() {
	for _o in "$PATCHES"/*/origin; do
		[ -f "$_o" ] || die "no series: no */origin in $PATCHES"
		_o=${_o%/origin}
		echo "${_o##*/}"
	done | sort -V
}

check_series() {
	case $1 in
	'' | */* | .*) ;;
	*) [ ! -f "$PATCHES/$1/origin" ] || return 0 ;;
	esac
	die "unknown series '$1' (known: $(all_series | tr '\n' ' '))"
}

# series_origin SERIES WHAT: the Debian package SERIES names for WHAT in
# its origin file: "source" (the tarball the patches apply to, in
# /usr/src/PACKAGE.tar.xz), "config" (Debian's shipped configs, in
# /usr/src/PACKAGE/) or "package" (the source package its kernels are
# packaged as: debian/changelog's for the default series, the changelog
# in patches/SERIES/ for another).
series_origin() {
	_v=$(sed -n "s/^$2[[:space:]][[:space:]]*//p" "$PATCHES/$1/origin")
	[ -n "$_v" ] || die "$PATCHES/$1/origin names no $2 package"
	echo "$_v"
}

# series_changelog SERIES: the changelog of the package SERIES' kernels
# go into (the default series is the checkout's own package); a package
# tree of SERIES (scripts/package-tree) has it as debian/changelog.
series_changelog() {
	if [ "$1" = "$DEFAULT_SERIES" ]; then
		echo "$top/debian/changelog"
	else
		echo "$PATCHES/$1/changelog"
	fi
}

# series_version SERIES: its package's version (6.1.192-1).
series_version() {
	dpkg-parsechangelog -l "$(series_changelog "$1")" -SVersion ||
		die "cannot read the version from $(series_changelog "$1")"
}

# base_fragments BASE ARCH: the fragments a base merges under the flavour,
# one a line. The one place that knows the bases:
#   farm     tinyconfig and what a QEMU guest of the farm needs
#   debug    the farm base (less farm-net and farm-installed) with KASAN,
#            lockdep and the hang checkers
#   release  Debian's shipped config (the kernel's starting point)
base_fragments() {
	case $1 in
	farm) printf '%s\n' "$FRAGMENTS/base/farm-common.config" \
		"$FRAGMENTS/base/farm-net.config" \
		"$FRAGMENTS/base/farm-installed.config" \
		"$FRAGMENTS/base/farm-$2.config" ;;
	# the farm base but the network and what an installed system needs:
	# its kernels boot the agent's initramfs and run no net workload
	debug) printf '%s\n' "$FRAGMENTS/base/farm-common.config" \
		"$FRAGMENTS/base/farm-$2.config" "$FRAGMENTS/base/debug.config"
		[ ! -f "$FRAGMENTS/base/debug-$2.config" ] ||
			echo "$FRAGMENTS/base/debug-$2.config" ;;
	release) echo "$FRAGMENTS/base/release.config" ;;
	*) die "unknown base '$1' (known: farm debug release)" ;;
	esac
}

# release_modules_of ARCH: the modules a release kernel of ARCH keeps
# beside the workloads' own (farm/workloads.json): those Debian's stock
# kernel loads when it boots the farm's installed system on the arch's
# machines, one a line (make release-modules writes it).
release_modules_of() {
	echo "$FRAGMENTS/base/release-$1.modules"
}

# debian_config_of ARCH: Debian's shipped config for ARCH in SERIES,
# from its installed config package (a build dependency) or an earlier
# fetch-debian-config; nothing if neither has it.
debian_config_of() {
	_pkg=$(series_origin "$SERIES" config)
	for _dir in "/usr/src/$_pkg" "$BUILD_DIR/debian-config/$SERIES/$1"; do
		[ ! -f "$_dir/config.${1}_none_$1.xz" ] || echo "$_dir/config.${1}_none_$1.xz"
	done | head -n 1
}

check_base() {
	base_fragments "$1" amd64 >/dev/null
}

# base_localversion BASE: what a kernel of BASE has in its release
# between the upstream version and its flavour's CONFIG_LOCALVERSION
# (6.1.192-farm-sac-desktop; kernel-build writes it to a localversion
# file of the tree, which kbuild reads). Every package name follows the
# release, so a farm kernel's packages can never pass for what ships:
# only the release base has the plain names.
base_localversion() {
	case $1 in
	release) ;;
	farm | debug) echo "-$1" ;;
	*) check_base "$1" ;;
	esac
}

# debs_root BASE: where make-debs puts BASE's packages (under SERIES/ARCH):
# DEBS_DIR if set; else out/debs for the release base, the one a user
# installs, and out/farm-debs for the farm's.
debs_root() {
	check_base "$1"
	if [ -n "${DEBS_DIR:-}" ]; then
		echo "$DEBS_DIR"
	elif [ "$1" = release ]; then
		echo "$top/out/debs"
	else
		echo "$top/out/farm-debs"
	fi
}

# Per architecture: the kernel's ARCH, the image make builds, and the
# cross prefix when the host is not that architecture.
set_arch() {
	case $1 in
	amd64) karch=x86 image=arch/x86/boot/bzImage gnu=x86_64-linux-gnu ;;
	arm64) karch=arm64 image=arch/arm64/boot/Image gnu=aarch64-linux-gnu ;;
	*) die "unknown arch '$1' (known: amd64 arm64)" ;;
	esac
	cross=
	[ "$(dpkg --print-architecture)" = "$1" ] || cross=$gnu-
	command -v "${cross}gcc" >/dev/null ||
		die "no compiler ${cross}gcc for $1 (install gcc-$gnu)"
}

sha() {
	cat "$@" | sha256sum | cut -c1-16
}

# progress WHAT LOG DIR CMD...: run CMD with its output appended to LOG
# and, every $PROGRESS_EVERY seconds (30) while it runs, one line
#   ==> WHAT: N objects, 3m05s
# on stdout, N being the *.o files under DIR written since CMD started,
# or "==> WHAT: running, 3m05s" while there are none (packaging a built
# kernel compiles nothing).
# Returns CMD's status. The ticker is a background subshell; it is gone
# when progress returns, and on Ctrl-C or kill (the INT, TERM and HUP
# traps set meanwhile stop it, then exit 130, 143 or 129: callers set no
# traps of their own for those). Should the script die some other way,
# the ticker ends by itself within a second.
progress() {
	_p_rc=0
	ticker_start "$1" "$3"
	_p_log=$2
	shift 3
	"$@" >>"$_p_log" 2>&1 || _p_rc=$?
	ticker_stop
	return "$_p_rc"
}

ticker_start() {
	_t_every=${PROGRESS_EVERY:-30}
	case $_t_every in
	'' | *[!0-9]* | 0*) die "PROGRESS_EVERY wants whole seconds (1 or more), got '$_t_every'" ;;
	esac
	_t_stamp=$(mktemp "${TMPDIR:-/tmp}/sac-progress.XXXXXX")
	trap 'ticker_stop; exit 130' INT
	trap 'ticker_stop; exit 143' TERM
	trap 'ticker_stop; exit 129' HUP
	(
		# Ends at ticker_stop's TERM; or, when that TERM came before
		# this trap was set (dash then drops it), within a second of
		# ticker_stop removing the stamp. $! is always this subshell's
		# latest sleep: the trap ends it, and reaps it.
		sleep 0 &
		trap 'kill "$!" 2>/dev/null; wait; exit 0' TERM
		t0=$(date +%s)
		next=$((t0 + _t_every))
		while [ -e "$_t_stamp" ]; do
			sleep 1 &
			wait "$!" || :
			kill -0 "$$" 2>/dev/null || exit 0 # the script is gone
			now=$(date +%s)
			[ "$now" -ge "$next" ] || continue
			next=$((now + _t_every))
			n=$(find "$2" -name '*.o' -newer "$_t_stamp" 2>/dev/null | wc -l)
			[ -e "$_t_stamp" ] || exit 0
			t=$((now - t0))
			t="$((t / 60))m$(printf %02d $((t % 60)))s"
			if [ "$n" -gt 0 ]; then
				step "$1: $n objects, $t"
			else
				step "$1: running, $t"
			fi
		done
	) &
	_t_pid=$!
}

ticker_stop() {
	trap - INT TERM HUP
	[ -n "${_t_pid:-}" ] || return 0
	rm -f "$_t_stamp"
	kill "$_t_pid" 2>/dev/null || :
	wait "$_t_pid" 2>/dev/null || :
	_t_pid=
}
