# Shared by the end-to-end tests, in the manner of git's t/test-lib.sh:
# TAP output, a temp dir per test file, prerequisites, and the paths of
# the lab, the guest and a bootable kernel.
#
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success [PREREQ,...] 'what it proves' '
#       commands...
#   '
#   test_done
#
# Each body runs in a subshell, its commands chained with &&; its output
# is shown as TAP comments when it fails. Set LAB_TEST_KEEP=1 to keep the
# temp dir.
#
# A test whose prerequisite is missing is not run: it is reported
# "ok N # skip TITLE (missing PREREQ)". Prerequisites known here:
#   KERNEL         Debian's prebuilt kernel is in /boot (debian_kernel)
#   QEMU           qemu-system-x86_64 runs, and KERNEL: a boot is possible
#   TCG            QEMU offers TCG: a boot needs no KVM (--accel tcg)
#   KVM            /dev/kvm is usable on an x86_64 host
#   CHROMIUM       a headless browser at $CHROMIUM
#   LINUX_TARBALL  Debian's linux-source-6.1 tarball at $LINUX_TARBALL
#   AARCH64_CC     the aarch64-linux-gnu cross compiler
#   QEMU_8_1       TCG, and qemu-system-x86_64 runs several vCPUs in
#                  virtual time (qemu_splits_icount)
# A test file adds its own with test_set_prereq or test_lazy_prereq.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB=${LAB:-$TOP/lab/lab}
GUEST=${GUEST:-$TOP/build/guest/x86_64/lab-guest}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
LINUX_TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
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
test_fixed=0
test_broken=0

# The newest prebuilt Debian kernel (make deps installs linux-image-cloud-amd64).
debian_kernel() {
	ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1
}

# test_set_prereq NAME: NAME holds for the rest of the file.
test_set_prereq() {
	eval "prereq_state_$1=yes"
}

# test_lazy_prereq NAME SCRIPT: NAME holds when SCRIPT succeeds, tried
# once, at the first test that asks, in a directory of its own.
test_lazy_prereq() {
	eval "prereq_script_$1=\$2"
}

# test_have_prereq A[,B,!C...]: every one holds (!C: C does not). The
# ones that do not are left in $missing_prereq.
test_have_prereq() {
	local p name want state script IFS=,

	missing_prereq=
	for p in $1; do
		name=${p#!}
		want=yes
		[ "$name" = "$p" ] || want=no
		eval "state=\${prereq_state_$name:-}"
		if [ -z "$state" ]; then
			eval "script=\${prereq_script_$name:-}"
			state=no
			if [ -n "$script" ] &&
			   (IFS=$' \t\n'; mkdir -p "$TRASH/.prereq-$name" && cd "$TRASH/.prereq-$name" &&
			    eval "$script") >/dev/null 2>&1; then
				state=yes
			fi
			rm -rf "$TRASH/.prereq-$name"
			eval "prereq_state_$name=$state"
		fi
		[ "$state" = "$want" ] || missing_prereq=${missing_prereq:+$missing_prereq,}$p
	done
	[ -z "$missing_prereq" ]
}

test_lazy_prereq KERNEL 'test -r "$(debian_kernel)"'
test_lazy_prereq QEMU '
	test_have_prereq KERNEL && qemu-system-x86_64 -version
'
test_lazy_prereq TCG '
	test_have_prereq QEMU &&
	qemu-system-x86_64 -accel help | grep -qx tcg
'
test_lazy_prereq KVM '
	test "$(uname -m)" = x86_64 && test -r /dev/kvm && test -w /dev/kvm
'
# qemu_splits_icount BINARY: that QEMU is 8.1 or later, which shares the
# icount budget out between vCPUs (upstream 83ecdb18eb65): several vCPUs
# run in virtual time.
qemu_splits_icount() {
	set -- $("$1" --version 2>/dev/null |
		sed -n "1s/^QEMU emulator version \([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p")
	test $# = 2 && { test "$1" -gt 8 || { test "$1" = 8 && test "$2" -ge 1; }; }
}
test_lazy_prereq QEMU_8_1 'test_have_prereq TCG && qemu_splits_icount qemu-system-x86_64'
test_lazy_prereq CHROMIUM 'test -x "$CHROMIUM"'
test_lazy_prereq LINUX_TARBALL 'test -r "$LINUX_TARBALL"'
test_lazy_prereq AARCH64_CC 'aarch64-linux-gnu-gcc --version'

# test_when_finished CMD: inside a test body, run CMD after the body,
# whether it passed or failed, in the directory the body was in when it
# asked; the last registered runs first. A cleanup that fails fails the test.
test_when_finished() {
	[ -n "${test_cleanup_dir_:-}" ] ||
		{ echo "test_when_finished outside a test: $*" >&2; return 1; }
	set -- "$*" "$test_cleanup_dir_"/*
	[ -e "$2" ] || set -- "$1"
	{ printf 'cd %q || exit 1\n' "$PWD"; printf '%s\n' "$1"; } \
		>"$test_cleanup_dir_/$(printf %04d $#)"
}

# Runs one body and its cleanups, in a subshell of their own; their output
# goes to $TRASH/.out, and fd 4 to the same place for the helpers' words.
test_run_() {
	local rc f

	test_cleanup_dir_=$TRASH/.cleanup
	rm -rf "$test_cleanup_dir_" && mkdir "$test_cleanup_dir_" || return 1
	rc=0
	{
		(exec 4>&2; eval "$1") || rc=$?
		for f in $(ls -r "$test_cleanup_dir_"); do
			(exec 4>&2; eval "$(cat "$test_cleanup_dir_/$f")") ||
				{ echo "cleanup failed: $(tail -n +2 "$test_cleanup_dir_/$f")"; rc=1; }
		done
	} >"$TRASH/.out" 2>&1
	rm -rf "$test_cleanup_dir_"
	test_cleanup_dir_=
	return $rc
}

# test_skip_ TITLE [PREREQ]: 0 and the skip said when PREREQ is missing.
test_skip_() {
	[ $# -gt 1 ] || return 1
	test_have_prereq "$2" && return 1
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1 (missing $missing_prereq)"
	# TAP counts a skip as a pass: make check lists them after prove's summary
	[ -z "${LAB_SKIP_LOG:-}" ] ||
		echo "${0##*/} $test_count: $1 (missing $missing_prereq)" >>"$LAB_SKIP_LOG"
}

# test_expect_success [PREREQ] TITLE BODY
test_expect_success() {
	if [ $# = 3 ]; then
		test_skip_ "$2" "$1" && return 0
		shift
	fi
	test_count=$((test_count + 1))
	if test_run_ "$2"; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		# on stderr too: prove shows it without -v, so a CI log says why
		sed 's/^/#   /' "$TRASH/.out" | tail -n 40 >"$TRASH/.why"
		cat "$TRASH/.why"
		cat "$TRASH/.why" >&2
		# make check repeats them after prove's summary, where a CI log's tail shows them
		[ -z "${LAB_FAIL_LOG:-}" ] ||
			{ echo "${0##*/} $test_count: $1"; cat "$TRASH/.why"; } >>"$LAB_FAIL_LOG"
	fi
}

# test_expect_failure [PREREQ] TITLE BODY: a known breakage, its title
# saying why. TAP's TODO: prove counts it, and says when it passes.
test_expect_failure() {
	if [ $# = 3 ]; then
		test_skip_ "$2" "$1" && return 0
		shift
	fi
	test_count=$((test_count + 1))
	if test_run_ "$2"; then
		test_fixed=$((test_fixed + 1))
		echo "ok $test_count - $1 # TODO known breakage vanished"
	else
		test_broken=$((test_broken + 1))
		echo "not ok $test_count - $1 # TODO known breakage"
	fi
}

# test_must_fail CMD...: CMD fails in the ordinary way, with an exit code
# from 1 to 125. Success fails the test, and so do a death by a signal and
# an exit of 126 or more (not found, not executable, a shell's signal
# report): a crash is never the failure a test expects.
test_must_fail() {
	local rc=0

	"$@" || rc=$?
	if [ $rc = 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&4
		return 1
	elif [ $rc -gt 128 ] && [ $rc -le 192 ]; then
		echo "test_must_fail: died of signal $((rc - 128)): $*" >&4
		return 1
	elif [ $rc -ge 126 ]; then
		echo "test_must_fail: exit $rc, not a failure of the command: $*" >&4
		return 1
	fi
	return 0
}

# test_expect_code CODE CMD...: CMD exits with exactly CODE.
test_expect_code() {
	local want=$1 rc=0

	shift
	"$@" || rc=$?
	[ $rc = "$want" ] && return 0
	echo "test_expect_code: exit $rc, want $want: $*" >&4
	return 1
}

# test_wait_until SECONDS CMD...: CMD (a shell command, evaluated) every
# 0.1 s until it succeeds; after SECONDS it fails the test, saying so.
test_wait_until() {
	local limit=$1 tries=$(($1 * 10))

	shift
	until eval "$*"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] ||
			{ echo "test_wait_until: still false after $limit s: $*" >&4; return 1; }
		sleep 0.1
	done
}

# with_sigint CMD...: CMD with SIGINT as a terminal gives it (a shell's
# background job starts with SIGINT ignored)
with_sigint() {
	exec python3 -c "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])" "$@"
}

# said_command FILE: the command said on FILE's lines after its first, as
# one line: each line's indent gone, a line ending in a backslash joined to the
# next, and a word split in quoted pieces ('abc'\<newline>'def') whole again
said_command() {
	sed -e 1d -e "s/^ *//" "$1" | sed -e :a -e "/ \\\\\$/{N;s/ \\\\\n/ /;ba" -e "}" \
		-e "/'\\\\\$/{N;s/'\\\\\\n\\\$\\?'//;ba" -e "}"
}

# unwrapped FILE: FILE's lines with each wrapped line (one begun "    ")
# joined back to the line before it by a space
unwrapped() {
	sed -e :a -e '$!N' -e 's/\n    / /' -e ta -e 'P;D' "$1"
}

# within_columns FILE...: fails, naming each line of the FILEs wider than
# the 100 columns a person reads in (characters of UTF-8, not bytes)
within_columns() {
	LC_ALL=C.UTF-8 awk 'length > 100 { print FILENAME ":" FNR ": " length " columns: " $0; bad = 1 }
		END { exit bad }' "$@"
}

test_done() {
	[ $test_fixed = 0 ] || echo "# $test_fixed known breakage(s) vanished; mark them test_expect_success"
	[ $test_broken = 0 ] || echo "# still have $test_broken known breakage(s)"
	if [ $test_count = 0 ] && [ -n "${skip_all:-}" ]; then
		echo "1..0 # SKIP $skip_all"
		exit 0
	fi
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
	exit $?
}

# The IMAGE of fake_project that runs the stand-in guest, $FAKE, at SCALE.
FAKE_IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s\n'

# fake_project DIR IMAGE [BUILD]: a git project made in DIR whose ./build.sh
# runs the shell lines BUILD, then writes out/image as printf IMAGE SCALE
# [EXTRA] does: SCALE read from its file scale, EXTRA what BUILD left in
# $extra, if anything (IMAGE: a printf format, put in single quotes in
# build.sh). Its one commit, base (scale 1.00), is tagged base.
fake_project() {
	mkdir "$1" && git -C "$1" init -q -b main &&
	git -C "$1" config user.name "A U Thor" && git -C "$1" config user.email author@example.com &&
	{
		printf "#!/bin/sh\nextra=\n" &&
		{ [ -z "${3:-}" ] || printf "%s\n" "$3"; } &&
		printf "mkdir -p out &&\nprintf '%s' \"\$(cat scale)\" \${extra:+\"\$extra\"} >out/image &&\n" "$2" &&
		printf "chmod +x out/image\n"
	} >"$1/build.sh" &&
	chmod +x "$1/build.sh" && echo 1.00 >"$1/scale" &&
	commit "$1" base && git -C "$1" tag base
}

# commit DIR SUBJECT: all of DIR's work tree committed as SUBJECT.
commit() {
	git -C "$1" add -A && git -C "$1" commit -q -m "$2"
}

# fake_history DIR N [CMD [ARG...]]: N commits on the project in DIR,
# commit I writing "change I" to its notes.txt, its subject "change I".
# Before each, CMD ARG... runs with $i set to I: it may change the
# project's files, set subject to another and tag to a name for the
# commit. Its failure fails the history.
fake_history() {
	local dir=$1 n=$2 i subject tag

	shift 2
	for i in $(seq 1 "$n"); do
		echo "change $i" >"$dir/notes.txt" && subject="change $i" && tag= &&
		{ [ $# = 0 ] || "$@"; } &&
		commit "$dir" "$subject" &&
		{ [ -z "$tag" ] || git -C "$dir" tag "$tag"; } || return 1
	done
}

# scale_from DIR AT SCALE: a step of fake_history, the scale SCALE from
# commit AT on, that commit tagged culprit.
scale_from() {
	if [ "$i" = "$2" ]; then echo "$3" >"$1/scale" && tag=culprit; fi
}

# scaled_project DIR IMAGE: fake_project DIR IMAGE, then a commit slow
# (scale 1.50), tagged. ./lab.conf builds it and runs its image on the
# local runner. scaled_base makes base alone.
scaled_project() {
	scaled_base "$@" &&
	echo 1.50 >"$1/scale" && commit "$1" slow && git -C "$1" tag slow
}

scaled_base() {
	fake_project "$1" "$2" &&
	printf "[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n" >lab.conf
}

# local_conf REPO: the lab.conf of the project at REPO whose ./build.sh
# makes out/image, a program the local runner boots.
local_conf() {
	printf "[core]\n\trepo = %s\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n" "$1" &&
	printf "[run]\n\trunner = local\n"
}

# scaled_history DIR IMAGE N AT SCALE: scaled_base DIR IMAGE, then N commits
# of fake_history, the scale SCALE from change AT on (that commit tagged
# culprit); lab.conf's core.repo is DIR.
scaled_history() {
	scaled_base "$1" "$2" &&
	fake_history "$1" "$3" scale_from "$1" "$4" "$5" &&
	printf "[core]\n\trepo = %s\n" "$(realpath "$1")" >>lab.conf
}

# user_recipe: in the current directory, a project repo (base, and slow at
# 1.5 times, built by ./lab.conf into a wrapper of $GUEST_BIN that sets
# LAB_SCALE), a program bench/work.sh (a cost in us, or with --ops a rate in
# ops/s, as slow as LAB_SCALE says) and user.recipe: the program as an
# exec: workload and as a [workload "rate"] section, a variant a commit.
user_recipe() {
	scaled_project repo "#!/bin/sh\nLAB_SCALE=%s exec \"\$GUEST_BIN\" \"\$@\"\n" &&
	mkdir bench &&
	cat >bench/work.sh <<-\EOS &&
	#!/bin/sh
	# a cost, or with --ops a rate, as slow as LAB_SCALE says, with a little noise
	awk -v s="${LAB_SCALE:-1}" -v ops="$1" -v seed="$$" "BEGIN { srand(seed); x = 1 + rand() / 100;
		if (ops == \"--ops\") printf \"ops %.3f ops/s\\n\", 1000 / s * x;
		else printf \"work %.3f us\\n\", 100 * s * x }"
	EOS
	chmod +x bench/work.sh &&
	cat >user.recipe <<-\EOF
	[recipe]
		title = a user program, as a cost and as a rate
		ref = base
		workload = exec:bench/work.sh
		workload = rate
		metric = work.work
		metric = rate.ops
	[workload "rate"]
		program = bench/work.sh
		arg = --ops
		higher = ops
	[variant "base"]
		ref = base
	[variant "slow"]
		ref = slow
	EOF
}

# sql DB QUERY: one sqlite3 answer.
sql() {
	sqlite3 -batch -noheader "$1" "$2"
}

# The one line a failing command printed on stderr (wrapped lines joined back) must name $2.
expect_one_line_naming() {
	local joined

	joined=$(unwrapped "$1")
	test -s "$1" && test "$(printf "%s\n" "$joined" | wc -l)" -eq 1 ||
		{ echo "expected one line:"; cat "$1"; return 1; }
	printf "%s\n" "$joined" | grep -q -- "$2" || { echo "expected '$2' in:"; cat "$1"; return 1; }
}
