#!/bin/bash
# The command stored with an experiment (experiments.command, what lab show,
# lab list and the report print) is the command as it was typed, for each
# command that stores one: a shell given it back sees the same words, in the
# same order, whatever order the options were parsed in.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

# typed_as DB ID WORD...: experiment ID's stored command is lab WORD...,
# word for word when a shell reads it, and runs nothing else.
typed_as() {
	db=$1 id=$2 && shift 2 &&
	sql "$db" "SELECT command FROM experiments WHERE id = $id" >line &&
	test "$(wc -l <line)" = 1 &&
	sh -c "lab() { printf \"[%s]\\n\" \"\$@\"; }; $(cat line)" >words &&
	printf "[%s]\n" "$@" >want &&
	diff -u want words
}

test_expect_success 'setup: a project with a base and a slower commit, a recipe of the two' '
	scaled_project repo "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s\n" &&
	cat >two.recipe <<-\EOF
	[recipe]
		title = two variants
		ref = base
		workload = zeroing
		metric = zeroing.t
	[variant "base"]
		ref = base
	[variant "slow"]
		ref = slow
	EOF
'

test_expect_success 'lab ab: the stored command is the one typed' '
	set -- ab --iters 3 --db ab.db --a base --repo repo --b slow --workload zeroing \
		--cmdline "x=1 y='\''2'\''" --boots 2 &&
	# what is stored matters here, not the verdict two boots a side reach
	rc=0 && "$LAB" "$@" >out 2>err || rc=$? && test "$rc" -le 1 &&
	typed_as ab.db 1 "$@"
'

test_expect_success 'lab bisect: the stored command is the one typed, not the one parsed' '
	set -- bisect --iters 5 --db bisect.db --good base --repo repo --bad slow --workload zeroing \
		--cmdline "a  b" &&
	{ "$LAB" "$@" >out 2>err || :; } &&
	test "$(sql bisect.db "SELECT count(*) FROM bisections")" = 1 &&
	typed_as bisect.db "$(sql bisect.db "SELECT experiment_id FROM bisections")" "$@"
'

test_expect_success 'lab recipe: each A/B stores the recipe command as typed' '
	set -- recipe --iters 3 two.recipe --db recipe.db --repo repo --boots 2 &&
	{ "$LAB" "$@" >out 2>err || :; } &&
	test "$(sql recipe.db "SELECT count(*) FROM experiments")" = 1 &&
	typed_as recipe.db 1 "$@"
'

test_done
