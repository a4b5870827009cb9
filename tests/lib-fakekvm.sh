# A /dev/kvm that opens, for the tests of what the lab does when KVM fails
# on a host that has none (sourced after tests/lib.sh). fake_kvm runs a
# command in a mount namespace of its own whose /dev is the real one with
# a regular file kvm added (an overlay): it opens read-write, as the
# lab's probe asks, and a fake QEMU given as qemu.x86_64.binary plays what
# KVM does. Nothing outside the namespace sees it. On a host with a real
# /dev/kvm the command runs as it is.
#   fake_kvm CMD [ARG...]
#   FAKEKVM   prerequisite: an x86_64 host where that works (root, unshare)

fake_kvm() {
	if test -e /dev/kvm; then
		"$@"
		return
	fi
	unshare --mount --propagation private sh -c '
		d=$(mktemp -d "$1/.fakekvm.XXXXXX") && shift &&
		mount -t tmpfs tmpfs "$d" &&
		mkdir "$d/upper" "$d/work" "$d/shm" &&
		mount --bind /dev/shm "$d/shm" &&
		mount -t overlay overlay -o "lowerdir=/dev,upperdir=$d/upper,workdir=$d/work" /dev &&
		mount --bind "$d/shm" /dev/shm &&
		: >/dev/kvm && touch -d "@${FAKEKVM_MTIME:-1700000000}" /dev/kvm || exit 125
		exec "$@"' fake_kvm "$TRASH" "$@"
}

test_lazy_prereq FAKEKVM '
	test "$(uname -m)" = x86_64 &&
	fake_kvm sh -c "test -r /dev/kvm && test -w /dev/kvm"
'
