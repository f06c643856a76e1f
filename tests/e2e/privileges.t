# A caged command holds no privilege: no capability in any set, securebits
# locked, no_new_privs set; the same check outside the cage shows what a
# root caller would otherwise pass on.
. "$(dirname "$0")/lib.sh"

cat >"$work/ws/privs.py" <<'PY'
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
header = ctypes.create_string_buffer(struct.pack("Ii", 0x20080522, 0))
data = ctypes.create_string_buffer(24)
assert libc.capget(header, data) == 0
eff0, perm0, inh0, eff1, perm1, inh1 = struct.unpack("6I", data.raw)
bounding = sum(1 for cap in range(64) if libc.prctl(23, cap, 0, 0, 0) == 1)
ambient = sum(1 for cap in range(64) if libc.prctl(47, 1, cap, 0, 0) == 1)
print("effective=%d permitted=%d inheritable=%d bounding=%d ambient=%d nnp=%d securebits=%#x" % (
    bool(eff0 | eff1), bool(perm0 | perm1), bool(inh0 | inh1), bounding, ambient,
    libc.prctl(39, 0, 0, 0, 0), libc.prctl(27, 0, 0, 0, 0)))
PY
out=$("$PROCAGE" run -- /usr/bin/python3 privs.py); st=$?
is "$st" 0 "the privilege probe runs in the cage"
like "$out" "effective=0 permitted=0 inheritable=0 bounding=0 ambient=0 nnp=1" \
	"no capability in any set, and no_new_privs is set ($out)"
control=$(/usr/bin/python3 "$work/ws/privs.py")
if [ "$(id -u)" -eq 0 ]; then
	like "$control" "effective=1 permitted=1" "control: outside the cage, root holds capabilities"
	like "$out" "securebits=0x[0-9a-f]*[0-9a-f]" "securebits are set for a root caller"
	sb=$(printf '%s' "$out" | sed 's/.*securebits=//')
	ok $(( (sb & 0x3) == 0x3 ? 0 : 1 )) "SECBIT_NOROOT and its lock are set ($sb)"
else
	echo "ok $((tap_n += 1)) # SKIP the root control needs a root caller (uid $(id -u))"
	echo "ok $((tap_n += 1)) # SKIP securebits are only set for a caller holding CAP_SETPCAP"
	echo "ok $((tap_n += 1)) # SKIP as above"
fi
done_testing
