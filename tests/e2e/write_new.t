# --write-new PATH: a write grant whose missing directory procage makes
# (mode 0700, the caller's), only under an existing parent and never at,
# inside or above a location of a hard-deny class.
. "$(dirname "$0")/lib.sh"
for_every_user

home="$work/home"
run() { HOME="$home" "$PROCAGE" run "$@"; }

[ ! -e "$home/.npm" ]; ok $? "control: ~/.npm is missing before the run"
err=$(run --write "$home/.npm" -- true 2>&1); st=$?
is "$st" 125 "--write of a missing directory still fails"
like "$err" "$home/.npm" "naming the path"

err=$(run --write-new "$home/.npm" -- sh -c "echo cached >'$home/.npm/f'" 2>&1); st=$?
is "$st" 0 "--write-new ~/.npm: the run succeeds"
is "$(cat "$home/.npm/f" 2>/dev/null)" "cached" "the caged command wrote into the directory procage made"
is "$(stat -c '%a %u' "$home/.npm")" "700 $(id -u)" "made with mode 0700, owned by the caller"
like "$err" "made \\(mode 0700\\) and granted" "and procage says it made it"
err=$(run --write-new "$home/.npm" -- true 2>&1); st=$?
is "$st:$err" "0:" "an existing directory is simply granted, silently"

# Each refusal names the path and leaves nothing made.
mkdir -p "$home/.config" "$work/ws/repo"
ln -s .ssh "$home/keys"
mkdir "$home/.ssh"
printf 'x' >"$home/plainfile"
mkdir -p "$work/elsewhere"
ln -s "$work/elsewhere" "$home/linked"
for c in "$home/.ssh/new:the secrets class:inside the hidden ~/.ssh" \
	"$home/keys/new:the secrets class:through a link into ~/.ssh" \
	"$home/.config/autostart:persistence:at a persistence location that does not exist yet" \
	"$home/.gnupg:secrets:at a secrets location that does not exist yet" \
	"$home/missing/cache:parent .* must exist:under a missing parent" \
	"$work/ws/repo/.git:plain name:a .git directory" \
	"$home/plainfile:not a directory:over a file" \
	"$home/linked:symbolic link:over a link planted to another directory"; do
	path=${c%%:*}
	rest=${c#*:}
	want=${rest%%:*}
	what=${rest#*:}
	err=$(run --write-new "$path" -- true 2>&1); st=$?
	is "$st" 125 "--write-new $what is refused"
	like "$err" "$want" "naming why ($want)"
done
[ ! -e "$home/.ssh/new" ] && [ ! -e "$home/.config/autostart" ] && [ ! -e "$home/.gnupg" ] &&
	[ ! -e "$home/missing" ] && [ ! -e "$work/ws/repo/.git" ]
ok $? "no refused directory was made"

out=$(run --dry-run --write-new "$home/.cargo-cache" -- true 2>&1); st=$?
is "$st" 0 "--dry-run --write-new: the cage would be made"
like "$out" "a run would make these \\(mode 0700\\).*
  $home/\\.cargo-cache" "it says what a run would make"
[ ! -e "$home/.cargo-cache" ]; ok $? "and makes nothing"

# An unprivileged caller: the directory is its own.
mkdir -p "$work/u/home" "$work/u/ws" "$work/u/tmp"
chown -R 65534:65534 "$work/u"
chmod 755 "$work"
out=$(cd "$work/u/ws" && setpriv --reuid=65534 --regid=65534 --clear-groups \
	env HOME="$work/u/home" TMPDIR="$work/u/tmp" "$PROCAGE" run --write-new "$work/u/home/.cache-x" -- \
	sh -c "echo ok >'$work/u/home/.cache-x/f'" 2>&1); st=$?
is "$st" 0 "uid 65534: --write-new succeeds"
is "$(stat -c '%a %u' "$work/u/home/.cache-x" 2>/dev/null)" "700 65534" "uid 65534: the directory is the caller's, mode 0700"
done_testing
