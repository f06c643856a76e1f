# The AppArmor profile: made by make install under DESTDIR with its path
# following PREFIX, accepted by apparmor_parser (compiled, never loaded),
# removed by make uninstall; and the tier hint on a host whose seccomp
# filter refuses user namespaces. Nothing is installed on this host: every
# install goes under the test's own DESTDIR.
. "$(dirname "$0")/lib.sh"

build=${PROCAGE%/procage}
dest="$work/dest"
parser=${APPARMOR_PARSER:-$(command -v apparmor_parser || true)}

make -C "$top" --no-print-directory -s install APPARMOR=1 DESTDIR="$dest" \
	PREFIX=/opt/procage-test BUILD="$build" >"$work/install.log" 2>&1; st=$?
is "$st" 0 "make install APPARMOR=1 DESTDIR=... succeeds"
[ $st -eq 0 ] || sed 's/^/# /' "$work/install.log"
profile="$dest/etc/apparmor.d/procage"
ok $([ -f "$profile" ] && echo 0 || echo 1) "the profile lands in DESTDIR/etc/apparmor.d/procage"
like "$(grep -E '^profile ' "$profile" 2>/dev/null)" \
	'^profile procage /opt/procage-test/bin/procage flags=\(unconfined\) \{$' \
	"its path follows PREFIX, and it confines nothing"
like "$(grep -cE '^ *userns,$' "$profile" 2>/dev/null)" '^1$' "it allows user namespaces"
like "$(cat "$work/install.log")" 'run as root: apparmor_parser -r /etc/apparmor.d/procage' \
	"under DESTDIR it is not loaded: the command to load it is printed"

# Parse without loading. apparmor_parser before 4.0 (Debian 12 has 3.0.8)
# knows neither the userns rule nor abi 4.0: it then checks the rest of the
# profile, and the userns rule is reported as not checked. APPARMOR_PARSER
# and APPARMOR_INCLUDE (a directory with abi/4.0) choose a newer parser.
parse() { # parse FILE: compile only, no cache, no kernel
	"$parser" -Q -K -S ${APPARMOR_INCLUDE:+-I "$APPARMOR_INCLUDE"} "$1" >/dev/null 2>"$work/parse.log"
}
if [ -z "$parser" ]; then
	echo "ok $((tap_n += 1)) # SKIP apparmor_parser is missing (make deps installs the apparmor package)"
else
	printf 'abi <abi/4.0>,\nprofile probe /probe flags=(unconfined) {\n  userns,\n}\n' >"$work/probe"
	if parse "$work/probe"; then
		cp "$profile" "$work/check"
		note="the whole profile"
	else
		grep -vE '^ *(userns|abi <abi/4\.0>),$' "$profile" >"$work/check"
		note="the profile without its userns rule and abi line"
		echo "# $($parser --version | head -1) predates the userns rule (AppArmor 4.0):" \
			"it checks the rest of the profile"
		echo "ok $((tap_n += 1)) # SKIP the userns rule is not checked by this apparmor_parser"
	fi
	parse "$work/check"; st=$?
	is "$st" 0 "apparmor_parser accepts $note"
	[ $st -eq 0 ] || sed 's/^/# /' "$work/parse.log"
	sed -e 's/^profile procage/profle procage/' "$work/check" >"$work/broken"
	parse "$work/broken"; st=$?
	ok $([ $st -ne 0 ] && echo 0 || echo 1) "control: a misspelt profile is refused by the same parser"
	sed -e 's|@NAME@|harness|g; s|@PROGRAM@|/opt/harness/bin/harness|g' "$top/apparmor/program.in" \
		>"$work/template"
	if [ "$note" != "the whole profile" ]; then
		grep -vE '^ *(userns|abi <abi/4\.0>),$' "$work/template" >"$work/template.t"
		mv "$work/template.t" "$work/template"
	fi
	parse "$work/template"; st=$?
	is "$st" 0 "the template for programs linked with the library parses once filled in"
fi

make -C "$top" --no-print-directory -s uninstall APPARMOR=1 DESTDIR="$dest" \
	PREFIX=/opt/procage-test BUILD="$build" >"$work/uninstall.log" 2>&1; st=$?
is "$st" 0 "make uninstall succeeds"
left=$(find "$dest" -type f | sed "s|^$dest||" | tr '\n' ' ')
is "$left" "" "make uninstall removes every file make install made, the profile among them"

make -C "$top" --no-print-directory -s install APPARMOR=0 DESTDIR="$work/dest0" \
	PREFIX=/opt/procage-test BUILD="$build" >/dev/null 2>&1
ok $([ ! -e "$work/dest0/etc" ] && echo 0 || echo 1) "APPARMOR=0: no profile is installed"

# The hint on a host whose seccomp filter refuses user namespaces (tier T2).
out=$("$build/tests/without_userns" "$PROCAGE" facts 2>&1)
like "$out" 'tier +T2' "under a filter refusing user namespaces the host is tier T2"
like "$out" '^hint: this process runs under a seccomp filter.*--security-opt seccomp=' \
	"and the hint names the seccomp filter and how a container gets tier T1"
json=$("$build/tests/without_userns" "$PROCAGE" facts --json 2>&1)
like "$json" '"tier_hint":"this process runs under a seccomp filter' "facts --json carries the hint"
host=$("$PROCAGE" facts 2>&1)
if printf '%s\n' "$host" | grep -Eq '^tier +T1$'; then
	ok $(printf '%s\n' "$host" | grep -q '^hint:' && echo 1 || echo 0) "this host is tier T1: no hint"
else
	like "$host" '^hint: .*tier T2' "this host is not tier T1: the hint says why"
fi
done_testing
