# Limits and times given to procage run: a limit of the whole run of 0 is
# refused rather than read as "no limit" (which lifted a policy file's
# limit); a resource limit the run could not set is refused before
# anything runs, by check as by run, and named by its name; --timeout
# names what is wrong with its value.
. "$(dirname "$0")/lib.sh"

cat >"$work/limited.json" <<JSON
{ "paths": { "read": ["/usr", "/etc", "/bin", "/lib"], "write": ["$work/ws"] },
  "limits": { "pids": 64 } }
JSON
for l in memory=0 pids=0; do
	err=$("$PROCAGE" run --policy "$work/limited.json" --limit "$l" -- touch "$work/ws/ran" 2>&1); st=$?
	is "$st" 125 "--limit $l is refused"
	like "$err" "--limit $l: a limit of the whole run must be above 0" "saying why"
done
ok $([ ! -e "$work/ws/ran" ] && echo 0 || echo 1) "and nothing ran"
printf '{ "limits": { "pids": 0 } }\n' >"$work/zero.json"
err=$("$PROCAGE" check "$work/zero.json" 2>&1); st=$?
is "$st" 1 "check refuses a policy file's pids limit of 0"
like "$err" 'zero.json:1:[0-9]+: "limits.pids" is a limit of the whole run: a whole number above 0' \
	"with its position"

# One above the hard limit procage runs with: no process of a T1 run may
# raise it, and on T2 only with CAP_SYS_RESOURCE.
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ]; then
	for i in 1 2 3 4 5; do echo "ok $((tap_n += 1)) # SKIP the nofile hard limit is unlimited"; done
else
	printf '{ "limits": { "nofile": %s } }\n' $((hard + 1)) >"$work/high.json"
	err=$("$PROCAGE" check "$work/high.json" 2>&1); st=$?
	if [ $st -eq 0 ]; then
		# Only a T2 caller allowed to raise limits gets here: the run must then set it.
		out=$("$PROCAGE" run --no-private-tmp --limit nofile=$((hard + 1)) -- sh -c 'ulimit -Hn'); st=$?
		is "$out" $((hard + 1)) "check accepts the raised limit only where a run sets it"
		for i in 1 2 3 4; do echo "ok $((tap_n += 1)) # SKIP this caller may raise its limits"; done
	else
		is "$st" 1 "check refuses a nofile hard limit above procage's own"
		like "$err" "resource limit nofile: the hard limit $((hard + 1)) is above" \
			"naming the limit by name"
		err=$("$PROCAGE" run --limit nofile=$((hard + 1)) -- touch "$work/ws/ran" 2>&1); st=$?
		is "$st" 125 "run refuses it too"
		ok $([ ! -e "$work/ws/ran" ] && echo 0 || echo 1) "before anything ran"
		out=$("$PROCAGE" run --limit nofile=$hard -- sh -c 'ulimit -Hn'); st=$?
		is "$out" "$hard" "control: a limit at procage's own is set"
	fi
fi

# procage serves a proxy-only run's connections from its own descriptors:
# it raises its soft limit to the hard one, while the command keeps the
# limit procage was started with. The command says it is running through a
# FIFO; procage's limit is read from outside while it waits on another.
hard=$(ulimit -Hn)
mkfifo "$work/ws/ready" "$work/ws/go"
(ulimit -Sn 128 && exec "$PROCAGE" run -- sh -c 'ulimit -Sn >ready; cat go >/dev/null') &
pid=$!
read -r inside <"$work/ws/ready"
outside=$(awk '/^Max open files/ {print $4}' "/proc/$pid/limits")
echo go >"$work/ws/go"
wait $pid; st=$?
is "$st" 0 "a run started with a soft descriptor limit of 128 ends well"
is "$inside" 128 "the command keeps the soft limit procage was started with"
is "$outside" "$hard" "procage itself serves the run with its soft limit raised to the hard one"

err=$("$PROCAGE" run --timeout 1e10 -- true 2>&1); st=$?
is "$st" 2 "--timeout 1e10 is a usage error"
like "$err" "--timeout 1e10: at most [0-9]+ seconds" "saying the most it takes"
err=$("$PROCAGE" run --timeout -1 -- true 2>&1); st=$?
like "$err" "--timeout -1: expected a number of seconds above 0" "a negative --timeout is named"
"$PROCAGE" run --timeout 1e3 -- true; st=$?
is "$st" 0 "control: --timeout 1e3 is taken"
# A low descriptor limit is set once only the passed descriptors are left,
# so the steps before it (the working directory's open) are not refused by
# the caller's descriptors still inherited: on both tiers.
out=$("$PROCAGE" run --limit nofile=64 -- sh -c 'ulimit -n' 2>&1); st=$?
is "$out" 64 "--limit nofile=64 is the command's limit on the host's tier (status $st)"
if "$(dirname "$PROCAGE")/tests/without_userns" true 2>/dev/null; then
	out=$("$(dirname "$PROCAGE")/tests/without_userns" "$PROCAGE" run --limit nofile=64 -- sh -c 'ulimit -n' 2>&1); st=$?
	is "$out" 64 "--limit nofile=64 is the command's limit on tier T2 (status $st)"
else
	echo "ok $((tap_n += 1)) # SKIP build/tests/without_userns is not built or cannot run here: tier T2 not checked"
fi
done_testing
