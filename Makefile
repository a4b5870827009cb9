# lab: an A/B performance regression lab for the Linux kernel.
#   make            build lab/lab and the guest program(s)
#   make check      install what is missing, then run every test (TAP, prove)
#   make demo       install what is missing, then run the main job
#   make check-kernel   real kernel builds and bisection of the fixture history
#   make check-remote   the ssh runner: a fixture kernel kexec'd on an arm64 VM over ssh
#   make check-lava     the lava runner against a LAVA instance built on this machine
#   make seeds      run the four seed recipes (kernels/recipes/), print their tables
#   make bench      benchmarks (not timed tests)
#   make deps       install the Debian packages the lab needs
#   make install    PREFIX=/usr/local DESTDIR=: lab, its guests and data, completion
#   make fuzz       libFuzzer targets (clang, ASan, UBSan), FUZZ_TIME seconds each
#   SANITIZE=address,undefined   V=1

CC       ?= cc
PKGS     := libgit2 sqlite3 libcurl libvirt libcrypto
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wvla
# One folder per floor, lowest first: lib < results < runners, kernels < web <
# lab/config < lab/plans < lab/commands. A file includes headers of its own
# floor or lower ones (tests/t0010-floors.sh).
LAB_ROOMS := lab/config lab/plans lab/commands
CPPFLAGS += -D_GNU_SOURCE -Ilib -Iresults -Irunners -Ikernels -Iweb $(LAB_ROOMS:%=-I%) \
	-include lib/banned.h
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -MMD -MP
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=$(SANITIZE)
# leaks inside the libraries the lab uses, not the lab's (tests/lsan.supp)
LSAN_OPTIONS ?= suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
endif

ifeq ($(V),)
Q = @
say = @printf '  %-7s %s\n' $(1) $(2);
else
Q =
say =
endif

B := build
LIB_SRCS  := $(filter-out lab/commands/main.c,$(wildcard lib/*.c results/*.c runners/*.c \
	kernels/*.c web/*.c $(LAB_ROOMS:%=%/*.c)))
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/%.o) $(B)/gen/schema.o $(B)/gen/lava-templates.o
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
# programs the shell tests run, on the lab's library
HELPER_BINS := $(patsubst tests/helpers/%.c,$(B)/tests/helpers/%,$(wildcard tests/helpers/*.c))
BENCH_SRCS := $(wildcard tests/bench/bench-*.c)
BENCH_BINS := $(BENCH_SRCS:tests/bench/%.c=$(B)/bench/%)
# what the bench scripts write their tables with (lib/textfmt's numbers)
BENCH_TOOLS := $(B)/bench/benchfmt

# The guest program is static: it is /init of a VM, or a plain process.
GUEST_SRCS := $(filter-out runners/guest/rootinit.c,$(wildcard runners/guest/*.c)) \
	runners/protocol.c runners/userwork.c
GUEST_CFLAGS := -std=c11 $(WARN) -O2 -g -D_GNU_SOURCE -Irunners -Iresults -static
GUEST_X86 := $(B)/guest/x86_64/lab-guest
GUEST_ARM := $(B)/guest/aarch64/lab-guest
# /init of the initramfs a kernel kexec'd on a host boots with: it mounts the host's root
ROOTINIT_X86 := $(B)/guest/x86_64/lab-rootinit
ROOTINIT_ARM := $(B)/guest/aarch64/lab-rootinit
GUESTS := $(GUEST_X86) $(ROOTINIT_X86)
ifneq ($(shell command -v aarch64-linux-gnu-gcc 2>/dev/null),)
GUESTS += $(GUEST_ARM) $(ROOTINIT_ARM)
endif

# The manual pages, from docs/ by go-md2man (make deps installs it): a
# command's page in section 1, lab.conf's in 5, the others in 7.
MAN_SRCS := $(wildcard docs/*.md)
man_name = $(if $(filter lab,$(1)),lab.1,$(if $(filter lab-config,$(1)),lab-config.5,$(if $(filter lab-%,$(1)),$(1).1,lab-$(1).7)))
MAN_PAGES := $(foreach p,$(MAN_SRCS:docs/%.md=%),$(B)/man/$(call man_name,$(p)))
ifneq ($(shell command -v go-md2man 2>/dev/null),)
MANS := $(MAN_PAGES)
endif

all: lab/lab $(GUESTS) $(MANS)

man: $(MAN_PAGES)

define man_rule
$(B)/man/$(call man_name,$(1)): docs/$(1).md docs/man.sh docs/man-fit.awk $(B)/gen/version.h
	@mkdir -p $$(dir $$@)
	$$(call say,MAN,$$@)docs/man.sh $$< $$@ $$(LAB_VERSION)
endef
$(foreach p,$(MAN_SRCS:docs/%.md=%),$(eval $(call man_rule,$(p))))

lab/lab: $(B)/lab/commands/main.o $(B)/liblab.a
	$(call say,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/liblab.a: $(LIB_OBJS)
	$(call say,AR,$@)rm -f $@ && ar rcs $@ $^

# schema.sql is compiled in as one string, so the binary and the file never disagree.
$(B)/gen/schema.c: schema.sql
	@mkdir -p $(dir $@)
	$(call say,GEN,$@){ echo 'const char lab_schema_sql[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $<; echo ';'; } > $@

# So are the LAVA job templates the lab ships, each by its file's name.
LAVA_TEMPLATES := $(sort $(wildcard runners/lava-templates/*.yaml))
$(B)/gen/lava-templates.c: $(LAVA_TEMPLATES) Makefile
	@mkdir -p $(dir $@)
	$(call say,GEN,$@){ echo '#include <stddef.h>'; \
	  echo 'struct lava_shipped { const char *name, *text; }; /* as runners/lava-api.h */'; \
	  echo 'const struct lava_shipped lava_shipped_templates[] = {'; \
	  for f in $(LAVA_TEMPLATES); do echo "{ \"$$(basename $$f .yaml)\","; \
	    sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $$f; echo '},'; done; \
	  echo '{ NULL, NULL } };'; } > $@

# The version lab --version prints: git describe of this checkout, rewritten
# only when it changes, so that lab/commands/main.c is rebuilt only then.
LAB_VERSION := $(or $(shell git describe --always --dirty 2>/dev/null),unknown)
$(B)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define LAB_VERSION "$(LAB_VERSION)"' > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(B)/lab/commands/main.o: $(B)/gen/version.h
$(B)/lab/commands/main.o: CPPFLAGS += -I$(B)/gen

$(B)/gen/%.o: $(B)/gen/%.c
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(B)/tests/%: tests/unit/%.c $(B)/liblab.a
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) -Itests $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/liblab.a $(LDLIBS)

$(B)/tests/helpers/%: tests/helpers/%.c $(B)/liblab.a
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/liblab.a $(LDLIBS)

$(B)/bench/%: tests/bench/%.c $(B)/liblab.a
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) -Itests $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/liblab.a $(LDLIBS)

$(GUEST_X86): $(GUEST_SRCS) $(wildcard runners/guest/*.h) runners/protocol.h runners/userwork.h \
	results/sample.h
	@mkdir -p $(dir $@)
	$(call say,GUEST,$@)gcc $(GUEST_CFLAGS) -o $@ $(GUEST_SRCS)

$(GUEST_ARM): $(GUEST_SRCS) $(wildcard runners/guest/*.h) runners/protocol.h runners/userwork.h \
	results/sample.h
	@mkdir -p $(dir $@)
	$(call say,GUEST,$@)aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -o $@ $(GUEST_SRCS)

$(ROOTINIT_X86): runners/guest/rootinit.c
	@mkdir -p $(dir $@)
	$(call say,GUEST,$@)gcc $(GUEST_CFLAGS) -o $@ $<

$(ROOTINIT_ARM): runners/guest/rootinit.c
	@mkdir -p $(dir $@)
	$(call say,GUEST,$@)aarch64-linux-gnu-gcc $(GUEST_CFLAGS) -o $@ $<

# Debian 12 packages the lab and its tests need.
DEB_PKGS := build-essential pkg-config libgit2-dev libsqlite3-dev sqlite3 libcurl4-openssl-dev \
	libvirt-dev libvirt-daemon-system qemu-system-x86 qemu-system-arm qemu-utils \
	linux-image-cloud-amd64 linux-source-6.1 linux-source-6.12 cpio libxml2-utils ccache flex bison bc libelf-dev libssl-dev git curl \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross chromium python3 openssh-server \
	stress-ng busybox-static python3-aiosmtpd debootstrap go-md2man man-db qemu-efi-aarch64 lvm2 \
	lava-common
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# Two things come from Debian's bookworm-backports on Debian 12, a sources
# entry of its own: the 6.12 source make demo measures (linux-source-6.12,
# which no pin is needed for: only backports has it), and QEMU. Several vCPUs
# run in virtual time only under QEMU >= 8.1, which splits the icount budget
# between them (upstream 83ecdb18eb65), and Debian 12 ships 7.2: so QEMU 10
# comes from there, pinned so that nothing else does but what QEMU needs (its
# seabios). QEMU_BACKPORTS=no keeps the distribution's QEMU: several vCPUs
# then run in wall time (docs/clocks.md).
QEMU_BACKPORTS ?= yes
BPO_SOURCES := /etc/apt/sources.list.d/lab-backports.sources
BPO_PIN := /etc/apt/preferences.d/lab-qemu
QEMU_PKGS := qemu-system-x86 qemu-system-arm qemu-utils

deps:
	$(Q)missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q ' installed' || echo $$p; done); \
	if grep -qx 'VERSION_CODENAME=bookworm' /etc/os-release; then \
		test -e $(BPO_SOURCES) || \
		printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
			'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' | \
			$(SUDO) tee $(BPO_SOURCES) >/dev/null || exit 1; \
		if [ "$(QEMU_BACKPORTS)" != no ] && ! dpkg --compare-versions \
		   "$$(dpkg-query -W -f='$${Version}' qemu-system-x86 2>/dev/null)" ge 1:8.1; then \
			echo "QEMU from bookworm-backports (>= 8.1: several vCPUs in virtual time)"; \
			printf '%s\n' 'Package: *' 'Pin: release n=bookworm-backports' 'Pin-Priority: 100' '' \
				'Package: qemu-system qemu-system-* qemu-utils qemu-block-extra seabios' \
				'Pin: release n=bookworm-backports' 'Pin-Priority: 990' | \
				$(SUDO) tee $(BPO_PIN) >/dev/null || exit 1; \
			missing="$$missing $(QEMU_PKGS)"; \
		fi; \
	fi; \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# CHECK_TESTS: the shell tests to run (default all); the unit tests always run.
CHECK_TESTS ?= $(wildcard tests/t[0-9]*.sh)
# prove counts a skipped test as passed: the skips are listed after its
# summary, and so are the failed tests' last lines, where a log's tail shows them. CHECK_SKIP_ALLOWED="KVM ...": a skip for any other prerequisite
# fails (CI: make deps installs the rest).
check: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(HELPER_BINS)
	$(Q)rm -f $(B)/check-skips $(B)/check-failures; rc=0; \
	LAB_SKIP_LOG=$(abspath $(B))/check-skips LAB_FAIL_LOG=$(abspath $(B))/check-failures \
		prove $(PROVE_FLAGS) $(UNIT_BINS) $(CHECK_TESTS) || rc=$$?; \
	if [ -s $(B)/check-failures ]; then \
		echo "failed, with each test's last lines:"; sed 's/^/  /' $(B)/check-failures; \
	fi; \
	if [ -s $(B)/check-skips ]; then \
		echo "skipped: $$(wc -l <$(B)/check-skips) test(s), not run here:"; \
		sed 's/^/  /' $(B)/check-skips; \
	else echo "skipped: none"; fi; \
	if [ -n "$(CHECK_SKIP_ALLOWED)" ] && [ -s $(B)/check-skips ]; then \
		bad=$$(sed -n 's/.*(missing \(.*\))$$/\1/p' $(B)/check-skips | tr ', ' '\n\n' | \
			grep -vxF -e '' $(foreach p,$(CHECK_SKIP_ALLOWED),-e '$(p)') | sort -u | tr '\n' ' '); \
		[ -z "$$bad" ] || { echo "make check: a prerequisite make deps installs is missing: $$bad"; rc=1; }; \
	fi; exit $$rc

# The main job, on embedded defaults. First Debian's prebuilt kernel runs all
# three workloads in one boot. Then a real kernel history is made once from
# Debian's 6.12 source, the kernel that carries upstream bd225530a4c7 and its
# fix: 30 commits, one of them the demote path as it was after bd225530a4c7
# (513 RCU grace periods per 1 GiB demote) and a later one the batching fix
# of seed 001 re-applied. Its commits are built and A/B'd on demote: the
# regression, then the fix. HVO must be on for demote to show it; nokaslr
# keeps the kernel out of the one free 1 GiB range of a 4G guest.
# `make fixture` makes the older 6.1 history (the shape of the same
# regression), which the other seed recipes and check-kernel use.
FIXTURE := state/fixtures/linux
FIXTURE_612 := state/fixtures/linux-6.12
DEMOTE_AB = lab/lab ab --repo $(FIXTURE_612) --workload demote --mem 4G --boots 5 \
	--cmdline "hugetlb_free_vmemmap=on nokaslr"

# Its steps say what they do and how long they take on a quiet 2-core
# machine under emulation (about twice that under load).
demo_say = @printf '\n== %s\n' $(1)
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(call demo_say,"1/4 Debian's kernel: zeroing + demote + boot in one boot (1-4 min)")
	$(Q)kernel=$$(ls -1 /boot/vmlinuz-* | sort -V | tail -n 1); \
	lab/lab run --kernel "$$kernel" --workload zeroing,demote,boot --mem 4G --iters 10 \
		--cmdline "hugetlb_free_vmemmap=on nokaslr"
	$(call demo_say,"2/4 a kernel history: Debian's 6.12 source and 30 commits (about 2 min; once)")
	$(Q)$(MAKE) --no-print-directory fixture-6.12
	$(call demo_say,"3/4 A/B of demote on 6.12: the regression of bd225530a4c7 (a first build: 10-30 min)")
	$(Q)$(DEMOTE_AB) --a fixture-base --b fixture-regression || test $$? = 1
	$(call demo_say,"4/4 A/B of demote on 6.12: the batching fix of seed 001 (a few min)")
	$(Q)$(DEMOTE_AB) --a fixture-regression --b fixture-fix
	$(Q)lab/lab report --quiet >/dev/null
	@printf '\n== done. Next:\n%s\n%s\n%s\n' \
		"  open state/site/index.html        the report: experiments, plots, every run" \
		"  lab/lab list                      what was measured" \
		"  lab/lab show E1                   one A/B in full (README.md says more)"

fixture: deps
	$(Q)mkdir -p $(dir $(FIXTURE)) && kernels/fixtures/make-history.sh $(FIXTURE)

fixture-6.12: deps
	$(Q)mkdir -p $(dir $(FIXTURE_612)) && \
	kernels/fixtures/make-history.sh --linux 6.12 $(FIXTURE_612)

# The ssh runner on a real arm64 host: a Debian VM made once with debootstrap
# (state/remote-host/arm64), the fixture kernel cross-built and kexec'd there.
check-remote: deps
	@echo "check-remote: needs root and the Debian mirror (from a fresh clone about 2 h on 2 cores: the arm64 test host made once, 17-30 min; the arm64 server kernel cold, 35-40 min; the tests, 1 h)"
	$(Q)$(MAKE) --no-print-directory all fixture
	$(Q)FIXTURE=$(abspath $(FIXTURE)) prove $(PROVE_FLAGS) $(wildcard tests/remote/r[0-9]*.sh)

# The lava runner against a LAVA instance built here (tests/lava/start-lava.sh:
# Debian's lava-server and lava-dispatcher, PostgreSQL, a qemu device).
check-lava: deps
	@echo "check-lava: needs root and the Debian mirror (LAVA installed and started here, the fixture kernels built: 10 min when both are there, 25 min from a fresh clone on an idle machine, 2 h or more on a busy one)"
	$(Q)$(MAKE) --no-print-directory all fixture
	$(Q)FIXTURE=$(abspath $(FIXTURE)) prove $(PROVE_FLAGS) $(wildcard tests/lava/l[0-9]*.sh)

# Real kernel builds and boots of the fixture: longer than CI allows.
check-kernel: deps
	$(Q)$(MAKE) --no-print-directory all fixture
	$(Q)FIXTURE=$(abspath $(FIXTURE)) prove $(PROVE_FLAGS) $(wildcard tests/kernel/k[0-9]*.sh)

# The seed threads' experiments, real builds and boots: about two hours on 2
# cores under TCG. RECIPES=kernels/recipes/seed-001-demote.recipe for one.
RECIPES ?= $(sort $(wildcard kernels/recipes/*.recipe))
seeds: deps
	$(Q)$(MAKE) --no-print-directory all fixture fixture-6.12
	$(Q)for r in $(RECIPES); do lab/lab recipe $$r $(RECIPE_FLAGS) || exit 1; done

bench: all $(BENCH_BINS) $(BENCH_TOOLS)
	$(Q)for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
	$(Q)for b in $(wildcard tests/bench/*.sh); do echo "== $$b"; $$b || exit 1; done

# Fuzzing with libFuzzer under ASan (leaks included) and UBSan. Only the
# files a target needs are built, with clang, apart from the normal build.
# New inputs go to build/fuzz/corpus/<target>/; the seeds in
# tests/fuzz/corpus/<target>/ are read, never written; a crash is saved as
# build/fuzz/<target>-crash-<sha1>. FUZZ_TARGETS=mbox for one.
FUZZ_PKGS := clang-14 libclang-rt-14-dev
FUZZ_CC ?= clang-14
FUZZ_TIME ?= 60
FUZZ_TARGETS ?= protocol config mbox
FUZZ_CFLAGS := -std=c11 $(WARN) -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_SRCS_protocol := runners/protocol.c
FUZZ_SRCS_config := lab/config/config.c lab/config/config-reader.c lib/strbuf.c lib/xalloc.c \
	lib/log.c
# the ssh runner's settings, which lab.conf holds, come from the library
FUZZ_LIBS_config = $(B)/liblab.a $(LDLIBS)
FUZZ_SRCS_mbox := kernels/mbox.c lib/strbuf.c lib/xalloc.c lib/log.c

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(B)/liblab.a FORCE
	@mkdir -p $(dir $@)
	$(call say,FUZZCC,$@)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRCS_$*) \
		$(FUZZ_LIBS_$*) -lm

fuzz-deps:
	$(Q)$(MAKE) --no-print-directory deps DEB_PKGS="$(FUZZ_PKGS)"

fuzz: fuzz-deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz-%)
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus/$$t && \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(B)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(B)/fuzz/$$t- \
			$(B)/fuzz/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary in bin/, what it
# reads at run time (guests, kernel configs and probes, the report's style)
# and the recipes in share/lab/, bash completion, example systemd units.
PREFIX ?= /usr/local
bindir := $(PREFIX)/bin
datadir := $(PREFIX)/share/lab
install: all
	$(call say,INSTALL,$(DESTDIR)$(PREFIX))install -d $(DESTDIR)$(bindir) \
		$(DESTDIR)$(datadir)/kernels $(DESTDIR)$(datadir)/web $(DESTDIR)$(datadir)/systemd \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(Q)install -m 755 lab/lab $(DESTDIR)$(bindir)/lab
	$(Q)for g in $(GUESTS); do install -D -m 755 $$g $(DESTDIR)$(datadir)/$$g || exit 1; done
	$(Q)cp -R kernels/configs kernels/probes kernels/recipes $(DESTDIR)$(datadir)/kernels/
	$(Q)install -m 644 web/style.css $(DESTDIR)$(datadir)/web/
	$(Q)install -m 644 lab/lab-completion.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/lab
	$(Q)sed 's|@bindir@|$(bindir)|g' lab/systemd/lab-nightly.service.in \
		>$(DESTDIR)$(datadir)/systemd/lab-nightly.service
	$(Q)install -m 644 lab/systemd/lab-nightly.timer $(DESTDIR)$(datadir)/systemd/
	$(Q)for m in $(MANS); do s=$${m##*.}; \
		install -D -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s/$${m##*/} || exit 1; done

clean:
	rm -rf $(B) lab/lab

FORCE:
.PHONY: all man install deps check check-kernel check-remote check-lava demo fixture fixture-6.12 seeds bench clean fuzz fuzz-deps FORCE
.DELETE_ON_ERROR:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
