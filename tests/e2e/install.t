# make install: the library, header, pkg-config file and command land under
# PREFIX, and a C program built against them cages a command.
. "$(dirname "$0")/lib.sh"

prefix="$work/prefix"
# LDCONFIG is a stub that records its calls: no test touches the host's
# /etc/ld.so.cache.
printf '#!/bin/sh\necho "ldconfig $*" >>"%s/ldconfig.calls"\n' "$work" >"$work/ldconfig"
chmod +x "$work/ldconfig"
make -C "$top" --no-print-directory -s install APPARMOR=0 PREFIX="$prefix" BUILD="${PROCAGE%/procage}" \
	LDCONFIG="$work/ldconfig" >"$work/install.log" 2>&1; st=$?
is "$st" 0 "make install PREFIX=... succeeds"
[ $st -eq 0 ] || sed 's/^/# /' "$work/install.log"
ok $([ ! -e "$work/ldconfig.calls" ] && echo 0 || echo 1) "it runs no ldconfig for a prefix the dynamic linker does not search"
like "$(cat "$work/install.log")" "LD_LIBRARY_PATH=$prefix/lib" "and says how to run programs built against it"
installed="bin/procage include/procage.h lib/libprocage.a lib/libprocage.so lib/pkgconfig/procage.pc
	share/man/man1/procage.1 share/man/man3/libprocage.3 share/man/man5/procage-policy.5
	share/bash-completion/completions/procage share/zsh/vendor-completions/_procage
	share/fish/vendor_completions.d/procage.fish"
for f in $installed; do
	ok $([ -e "$prefix/$f" ] && echo 0 || echo 1) "installs $f"
done
out=$(MANPATH="$prefix/share/man" MANWIDTH=80 man procage-policy 2>&1 | head -5)
like "$out" "procage-policy - the procage policy file" "man finds the installed procage-policy(5)"
out=$(bash -c 'source "$1"; COMP_WORDS=(procage run --net ""); COMP_CWORD=3; _procage
	echo "${COMPREPLY[*]}"' sh "$prefix/share/bash-completion/completions/procage")
is "$out" "off on proxy loopback" "the installed bash completion completes --net"
out=$("$prefix/bin/procage" profiles 2>&1)
like "$out" "^profiles \\($prefix/share/procage/profiles;" "the installed procage finds the installed profiles"
like "$out" "^  npm +npm:" "and lists them"
out=$(cd "$work/ws" && HOME="$work/home" "$prefix/bin/procage" run --dry-run --json --profile npm -- true 2>&1)
like "$out" "registry.npmjs.org" "the installed procage reads an installed profile"

cat >"$work/ws/hello.c" <<'C'
#include <procage.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void)
{
	struct procage_error err;
	struct procage_policy *p;
	struct procage_cage *c;
	struct procage_run *r;
	char dir[4096], *argv[] = { "sh", "-c", "echo caged > out.txt", NULL };
	int status;
	if (!getcwd(dir, sizeof dir) || procage_policy_new_default(dir, &p, &err) ||
	    procage_cage_new(p, &c, &err) ||
	    procage_spawn(c, &(struct procage_spawn_opts){ .size = sizeof(struct procage_spawn_opts),
							   .argv = argv }, &r, &err) ||
	    procage_run_wait(r, &status, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	procage_run_free(r);
	procage_cage_free(c);
	procage_policy_free(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
C
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs procage); st=$?
is "$st" 0 "pkg-config knows procage"
cc ${TEST_CFLAGS:-} -o "$work/ws/hello" "$work/ws/hello.c" $flags -Wl,-rpath,"$prefix/lib" 2>"$work/cc.log"; st=$?
is "$st" 0 "a program builds against the installed header and library"
[ $st -eq 0 ] || sed 's/^/# /' "$work/cc.log"
(cd "$work/ws" && ./hello); st=$?
is "$st" 0 "it cages a command through the shared library"
is "$(cat "$work/ws/out.txt" 2>/dev/null)" "caged" "and the command ran"

make -C "$top" --no-print-directory -s install APPARMOR=0 PREFIX="$prefix" BUILD="${PROCAGE%/procage}" \
	LDCONFIG="$work/ldconfig" DESTDIR="$work/stage" >"$work/stage.log" 2>&1
ok $([ ! -e "$work/ldconfig.calls" ] && echo 0 || echo 1) "a DESTDIR install runs no ldconfig"
like "$(cat "$work/stage.log")" "run $work/ldconfig once $prefix/lib is in place" "and says to run it once installed"
rm -rf "$work/stage"
if [ "$(id -u)" = 0 ]; then
	make -C "$top" --no-print-directory -s install APPARMOR=0 PREFIX="$prefix" BUILD="${PROCAGE%/procage}" \
		LDCONFIG="$work/ldconfig" LDCONFIG_DIRS="/usr/lib $prefix/lib" >"$work/system.log" 2>&1
	is "$(cat "$work/ldconfig.calls" 2>/dev/null)" "ldconfig " \
		"root installing into a directory of the dynamic linker runs ldconfig"
else
	echo "ok $((tap_n += 1)) # SKIP ldconfig runs only as root"
fi

# The real thing, in a mount namespace of its own: a tmpfs over /usr/local
# and a copy of /etc take the install and the new ld.so.cache, so a program
# linked with pkg-config alone (no rpath) starts with LD_LIBRARY_PATH unset.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir "$work/etc" && cp -a /etc/. "$work/etc/"
	out=$(env -u LD_LIBRARY_PATH unshare -m --propagation private sh -c '
		mount -t tmpfs tmpfs /usr/local && mount --bind "$1/etc" /etc || exit 9
		make -C "$2" --no-print-directory -s install APPARMOR=0 PREFIX=/usr/local BUILD="$3" >"$1/real.log" 2>&1 || exit 8
		cd "$1/ws" && cc $4 -o hello2 hello.c $(pkg-config --cflags --libs procage) || exit 7
		rm -f out.txt && ./hello2 && cat out.txt' sh "$work" "$top" "${PROCAGE%/procage}" \
		"${TEST_CFLAGS:-}" 2>&1); st=$?
	is "$st" 0 "make install PREFIX=/usr/local as root runs ldconfig"
	[ $st -eq 0 ] || sed 's/^/# /' "$work/real.log"
	is "$out" "caged" "and a program built with pkg-config runs without LD_LIBRARY_PATH"
else
	echo "ok $((tap_n += 1)) # SKIP no mount namespace to install into /usr/local"
fi

make -C "$top" --no-print-directory -s uninstall APPARMOR=0 PREFIX="$prefix" BUILD="${PROCAGE%/procage}" \
	>"$work/uninstall.log" 2>&1; st=$?
is "$st" 0 "make uninstall PREFIX=... succeeds"
left=$(find "$prefix" -not -type d | sed "s|^$prefix/||" | tr '\n' ' ')
is "$left" "" "and removes every file install put there"
done_testing
