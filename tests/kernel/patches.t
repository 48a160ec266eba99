#!/bin/sh
# Every series (patches/*/) applies in order to a pristine tree of the
# Debian source package its origin file names, and every patch is clean
# under checkpatch --strict.
. "$(dirname "$0")/../lib/tap.sh"
all=$("$top/scripts/series")
n=1
for s in $all; do
	n=$((n + 2 * $(grep -vc '^#' "$top/patches/$s/series") + 1))
done
plan "$n"
is "$(echo "$all" | head -n 1)" "$("$top/scripts/series" --default)" \
	"the default series is the oldest: bookworm's own kernel"

mkdir -p "$BUILD_DIR"
t=$(mktemp -d "$BUILD_DIR/patches-test.XXXXXX")
trap 'rm -rf "$t"' EXIT
for s in $all; do
	dir=$top/patches/$s
	pkg=$(sed -n 's/^source[[:space:]]*//p' "$dir/origin")
	series=$(grep -v '^#' "$dir/series")
	tree=$t/$s
	mkdir -p "$tree"
	# Only the files the series touches that exist before it (not those
	# it creates, "--- /dev/null"), plus checkpatch and its data.
	created=$(cd "$dir" &&
		awk '/^--- \/dev\/null$/ { getline; sub(/^\+\+\+ b\//, ""); print }' $series)
	files=$(cd "$dir" && sed -n 's|^--- a/||p' $series | sort -u |
		grep -vxF "$created")
	tar -xf "/usr/src/$pkg.tar.xz" -C "$tree" --strip-components=1 --wildcards \
		$(for f in $files scripts/checkpatch.pl scripts/spelling.txt \
			scripts/const_structs.checkpatch; do
			echo "$pkg/$f"; done) 2>"$t/err"
	ok $? "$s: pristine files unpacked from /usr/src/$pkg.tar.xz $(head -n 1 "$t/err")"
	for p in $series; do
		out=$(patch -d "$tree" -p1 --batch --forward <"$dir/$p" 2>&1)
		rc=$?
		! printf '%s' "$out" | grep -Eq 'offset|fuzz|FAILED|rej'
		ok $((rc + $?)) "$s: $p applies cleanly (no offset, fuzz or reject)"
		[ $rc -eq 0 ] || printf '# %s\n' "$out"
		res=$(cd "$tree" && perl scripts/checkpatch.pl --strict --no-tree "$dir/$p" 2>&1)
		like "$res" "total: 0 errors, 0 warnings," "$s: checkpatch --strict: $p"
	done
done
done_testing
