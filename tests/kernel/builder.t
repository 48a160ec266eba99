#!/bin/sh
# The package build honours its builder: debian/rules turns
# DEB_BUILD_OPTIONS' parallel=N into kbuild's -jN (one job without it),
# uses ccache only when the builder set CCACHE_DIR, never downloads, and
# names the linux source in Built-Using; scripts/kernel-build does what
# it is told (a stand-in make records what it was asked, on a tiny
# tarball: no kernel is built).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/kernels.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
plan 20

# rules_var VAR [ENV...]: VAR as debian/rules sets it under ENV.
rules_var() {
	v=$1
	shift
	(cd "$top" && env -u DEB_BUILD_OPTIONS -u CCACHE_DIR "$@" make -s -f debian/rules \
		--eval "sac-show-var: ; @echo '\$($v)'" sac-show-var 2>/dev/null)
}
is "$(rules_var SAC_JOBS)" 1 "no parallel= in DEB_BUILD_OPTIONS: one job"
is "$(rules_var SAC_JOBS DEB_BUILD_OPTIONS='nocheck parallel=3')" 3 "parallel=3: three jobs"
is "$(rules_var SAC_CCACHE_DIR)" "" "no CCACHE_DIR from the builder: no ccache"
is "$(rules_var SAC_CCACHE_DIR CCACHE_DIR=/var/cache/ccache)" /var/cache/ccache \
	"the builder's CCACHE_DIR: ccache there"
is "$(rules_var SAC_OFFLINE)" 1 "the build never downloads"
src=$(dpkg-query -W -f '${source:Package} (= ${source:Version})' linux-source-6.1 2>/dev/null)
is "$(rules_var BUILT_USING)" "${src:-none}" "Built-Using names the installed linux-source-6.1's source"

# kernel-build in a copy, on a tarball of two files, with a make that
# records its CC and -j and fails (so nothing after it runs).
repo=$t/repo
mkdir -p "$repo/debian" "$repo/patches/$SERIES" "$t/fake/linux-fake" "$t/bd/host" "$t/bin"
cp -r "$top/scripts" "$top/config-fragments" "$repo/"
cp "$top/debian/changelog" "$repo/debian/"
cp "$top/patches/$SERIES/origin" "$repo/patches/$SERIES/"
: >"$repo/patches/$SERIES/series"
ln -s "$BUILD_DIR/host/kconfig-verify" "$t/bd/host/kconfig-verify"
printf 'hello\n' >"$t/fake/linux-fake/README"
tar -cJf "$t/linux-fake.tar.xz" -C "$t/fake" linux-fake
cat >"$t/bin/make" <<'EOF2'
#!/bin/sh
for a in "$@"; do
	case $a in CC=* | -j*) echo "$a" ;; esac
done >"$MAKE_RECORD"
exit 1
EOF2
chmod +x "$t/bin/make"
# kb ENV...: kernel-build config amd64 farm desktop; its recorded make
# arguments on one line.
kb() {
	rm -f "$t/rec"
	env -u SAC_JOBS -u SAC_CCACHE_DIR -u CCACHE_DIR PATH="$t/bin:$PATH" \
		MAKE_RECORD="$t/rec" BUILD_DIR="$t/bd" \
		LINUX_TARBALL="$t/linux-fake.tar.xz" XDG_CACHE_HOME="$t/cache" "$@" \
		"$repo/scripts/kernel-build" config amd64 farm desktop >"$t/out" 2>&1
	# no record when kernel-build refused before running make
	[ ! -f "$t/rec" ] || tr '\n' ' ' <"$t/rec"
}
is "$(kb)" "CC=ccache gcc -j$(nproc) " "make's default: ccache (the project's cache) and nproc jobs"
is "$(cat "$t/bd/kernel/$SERIES-amd64-farm-desktop/localversion-base" 2>&1)" -farm \
	"the farm base's tree has a localversion file: its kernel release says farm"
is "$(kb SAC_JOBS=3 SAC_CCACHE_DIR=)" "CC=gcc -j3 " "SAC_CCACHE_DIR empty: plain gcc; SAC_JOBS=3: -j3"
is "$(kb SAC_JOBS=3 SAC_CCACHE_DIR="$t/cc")" "CC=ccache gcc -j3 " "SAC_CCACHE_DIR set: ccache"
kb SAC_JOBS=lots >/dev/null
is "$(wc -l <"$t/out") $(grep -c "SAC_JOBS='lots' is not a number" "$t/out")" "1 1" \
	"SAC_JOBS=lots: one error line"

# kbe ENV...: kernel-build's output (stderr) and status under ENV.
kbe() {
	env -u LINUX_TARBALL PATH="$t/bin:$PATH" MAKE_RECORD="$t/rec" \
		BUILD_DIR="$t/bd" SAC_CCACHE_DIR= "$@" \
		"$repo/scripts/kernel-build" config amd64 farm desktop 2>&1
}
out=$(kbe SERIES=5.10)
is "$?:$(echo "$out" | wc -l)" 1:1 "an unknown SERIES: one line, exit 1"
known=$("$repo/scripts/series" | tr '\n' ' ')
like "$out" "unknown series '5.10' \\(known: $known\\)" "... naming the series there are"
mkdir -p "$repo/patches/9.9"
printf 'source linux-source-9.9\nconfig linux-config-9.9\n' >"$repo/patches/9.9/origin"
: >"$repo/patches/9.9/series"
out=$(kbe SERIES=9.9)
is "$?:$(echo "$out" | wc -l)" 1:1 "a series whose source package is not installed: one line, exit 1"
like "$out" "/usr/src/linux-source-9.9.tar.xz missing \\(apt-get install linux-source-9.9," \
	"... naming the package to install"

# The release base without Debian's config for the arch, offline: one
# line naming the build dependency, and no download attempted.
printf '#!/bin/sh\necho called >"%s"\nexit 1\n' "$t/apt-called" >"$t/bin/apt-get"
chmod +x "$t/bin/apt-get"
env PATH="$t/bin:$PATH" BUILD_DIR="$t/bd" LINUX_TARBALL="$t/linux-fake.tar.xz" \
	MAKE_RECORD="$t/rec" SAC_OFFLINE=1 SAC_CCACHE_DIR= \
	"$repo/scripts/kernel-build" config arm64 release desktop >"$t/out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ "$(grep -c 'install linux-config-6.1:arm64' "$t/out")" -eq 1 ]
ok $? "offline release build without the arm64 config: fails naming linux-config-6.1:arm64"
[ -d /usr/src/linux-config-6.1 ] && [ -f /usr/src/linux-config-6.1/config.arm64_none_arm64.xz ] &&
	echo "# (this machine has the arm64 config installed: the case above did not apply)"
[ ! -e "$t/apt-called" ]
ok $? "and nothing was downloaded"
# A tree built from today's inputs is current without the lock (the
# package builds ask for it while make check builds the debug kernels):
# the real amd64 desktop tree's stamps, copied into a build dir whose
# lock is held.
real=$BUILD_DIR/kernel/$SERIES-amd64-farm-desktop
bd=$t/stamps
mkdir -p "$bd/host" "$bd/src/linux-$SERIES" "$bd/kernel/${real##*/}"
ln -s "$BUILD_DIR/host/kconfig-verify" "$bd/host/kconfig-verify"
cp "$BUILD_DIR/src/linux-$SERIES/.sac-source" "$bd/src/linux-$SERIES/" &&
	cp "$real/.sac-config" "$real/.sac-base" "$real/.sac-built" "$bd/kernel/${real##*/}/"
ok $? "the built amd64 farm desktop tree's stamps (make all-kernels first)"
hold_build_lock "$bd" 60
# kbs: kernel-build build of that tree, given 3 s; its status
kbs() {
	BUILD_DIR=$bd timeout 3 "$top/scripts/kernel-build" build amd64 farm desktop \
		>"$t/out" 2>&1
	echo $?
}
is "$(kbs):$(cat "$t/out")" "0:" "lock held, tree current: done at once, silently"
rm "$bd/kernel/${real##*/}/.sac-built"
like "$(kbs):$(cat "$t/out")" "^124:.*waiting for the kernel-build already running" \
	"lock held, tree not built: waits for the lock"
kill "$holder"
done_testing
