-- The lab's database: the one definition of every table.
-- The lab applies this file when it opens a database whose user_version is
-- older than this one; user_version records the schema version. Every
-- statement is idempotent, so an older database gains the tables added
-- since (version 2: bisections, bisect_steps; version 3: dropped_lines,
-- run_owners, commits; version 4: runs.clock; version 5:
-- bisections.effect_alpha; version 6: bisect_specs, nightly_*; version 7:
-- nightly_notices; version 8: bisect_specs.config_fragments; version 9:
-- nightly_followups; version 10: bisect_specs.delta, events; version 11:
-- profiles, explanations, counted_samples without profiled runs; version 12:
-- explanation_runs; version 13: bisect_specs.seed_experiment; version 14:
-- bisections without args) and keeps its rows.
-- A column added to or dropped from an existing table cannot be written
-- idempotently here: the lab adds and drops those columns itself
-- (results/store.c).

PRAGMA user_version = 14;

-- A kernel image the lab has booted, identified by its content.
CREATE TABLE IF NOT EXISTS kernels (
	id		INTEGER PRIMARY KEY,
	path		TEXT NOT NULL,
	hash		TEXT NOT NULL,		-- git blob id of the image file
	arch		TEXT NOT NULL,		-- x86_64 | aarch64
	release		TEXT,			-- uname -r, once a boot reported it
	git_commit	TEXT,			-- when built from a repository
	created		REAL NOT NULL,
	UNIQUE (hash, path)
);

-- An experiment: two or more variants compared on some workloads.
CREATE TABLE IF NOT EXISTS experiments (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL DEFAULT 'ab',	-- ab | bisect
	command		TEXT,
	workloads	TEXT,
	status		TEXT NOT NULL DEFAULT 'RUNNING',	-- RUNNING | DONE | REFUSED | INTERRUPTED
	created		REAL NOT NULL,
	finished	REAL
);

CREATE TABLE IF NOT EXISTS variants (
	id		INTEGER PRIMARY KEY,
	experiment_id	INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
	name		TEXT NOT NULL,		-- A, B, ...
	kernel_id	INTEGER REFERENCES kernels(id),
	cmdline		TEXT,
	git_ref		TEXT,
	UNIQUE (experiment_id, name)
);

-- One boot (or one local execution) of a kernel running workloads.
CREATE TABLE IF NOT EXISTS runs (
	id		INTEGER PRIMARY KEY,
	kernel_id	INTEGER REFERENCES kernels(id),
	experiment_id	INTEGER REFERENCES experiments(id),
	variant_id	INTEGER REFERENCES variants(id),
	runner		TEXT NOT NULL,		-- qemu | local | libvirt | ssh
	workloads	TEXT NOT NULL,		-- comma-separated, in order
	params		TEXT NOT NULL DEFAULT '',	-- the guest's lab.* parameters
	cmdline		TEXT NOT NULL,
	mem_mib		INTEGER,
	cpus		INTEGER,
	accel		TEXT,
	clock		TEXT NOT NULL DEFAULT 'wall',	-- wall | icount shift=N (QEMU -icount)
	host		TEXT,
	host_cpu	TEXT,
	qemu_version	TEXT,
	started		REAL NOT NULL,
	ended		REAL,
	status		TEXT NOT NULL DEFAULT 'RUNNING',
		-- RUNNING | OK | FAILED | BOOT_FAILED | TIMEOUT | INFRA
	error		TEXT,
	console_log	TEXT,
	console_tail	TEXT,			-- last lines of the console, kept for failed runs
	wall_s		REAL,			-- runner start to end
	to_hello_s	REAL,			-- runner start to the guest's hello
	bad_lines	INTEGER NOT NULL DEFAULT 0	-- protocol lines that failed their check
);
CREATE INDEX IF NOT EXISTS runs_kernel ON runs(kernel_id);
CREATE INDEX IF NOT EXISTS runs_experiment ON runs(experiment_id);

-- What a workload said about its environment (kernel release, THP mode, ...).
CREATE TABLE IF NOT EXISTS run_meta (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	key		TEXT NOT NULL,
	value		TEXT NOT NULL,
	PRIMARY KEY (run_id, key)
);

-- Every measured value. flags: 1 = warm-up (kept, left out of verdicts).
CREATE TABLE IF NOT EXISTS samples (
	id		INTEGER PRIMARY KEY,
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	iteration	INTEGER NOT NULL,
	value		REAL NOT NULL,
	unit		TEXT NOT NULL,
	flags		INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS samples_run ON samples(run_id);
CREATE INDEX IF NOT EXISTS samples_metric ON samples(workload, metric);

-- What the kernel counted around each iteration (page faults, THP
-- allocations, context switches: metrics "ev.*", unit "events"), shaped as
-- samples and kept apart from them, so that no verdict, schedule,
-- bisection or nightly series ever reads one (results/events.h).
CREATE TABLE IF NOT EXISTS events (
	id		INTEGER PRIMARY KEY,
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	iteration	INTEGER NOT NULL,
	value		REAL NOT NULL,
	unit		TEXT NOT NULL,
	flags		INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_run ON events(run_id);

-- What the kernel's function profiler counted in a profiled boot (the
-- guest's lab.profile=1; lab explain): per workload and function, its
-- calls and the nanoseconds spent in it, callees and sleep included, with
-- the profiler's own cost. Such a boot's samples never reach a statistic.
CREATE TABLE IF NOT EXISTS profiles (
	id		INTEGER PRIMARY KEY,
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	workload	TEXT NOT NULL,
	function	TEXT NOT NULL,
	calls		INTEGER NOT NULL,
	ns		REAL NOT NULL,
	UNIQUE (run_id, workload, function)
);

-- An explanation: profiled boots of A and of B, on one workload, and the
-- metric whose change it explains; of an experiment (an A/B, or a
-- bisection's culprit against its parent), or of none. a_run_id and
-- b_run_id are each side's first boot; explanation_runs holds them all.
CREATE TABLE IF NOT EXISTS explanations (
	id		INTEGER PRIMARY KEY,
	experiment_id	INTEGER REFERENCES experiments(id) ON DELETE CASCADE,
	a_run_id	INTEGER NOT NULL REFERENCES runs(id),
	b_run_id	INTEGER NOT NULL REFERENCES runs(id),
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	created		REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS explanations_experiment ON explanations(experiment_id);

-- Every profiled boot of an explanation, side 0 A and 1 B: one a side in
-- virtual time, where a boot repeats to the nanosecond; several in wall
-- time, whose functions' changes then carry an interval. An explanation
-- without rows here (version 11) has its two runs above.
CREATE TABLE IF NOT EXISTS explanation_runs (
	explanation_id	INTEGER NOT NULL REFERENCES explanations(id) ON DELETE CASCADE,
	side		INTEGER NOT NULL CHECK (side IN (0, 1)),
	run_id		INTEGER NOT NULL REFERENCES runs(id),
	PRIMARY KEY (explanation_id, run_id)
);

-- The samples a statistic may use: those of runs that ended OK, warm-ups
-- (flags & 1) left out, and no profiled boot's (lab.profile=1: its times
-- are inflated). Verdicts and bisect steps read samples through it. It is
-- made again whenever the schema is applied, so an older database gets
-- this definition.
DROP VIEW IF EXISTS counted_samples;
CREATE VIEW counted_samples AS
	SELECT s.id, s.run_id, s.workload, s.metric, s.iteration, s.value, s.unit, s.flags
	FROM samples s JOIN runs r ON r.id = s.run_id
	WHERE r.status = 'OK' AND (s.flags & 1) = 0 AND
		' ' || r.params || ' ' NOT LIKE '% lab.profile=1 %';

-- One verdict per metric and sweep point of an experiment. The summaries
-- are of the units compared (samples, or per-boot medians).
CREATE TABLE IF NOT EXISTS verdicts (
	id		INTEGER PRIMARY KEY,
	experiment_id	INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	mem_mib		INTEGER NOT NULL,
	cpus		INTEGER NOT NULL,
	direction	TEXT NOT NULL,		-- lower | higher (is better)
	unit_compared	TEXT NOT NULL,		-- samples | boot-medians
	n_a		INTEGER NOT NULL,
	n_b		INTEGER NOT NULL,
	mean_a		REAL, mean_b	REAL,
	std_a		REAL, std_b	REAL,
	median_a	REAL, median_b	REAL,
	ratio		REAL,			-- Hodges-Lehmann B/A
	ci_low		REAL,
	ci_high		REAL,
	p		REAL,
	p_adjusted	REAL,			-- Benjamini-Hochberg over the experiment
	alpha		REAL NOT NULL,
	delta		REAL NOT NULL,
	mde		REAL,
	verdict		TEXT NOT NULL,
	UNIQUE (experiment_id, workload, metric, mem_mib, cpus)
);

-- A bisection is an experiment (kind 'bisect') whose variants are the good
-- and bad ends ('G', 'B') and each commit tested (named by its id).
CREATE TABLE IF NOT EXISTS bisections (
	experiment_id	INTEGER PRIMARY KEY REFERENCES experiments(id) ON DELETE CASCADE,
	good		TEXT NOT NULL,		-- commit ids
	bad		TEXT NOT NULL,
	workload	TEXT NOT NULL,
	metric		TEXT,			-- chosen once G and B are measured
	per_boot	INTEGER,		-- units: per-boot medians (1) or samples (0)
	effect		REAL,			-- R(G->B), Hodges-Lehmann
	effect_lo	REAL,
	effect_hi	REAL,
	effect_alpha	REAL,			-- its CI is at 1 - effect_alpha
	culprit		TEXT,
	outcome		TEXT			-- FOUND | CANDIDATES | NO_REGRESSION
);

CREATE TABLE IF NOT EXISTS bisect_steps (
	experiment_id	INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
	seq		INTEGER NOT NULL,
	git_commit	TEXT NOT NULL,
	mark		TEXT NOT NULL,		-- GOOD | BAD | SKIP
	n		INTEGER,		-- units of the commit
	ratio		REAL,			-- M/G with its 99 % CI
	ci_low		REAL,
	ci_high		REAL,
	PRIMARY KEY (experiment_id, seq)
);

-- Console lines a run's reader refused, and why: a forged or stray @lab
-- line, a sample of a workload that was not asked for, one after done, a
-- repeated iteration. They never reach a statistic; lab show lists them.
CREATE TABLE IF NOT EXISTS dropped_lines (
	run_id		INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq		INTEGER NOT NULL,
	reason		TEXT NOT NULL,
	line		TEXT NOT NULL,		-- as read, cut to a few hundred bytes
	PRIMARY KEY (run_id, seq)
);

-- The process that is running a boot, while its run is RUNNING: a run whose
-- owner is gone (the lab was killed) is closed as INFRA by the next lab
-- that opens the database.
CREATE TABLE IF NOT EXISTS run_owners (
	run_id		INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	host		TEXT NOT NULL,
	pid		INTEGER NOT NULL,
	pid_start	TEXT NOT NULL		-- the process's start time, against pid reuse
);

-- Commits the lab measured, as they read when measured: reports need no
-- repository.
CREATE TABLE IF NOT EXISTS commits (
	id		TEXT PRIMARY KEY,	-- full hex id
	subject		TEXT NOT NULL,
	author		TEXT NOT NULL,		-- Name <email>
	date		REAL NOT NULL		-- author time, seconds since the epoch
);

-- bisect: what a bisection was started with, as data, so that a resume
-- reads it back instead of parsing options again. Refs as given; boot
-- options as parsed; NULL where the default (the config's, or the lab's)
-- applies. A bisection without a row here predates it and is not resumed.
CREATE TABLE IF NOT EXISTS bisect_specs (
	experiment_id	INTEGER PRIMARY KEY REFERENCES bisections(experiment_id) ON DELETE CASCADE,
	good_ref	TEXT NOT NULL,
	bad_ref		TEXT NOT NULL,
	repo		TEXT,			-- NULL: core.repo
	arch		TEXT,			-- NULL: the host's
	metric		TEXT,			-- as asked; NULL: the largest regression
	workload_list	TEXT NOT NULL,		-- comma-separated, in order
	guest_params	TEXT,			-- K=V, space-separated (no K=V has a space)
	kernel_cmdline	TEXT,
	iters		INTEGER,
	mem_mib		INTEGER,
	cpus		INTEGER,
	numa		INTEGER,
	timeout_s	INTEGER,
	runner		TEXT,
	accel		TEXT,
	boot_clock	TEXT NOT NULL,		-- wall | icount | auto, settled when started
	guest		TEXT,
	target_name	TEXT,			-- --target
	target_class	TEXT,			-- --targets
	config_fragments TEXT,			-- --fragment: "BLOB-ID PATH" a line
	alpha		REAL,			-- NULL: 0.05
	delta		REAL,			-- --delta; NULL: 0.02
	max_boots	INTEGER,		-- NULL: from the number of commits
	seed_experiment	INTEGER			-- the A/B whose boots of the ends it starts from
);

-- Nightly (lab nightly): the nights, the commits each followed branch
-- brought, the boots measuring them, one point per commit and series, and
-- the changes found in a series with their confirming A/B and bisection.
CREATE TABLE IF NOT EXISTS nightly_nights (
	id		INTEGER PRIMARY KEY,
	nightly		TEXT NOT NULL,		-- the [nightly "NAME"] of lab.conf
	started		REAL NOT NULL,
	ended		REAL,
	head		TEXT,			-- the branch's commit as fetched
	status		TEXT NOT NULL DEFAULT 'RUNNING',
		-- RUNNING | OK | REGRESSION | INFRA | INTERRUPTED
	summary		TEXT
);

CREATE TABLE IF NOT EXISTS nightly_commits (
	nightly		TEXT NOT NULL,
	git_commit	TEXT NOT NULL,		-- full hex id
	seq		INTEGER NOT NULL,	-- the order of the series
	night_id	INTEGER NOT NULL REFERENCES nightly_nights(id),
	status		TEXT NOT NULL DEFAULT 'PENDING',
		-- PENDING | MEASURED | BUILD_FAILED | BOOT_FAILED
	kernel		TEXT,			-- the image measured
	PRIMARY KEY (nightly, git_commit)
);

CREATE TABLE IF NOT EXISTS nightly_runs (
	run_id		INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	nightly		TEXT NOT NULL,
	git_commit	TEXT NOT NULL,
	mem_mib		INTEGER NOT NULL,
	cmdline		TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS nightly_runs_commit ON nightly_runs(nightly, git_commit);

-- A series is (workload.metric, target, memory, command line, clock);
-- series is that as one text key, the other columns it in parts.
CREATE TABLE IF NOT EXISTS nightly_points (
	nightly		TEXT NOT NULL,
	series		TEXT NOT NULL,
	workload	TEXT NOT NULL,
	metric		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	target		TEXT NOT NULL,		-- the runner: qemu | local | libvirt
	mem_mib		INTEGER NOT NULL,
	cmdline		TEXT NOT NULL,
	clock		TEXT NOT NULL,
	git_commit	TEXT NOT NULL,
	seq		INTEGER NOT NULL,
	value		REAL NOT NULL,		-- median of the commit's per-boot medians
	boots		INTEGER NOT NULL,
	PRIMARY KEY (nightly, series, git_commit)
);

CREATE TABLE IF NOT EXISTS nightly_changes (
	id		INTEGER PRIMARY KEY,
	nightly		TEXT NOT NULL,
	series		TEXT NOT NULL,
	before_commit	TEXT NOT NULL,		-- the A of the confirming A/B
	after_commit	TEXT NOT NULL,		-- its B
	kind		TEXT NOT NULL,		-- CHANGEPOINT | SUSPECT
	ratio		REAL,			-- as the series saw it
	night_id	INTEGER NOT NULL REFERENCES nightly_nights(id),
	ab_experiment	INTEGER REFERENCES experiments(id),
	verdict		TEXT,			-- the A/B's; NULL until confirmed
	bisection	INTEGER REFERENCES experiments(id),
	culprit		TEXT,
	outcome		TEXT,			-- the bisection's: FOUND | UNCLEAR | ...
	notified	INTEGER NOT NULL DEFAULT 0,
	UNIQUE (nightly, series, after_commit)
);

-- Targets: the [target "NAME"] of lab.conf each run booted on, and its
-- class (targets of one class are interchangeable for measurement). A run
-- without a row here ran where the command line and [run] said.
CREATE TABLE IF NOT EXISTS run_targets (
	run_id		INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
	target		TEXT NOT NULL,
	class		TEXT NOT NULL
);

-- Nightly notifications (lab nightly): each channel's delivery of a
-- change, so that a channel that failed is tried again alone the next
-- night and one that delivered never sends the change twice.
CREATE TABLE IF NOT EXISTS nightly_notices (
	change_id	INTEGER NOT NULL REFERENCES nightly_changes(id) ON DELETE CASCADE,
	channel		TEXT NOT NULL,		-- mail | webhook
	sent		REAL NOT NULL,
	PRIMARY KEY (change_id, channel)
);

-- Nightly follow-ups (lab nightly): a regression told on a channel before
-- its bisection ended owes that channel a second notice, with the
-- bisection's outcome once it has one; sent is NULL until it is delivered.
CREATE TABLE IF NOT EXISTS nightly_followups (
	change_id	INTEGER NOT NULL REFERENCES nightly_changes(id) ON DELETE CASCADE,
	channel		TEXT NOT NULL,		-- mail | webhook
	sent		REAL,
	PRIMARY KEY (change_id, channel)
);
