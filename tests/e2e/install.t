# make install: the library, header, pkg-config file and command land under
# PREFIX, and a C program built against them cages a command.
. "$(dirname "$0")/lib.sh"

prefix="$work/prefix"
make -C "$top" --no-print-directory -s install APPARMOR=0 PREFIX="$prefix" BUILD="${PROCAGE%/procage}" \
	>"$work/install.log" 2>&1; st=$?
is "$st" 0 "make install PREFIX=... succeeds"
[ $st -eq 0 ] || sed 's/^/# /' "$work/install.log"
for f in bin/procage include/procage.h lib/libprocage.a lib/libprocage.so lib/pkgconfig/procage.pc; do
	ok $([ -e "$prefix/$f" ] && echo 0 || echo 1) "installs $f"
done

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
done_testing
