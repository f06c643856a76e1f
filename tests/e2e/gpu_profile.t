# --profile gpu on stand-in devices: character devices with the numbers of
# /dev/null, made by the test in a directory of its own that
# PROCAGE_DEVICE_ROOT points the profile at (the machine's /dev is never
# touched and no real GPU is needed). On both tiers: the matched devices
# open for read and write and take device ioctls (ENOTTY from the null
# driver, not EACCES from Landlock); the DRI card node, a link named like a
# device and a device the profile does not name stay refused; the sysfs
# stand-ins read but cannot be written; without the profile nothing opens.
. "$(dirname "$0")/lib.sh"

t2="$(dirname "$PROCAGE")/tests/without_userns"
tiers=(T1)
if "$t2" true 2>/dev/null; then
	tiers+=(T2)
else
	echo "# skip: build/tests/without_userns cannot run here: tier T2 is not tried"
fi

root="$work/gpuroot"
mkdir -p "$root/dev/dri" "$root/other" "$root/sys/class/drm/renderD128" "$root/proc/driver/nvidia"
for node in dev/nvidiactl dev/nvidia0 dev/nvidia-uvm dev/kfd dev/dri/renderD128 dev/dri/card0 other/unnamed; do
	mknod -m 0666 "$root/$node" c 1 3 || { echo "Bail out! mknod $root/$node failed"; exit 1; }
done
ln -s "$root/other/unnamed" "$root/dev/nvidia1"
echo 226:128 >"$root/sys/class/drm/renderD128/dev"
echo "NVRM version: stand-in" >"$root/proc/driver/nvidia/version"
home="$work/home"

# probe PATH MODE: "opened" and the ioctl's errno name, or the open's errno name.
probe='
import errno, fcntl, os, sys, termios
path, mode = sys.argv[1], sys.argv[2]
try:
    fd = os.open(path, os.O_RDWR if mode == "rw" else os.O_RDONLY)
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(0)
try:
    fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
    print("opened ioctl-ok")
except OSError as e:
    print("opened ioctl-" + errno.errorcode[e.errno])
'
try() { # try TIER PROFILE-FLAG PATH MODE
	local tier=$1 flag=$2
	shift 2
	PROCAGE_DEVICE_ROOT="$root" cage "$tier" root $flag -- python3 -c "$probe" "$@" 2>/dev/null
}

for tier in "${tiers[@]}"; do
	is "$(try "$tier" "" "$root/dev/nvidia0" rw)" "EACCES" "$tier: control: without the profile a stand-in GPU device does not open"
	is "$(try "$tier" "--read $root/dev/nvidia0" "$root/dev/nvidia0" ro)" "opened ioctl-EACCES" \
		"$tier: control: a read grant of a device opens it but gives no device ioctl"
	for node in dev/nvidiactl dev/nvidia0 dev/nvidia-uvm dev/kfd dev/dri/renderD128; do
		is "$(try "$tier" "--profile gpu" "$root/$node" rw)" "opened ioctl-ENOTTY" \
			"$tier: --profile gpu: $node opens for read and write and takes device ioctls"
	done
	is "$(try "$tier" "--profile gpu" "$root/dev/dri/card0" rw)" "EACCES" "$tier: --profile gpu: the DRI card node stays refused"
	is "$(try "$tier" "--profile gpu" "$root/dev/nvidia1" rw)" "EACCES" "$tier: --profile gpu: a link named like a device is not followed to grant its target"
	is "$(try "$tier" "--profile gpu" "$root/other/unnamed" rw)" "EACCES" "$tier: --profile gpu: a device the profile does not name stays refused"
	out=$(PROCAGE_DEVICE_ROOT="$root" cage "$tier" root --profile gpu -- cat "$root/sys/class/drm/renderD128/dev" "$root/proc/driver/nvidia/version" 2>/dev/null)
	is "$out" "226:128
NVRM version: stand-in" "$tier: --profile gpu: the sysfs and driver entries read"
	PROCAGE_DEVICE_ROOT="$root" cage "$tier" root --profile gpu -- sh -c "echo x >'$root/sys/class/drm/renderD128/dev'" 2>/dev/null
	is "$(cat "$root/sys/class/drm/renderD128/dev")" "226:128" "$tier: --profile gpu: ... but cannot write them"
	out=$(PROCAGE_DEVICE_ROOT="$work/empty" cage "$tier" root --profile gpu -- echo ran 2>&1); st=$?
	is "$st:$out" "0:ran" "$tier: --profile gpu on a machine without GPU devices runs and prints nothing of procage's"
done

err=$(PROCAGE_DEVICE_ROOT=relative "$PROCAGE" run --profile gpu -- true 2>&1); st=$?
like "$st:$err" "^2:.*--profile gpu:.*expected an absolute pattern" "a relative PROCAGE_DEVICE_ROOT is a usage error"
err=$(PROCAGE_DEVICE_ROOT="$work/gpu*" "$PROCAGE" run --profile gpu -- true 2>&1); st=$?
like "$st:$err" "^2:.*--profile gpu:.*PROCAGE_DEVICE_ROOT an absolute directory" "a PROCAGE_DEVICE_ROOT that is a pattern is a usage error"
done_testing
