# Shared by the end-to-end tests: TAP output, a temp dir per test file,
# and the paths of the lab, the guest and a bootable kernel.
#
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success 'what it proves' '
#       commands...
#   '
#   test_done
#
# Each body runs in a subshell with `set -e`; its output is shown as TAP
# comments when it fails. Set LAB_TEST_KEEP=1 to keep the temp dir.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB=${LAB:-$TOP/lab/lab}
GUEST=${GUEST:-$TOP/build/guest/x86_64/lab-guest}
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/lab-test.XXXXXX")
if [ -z "${LAB_TEST_KEEP:-}" ]; then
	trap 'rm -rf "$TRASH"' EXIT
else
	echo "# keeping $TRASH"
fi
cd "$TRASH" || exit 1
export LAB_CONFIG=

test_count=0
test_failed=0

test_expect_success() {
	test_count=$((test_count + 1))
	if (set -e; eval "$2") >"$TRASH/.out" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/.out" | tail -n 40
	fi
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
	exit $?
}

# The newest prebuilt Debian kernel (make deps installs linux-image-cloud-amd64).
debian_kernel() {
	ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1
}

# sql DB QUERY: one sqlite3 answer.
sql() {
	sqlite3 -batch -noheader "$1" "$2"
}

# The one line a failing command printed on stderr must name $2.
expect_one_line_naming() {
	test "$(wc -l <"$1")" -eq 1 || { echo "expected one line:"; cat "$1"; return 1; }
	grep -q -- "$2" "$1" || { echo "expected '$2' in:"; cat "$1"; return 1; }
}
