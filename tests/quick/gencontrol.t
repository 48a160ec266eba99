#!/bin/sh
# debian/control is what scripts/gencontrol makes of the flavour
# fragments for SERIES (a package tree's own; the checkout's is the
# default series'), and debian/tests/control what it makes of its
# template; a flavour added or changed without regenerating it
# fails. The farm base's packages and the release base's never share a
# name, every farm package says "farm" in its name and description, and
# each base's are built under its own profile only. In the checkout, every other series' control names its own
# source, Debian packages and binary packages: none has a name the
# default series' has. (debian/rules runs this in a series' package
# tree, which knows its own series only.)
. "$(dirname "$0")/../lib/tap.sh"
gen=$top/scripts/gencontrol
ctl=$top/debian/control
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fls=$("$top/scripts/flavours")
nfl=$(printf '%s\n' "$fls" | wc -l)
others=
[ "$SERIES" != "$("$top/scripts/series" --default)" ] ||
	others=$("$top/scripts/series" | grep -vxF "$SERIES")
plan $((20 + 3 * nfl + 4 * $(printf '%s\n' "$others" | grep -c .)))

out=$("$gen" --stdout 2>&1)
ok $? "gencontrol runs"
printf '%s\n' "$out" >"$tmp/control"
diff -u "$ctl" "$tmp/control" >"$tmp/diff"
r=$?
ok $r "debian/control is up to date with config-fragments/ (else: scripts/gencontrol)"
[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/diff" | head -20

src=$(sed '/^$/q' "$ctl")
pkg=$("$top/scripts/series" --origin "$SERIES" package)
source=$("$top/scripts/series" --origin "$SERIES" source)
like "$src" "^Source: $pkg\$" "the source stanza comes first, naming $pkg"
like "$src" '^ bison,' "the source stanza keeps the project's Build-Depends"
up=$(dpkg-parsechangelog -l "$top/debian/changelog" -SVersion)
up=${up%-*}
next=${up%.*}.$((${up##*.} + 1))
is "$(printf '%s\n' "$src" | grep -c "^ $source (\(>= $up~\|<< $next~\))")" 2 \
	"Build-Depends pins $source to $up, debian/changelog's upstream"
deps=$(printf '%s\n' "$src" | sed -n '/^Build-Depends:/,/^[A-Z#]/p')
# jq for the release profile alone: its build trims the modules to
# those farm/workloads.json names (scripts/kernel-build)
unlike=$(printf '%s\n' "$deps" | grep -vx ' jq <pkg.linux-sac.release>,' |
	grep -E ' (qemu|lava|chromium|postgresql|lintian|jq|expect)' || true)
is "$unlike" "" "no test tool in Build-Depends (they are in tests/control, debian/tests/control)"

for b in release farm; do
	for f in $fls; do
		kr=$("$gen" --kr "$f" "$b")
		meta=$("$gen" --meta "$f" "$b")
		n=$(grep -cx "Package: \(linux-image-$kr\|linux-headers-$kr\|linux-image-$kr-dbg\|linux-image-$meta\|linux-headers-$meta\)" "$ctl")
		is "$n" 5 "$b/$f: image, headers, -dbg and two metapackages for $kr"
	done
done
# The autopkgtests: each installs every flavour's kernel, the release
# base's or else the farm's; never @, which autopkgtest expands to every
# stanza, both bases' packages, build profiles ignored.
tctl=$top/debian/tests/control
"$gen" --tests >"$tmp/tests-control" 2>&1
diff -u "$tctl" "$tmp/tests-control" >"$tmp/tdiff"
r=$?
ok $r "debian/tests/control is up to date (else: scripts/gencontrol)"
[ $r -eq 0 ] || sed 's/^/#   /' "$tmp/tdiff" | head -20
ntests=$(grep -c '^Tests: ' "$tctl")
is "$(grep -c '^Depends: *@' "$tctl")" 0 "no autopkgtest depends on @"
for f in $fls; do
	r=$("$gen" --kr "$f" release) m=$("$gen" --kr "$f" farm)
	n=$(grep -cxF -e " linux-image-$r | linux-image-$m," \
		-e " linux-headers-$r | linux-headers-$m," \
		-e " linux-image-$r-dbg | linux-image-$m-dbg," "$tctl")
	is "$n" "$((3 * ntests))" \
		"$f: every autopkgtest installs its image, headers and -dbg, release or else farm"
done
is "$("$gen" --kr desktop release):$("$gen" --kr desktop farm)" \
	"$up-sac-desktop:$up-farm-sac-desktop" "release kernels keep the plain name; the farm's say farm"

# stanzas BASE-PROFILE: the Package and Description lines of the stanzas
# built under that base profile term, one stanza a line.
stanzas() {
	awk -v want="$1" 'BEGIN { RS = "" } /\nBuild-Profiles: / {
		p = $0; sub(/.*\nBuild-Profiles: /, "", p); sub(/\n.*/, "", p)
		n = split(p, t, "> <")
		for (i = 1; i <= n; i++) {
			gsub(/[<>]/, "", t[i]); split(t[i], w, " ")
			if (w[1] != want) next
		}
		pk = $0; sub(/.*Package: /, "", pk); sub(/\n.*/, "", pk)
		d = $0; sub(/.*\nDescription: /, "", d); gsub(/\n /, " ", d)
		print pk "|" d
	}' "$ctl"
}
is "$(awk '/^ / && length > 80' "$ctl")" "" \
	"no line of a description is longer than 80 characters (lintian)"
stanzas pkg.linux-sac.release >"$tmp/release"
stanzas '!pkg.linux-sac.release' >"$tmp/farm"
nall=$(grep -c '^Package: ' "$ctl")
is "$(cat "$tmp/release" "$tmp/farm" | wc -l)" "$nall" \
	"every binary package is built under one base's profile in each alternative"
cut -d'|' -f1 "$tmp/release" | sort >"$tmp/rn"
cut -d'|' -f1 "$tmp/farm" | sort >"$tmp/fn"
is "$(comm -12 "$tmp/rn" "$tmp/fn")" "" "no farm package has a release package's name"
is "$(grep -v -- '-farm-' "$tmp/fn")" "" "every farm package's name says farm"
is "$(grep -c -- '-farm-' "$tmp/rn")" 0 "no release package's name does"
is "$(grep -vc 'Base farm: .*never install it' "$tmp/farm")" 0 \
	"every farm package's description says it is never to be installed on a machine"
is "$(grep '^linux-image-[0-9]' "$tmp/farm" | grep -v -- '-dbg|' | grep -vc '|Linux [0-9.]* farm test kernel, ')" 0 \
	"every farm kernel image's synopsis says farm test kernel"

for s in $others; do
	SERIES=$s "$gen" --stdout >"$tmp/control-$s" 2>"$tmp/err"
	ok $? "SERIES=$s: gencontrol runs $(head -n 1 "$tmp/err")"
	pkg=$("$top/scripts/series" --origin "$s" package)
	sup=$("$top/scripts/series" --version "$s")
	sup=${sup%-*}
	head=$(sed '/^$/q' "$tmp/control-$s")
	printf '%s\n' "$head" | grep -qx "Source: $pkg" &&
		printf '%s\n' "$head" | grep -qxF " $("$top/scripts/series" --origin "$s" source) (>= $sup~),"
	ok $? "SERIES=$s: source $pkg, built from its own Debian source at $sup"
	shared=$(sed -n 's/^Package: //p' "$ctl" "$tmp/control-$s" | sort | uniq -d)
	is "$shared" "" "SERIES=$s: no binary package shares a name with series $SERIES's"
	is "$(grep -c "^Package: linux-image-$sup-\(farm-\)\?sac-" "$tmp/control-$s")" \
		"$((4 * nfl))" "SERIES=$s: an image and a -dbg per flavour and base for $sup"
done

# A new flavour makes debian/control out of date.
cp -r "$top/config-fragments" "$tmp/frag"
sed 's/desktop/laptop/g' "$tmp/frag/desktop.config" >"$tmp/frag/laptop.config"
FRAGMENTS=$tmp/frag "$gen" --stdout >"$tmp/control3"
cmp -s "$ctl" "$tmp/control3"
[ $? -ne 0 ] && grep -q "^Package: linux-image-$up-sac-laptop\$" "$tmp/control3"
ok $? "a new fragment adds its packages, and the check would catch it"
grep -q '^Build-Profiles: <pkg.linux-sac.release !pkg.linux-sac.flavour-adaptive !pkg.linux-sac.flavour-desktop !pkg.linux-sac.flavour-server> <pkg.linux-sac.release pkg.linux-sac.flavour-laptop>$' "$tmp/control3"
ok $? "a flavour is built when its profile or no flavour profile is set (and its base's)"

# A fragment without its description is refused in one line.
grep -v flavour-description "$tmp/frag/laptop.config" >"$tmp/x" &&
	mv "$tmp/x" "$tmp/frag/laptop.config"
err=$(FRAGMENTS=$tmp/frag "$gen" --stdout 2>&1 >/dev/null)
rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
ok $? "no '# flavour-description:' line: rc=$rc, one line"
like "$err" "laptop.config has no '# flavour-description:'" "the error names the fragment"
done_testing
