# procage: GNU Make, non-recursive. `make`, `make check`, `make install PREFIX=...`,
# `make uninstall PREFIX=...`. install puts the library, header, pkg-config file,
# command, man pages (MANDIR) and bash, zsh and fish completion (BASHCOMPDIR,
# ZSHCOMPDIR, FISHCOMPDIR) under PREFIX; uninstall removes exactly those.
# `make BUILD=build-asan SANITIZE=1 check-fast` builds and tests with ASan+UBSan.
# CPPFLAGS, CFLAGS and LDFLAGS from the environment (a distribution's flags)
# come after the project's own, so they win where they differ.

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
DESTDIR ?=
# The dynamic linker finds a library in the directories of its cache
# (/etc/ld.so.cache, which ldconfig makes from /etc/ld.so.conf): until the
# cache knows libprocage.so, a program linked with `pkg-config --libs
# procage` does not start. install runs $(LDCONFIG) when the library lands,
# as root and without DESTDIR, in one of LDCONFIG_DIRS; otherwise it says
# what to run.
LDCONFIG ?= ldconfig
LDCONFIG_DIRS ?= /lib /lib64 /usr/lib /usr/lib64 /usr/local/lib /usr/local/lib64 \
	$(wildcard /lib/*-linux-gnu /usr/lib/*-linux-gnu /usr/local/lib/*-linux-gnu)
BUILD ?= build
# One spelling of the build directory: an absolute one given on the command
# line (tests/e2e/install.t passes the directory of $PROCAGE) would write
# dependency files whose targets a later `make` never matches, and a changed
# header would leave objects stale.
override BUILD := $(patsubst $(CURDIR)/%,%,$(BUILD))
SANITIZE ?=

CC ?= cc
PKG_CONFIG ?= pkg-config
# libseccomp is needed to build, not to run: the seccomp programs are made
# at build time by $(SECCOMP_GEN) and compiled into the library.
DEPS_PKGS := libseccomp
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS) 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wformat=2 -Wundef -Wvla -Wno-unused-parameter
OPT := -O2 -g
# Hardened as distributions build: fortified calls, stack protector and
# clash protection, control-flow protection; full RELRO and immediate
# binding; the command is position-independent. The reaper's phase 2 must
# not read the thread pointer whatever the flags: scripts/check-reaper-raw.
HARDEN := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -fstack-protector-strong \
	-fstack-clash-protection -fcf-protection
ifeq ($(SANITIZE),1)
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HARDEN := -fstack-protector-strong -fstack-clash-protection -fcf-protection
endif
CFLAGS_ALL := -std=gnu11 $(OPT) $(WARN) $(HARDEN) -fPIC -fvisibility=hidden -D_GNU_SOURCE \
	-Iinclude -iquote src/lib -iquote src $(DEPS_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(filter -fsanitize%,$(OPT)) -Wl,-z,relro,-z,now $(LDFLAGS)

SOVERSION := 0
# One version: the header's PROCAGE_VERSION, which the command prints; the
# library's file name and the .pc file take it from there.
VERSION := $(shell sed -n 's/^\#define PROCAGE_VERSION "\(.*\)"$$/\1/p' include/procage.h)
ifeq ($(VERSION),)
$(error include/procage.h defines no PROCAGE_VERSION "x.y.z")
endif

# The library's stage folders (src/lib/FOLDERS) and src/common, the helpers
# the command shares: both reach the command through the static library.
LIB_SRCS := $(sort $(wildcard src/lib/*/*.c src/common/*.c))
SECCOMP_PROGRAMS := $(BUILD)/gen/seccomp_programs
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(SECCOMP_PROGRAMS).o
# The seccomp rules and their libseccomp builder: linked into the generator
# and into the seccomp unit test, never into the library.
SECCOMP_BUILD_OBJS := $(BUILD)/src/gen/seccomp_build.o $(BUILD)/src/gen/seccomp_handwritten.o \
	$(BUILD)/src/gen/seccomp_rules.o \
	$(BUILD)/src/lib/base/error.o
SECCOMP_GEN := $(BUILD)/gen/seccomp_gen
CLI_SRCS := $(sort $(wildcard src/cli/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TESTLIB_SRCS := $(sort $(wildcard tests/lib/*.c))
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(BUILD)/%.o)
SUITE_BINS := $(BUILD)/tests/escape_linux $(BUILD)/tests/probe $(BUILD)/tests/without_userns \
	$(BUILD)/tests/kernel_facts
BENCH_BINS := $(BUILD)/bench/spawn_bench $(BUILD)/bench/seccomp_install $(BUILD)/bench/hardlinks_bench \
	$(BUILD)/bench/broker_bench $(BUILD)/bench/notify_bench $(BUILD)/bench/floor_launcher

STATIC_LIB := $(BUILD)/libprocage.a
SHARED_LIB := $(BUILD)/libprocage.so.$(VERSION)
CLI := $(BUILD)/procage

.PHONY: all setup demo fuzz fuzz-smoke deps check check-includes check-threat-model tests-built check-fast check-escape check-asan bench install uninstall clean format
all: $(STATIC_LIB) $(SHARED_LIB) $(CLI) $(BUILD)/reaper-raw.checked

# The reaper's phase 2 reads no thread pointer and calls no library
# function, whatever the compiler flags (src/lib/run/reaper_raw.h).
REAPER_RAW_OBJS := $(BUILD)/src/lib/run/reaper.o $(BUILD)/src/lib/run/reaper_kill.o \
	$(BUILD)/src/lib/run/tree_remove.o
$(BUILD)/reaper-raw.checked: scripts/check-reaper-raw $(REAPER_RAW_OBJS)
	scripts/check-reaper-raw $(REAPER_RAW_OBJS)
	@touch $@

deps:
	@scripts/deps

# The first command of the README: dependencies, build, and a demonstration.
setup: deps
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory demo

demo: all
	@PROCAGE=$(abspath $(CLI)) scripts/demo

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -DPROCAGE_BUILDING -MMD -MP -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJS)
	$(CC) -shared -Wl,-soname,libprocage.so.$(SOVERSION) $(LDFLAGS_ALL) -o $@ $^
	ln -sf libprocage.so.$(VERSION) $(BUILD)/libprocage.so.$(SOVERSION)
	ln -sf libprocage.so.$(SOVERSION) $(BUILD)/libprocage.so

# The command links the library statically: one less object to load at start.
$(CLI): $(CLI_OBJS) $(STATIC_LIB)
	$(CC) -pie $(LDFLAGS_ALL) -o $@ $(CLI_OBJS) $(STATIC_LIB)

# The seccomp programs, made at build time. The output depends on the
# generator, which depends on the rules and the builder, so changing either
# makes it again; the unit test also compares it with a live build.
$(SECCOMP_GEN): $(BUILD)/src/gen/seccomp_gen.o $(SECCOMP_BUILD_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(DEPS_LIBS)

$(SECCOMP_PROGRAMS).c: $(SECCOMP_GEN)
	$(SECCOMP_GEN) $@

$(SECCOMP_PROGRAMS).o: $(SECCOMP_PROGRAMS).c
	$(CC) $(CFLAGS_ALL) -DPROCAGE_BUILDING -MMD -MP -c $< -o $@

# Tests link the static library, so they reach internal (hidden) symbols too.
# Each unit test's headers (its fixture, tests/lib, the library's) are
# tracked in $@.d.
TEST_DEPFLAGS = -MMD -MP -MF $@.d -MT $@
$(BUILD)/tests/%: tests/unit/%.c $(TESTLIB_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/lib $(TEST_DEPFLAGS) $(LDFLAGS_ALL) -o $@ $< $(TESTLIB_OBJS) \
		$(STATIC_LIB)

# The seccomp test reads the rules and builds the programs live to compare;
# its parts are tests/unit/seccomp_*.c.
$(BUILD)/tests/test_seccomp: tests/unit/test_seccomp.c $(wildcard tests/unit/seccomp_*.[ch]) \
		$(TESTLIB_OBJS) $(SECCOMP_BUILD_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/lib -iquote src/gen $(TEST_DEPFLAGS) $(LDFLAGS_ALL) -o $@ $< \
		$(sort $(wildcard tests/unit/seccomp_*.c)) $(TESTLIB_OBJS) \
		$(SECCOMP_BUILD_OBJS) $(STATIC_LIB) $(DEPS_LIBS)

$(BUILD)/tests/lib/%.o: tests/lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/lib -MMD -MP -c $< -o $@

# main and the tier/user loop in escape_linux.c, the canaries in tests/escape/.
# Programs of several sources depend on every header they may read.
PROGRAM_HEADERS := $(wildcard include/*.h src/lib/*/*.h src/common/*.h)
$(BUILD)/tests/escape_linux: tests/escape_linux.c $(wildcard tests/escape/*.[ch] tests/lib/*.h) \
		$(PROGRAM_HEADERS) \
		$(TESTLIB_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/lib -Itests/escape $(LDFLAGS_ALL) -o $@ tests/escape_linux.c \
		$(sort $(wildcard tests/escape/*.c)) $(TESTLIB_OBJS) $(STATIC_LIB)

# The kernel facts: main and the ids in kernel_facts.c, the observations in
# tests/facts/. KF-L15 installs the library's own seccomp filter.
$(BUILD)/tests/kernel_facts: tests/kernel_facts.c $(wildcard tests/facts/*.[ch] tests/lib/*.h) \
		$(PROGRAM_HEADERS) \
		$(TESTLIB_OBJS) $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/lib -Itests/facts $(LDFLAGS_ALL) -o $@ tests/kernel_facts.c \
		$(sort $(wildcard tests/facts/*.c)) $(TESTLIB_OBJS) $(STATIC_LIB)

# The probe runs inside cages; it is kept free of sanitizers so that the
# escapes it attempts are the only thing measured.
PROBE_SRCS := tests/probe.c $(sort $(wildcard tests/probe/*.c))
$(BUILD)/tests/probe: $(PROBE_SRCS) tests/probe/probe.h $(PROGRAM_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -Iinclude -iquote src/lib -iquote src -o $@ $(PROBE_SRCS)

$(BUILD)/tests/without_userns: tests/without_userns.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -Iinclude -iquote src/lib -iquote src -MMD -MP -MF $@.d \
		-o $@ $< $(DEPS_CFLAGS) $(DEPS_LIBS)

# bench/inside: micro-benchmarks of one mechanism of the library's insides.
$(BUILD)/bench/%: bench/inside/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(STATIC_LIB)

$(BUILD)/bench/%: bench/%.c $(STATIC_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(STATIC_LIB)

# First THREAT_MODEL.md against the code; then the whole suite in one TAP harness
# run: unit, escape canaries and kernel facts on both tiers as root and as an
# unprivileged user, end-to-end; and the unit and end-to-end tests again
# built with ASan+UBSan.
check: all $(UNIT_BINS) $(SUITE_BINS)
	scripts/check-includes
	scripts/check-threat-model
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=1 tests-built
	BUILD=$(BUILD) ASAN_BUILD=build-asan scripts/run-tests all

# The library's folder edges (src/lib/FOLDERS): no file includes a header
# of a folder it may not use; the command and the bench use the public API.
check-includes:
	scripts/check-includes

# THREAT_MODEL.md against the code: every test and kernel fact it names
# exists, every mitigated class has a canary, every canary is in the catalog.
check-threat-model:
	scripts/check-threat-model

tests-built: all $(UNIT_BINS) $(SUITE_BINS)

# Unit and end-to-end tests only (what the sanitizer pass runs).
check-fast: all $(UNIT_BINS) $(SUITE_BINS)
	BUILD=$(BUILD) scripts/run-tests fast

check-escape: all $(SUITE_BINS)
	BUILD=$(BUILD) scripts/run-tests escape

bench: all $(BENCH_BINS) $(BUILD)/tests/without_userns
	BUILD=$(BUILD) bench/run

# libFuzzer targets (clang): make fuzz FUZZ_SECONDS=60
FUZZ_SECONDS ?= 60
FUZZ_LIB_SRCS := src/common/json.c src/lib/policy/policy_json.c src/lib/policy/policy_json_reader.c \
	src/lib/policy/policy_json_keys.c src/lib/policy/policy_json_limits.c src/lib/policy/policy.c \
	src/lib/base/error.c src/lib/base/string_list.c src/lib/base/canonical.c src/lib/base/dir_entries.c \
	src/lib/base/dir_listings.c src/lib/base/path_set.c \
	src/lib/policy/classes.c \
	src/lib/discover/repositories.c \
	src/lib/discover/repository_config.c src/lib/base/git_config.c \
	src/lib/proxy/allowlist.c src/lib/proxy/dest.c
FUZZ_TARGETS := policy_json allowlist git_config agent_msg
FUZZ_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -DPROCAGE_BUILDING \
	-Iinclude -iquote src/lib -iquote src
# Built again only when a source or a header changed, as the other programs.
$(BUILD)/fuzz/fuzz_policy_json: tests/fuzz/fuzz_policy_json.c $(FUZZ_LIB_SRCS)
$(BUILD)/fuzz/fuzz_allowlist: tests/fuzz/fuzz_allowlist.c src/lib/proxy/dest.c \
	src/lib/proxy/allowlist.c src/lib/base/error.c
$(BUILD)/fuzz/fuzz_git_config: tests/fuzz/fuzz_git_config.c src/lib/base/git_config.c
$(BUILD)/fuzz/fuzz_agent_msg: tests/fuzz/fuzz_agent_msg.c src/lib/proxy/agent_msg.c \
	src/lib/proxy/known_hosts.c src/lib/proxy/hmac_sha1.c
$(FUZZ_BINS): $(wildcard include/*.h src/lib/*/*.h src/common/*.h)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(filter %.c,$^) -o $@

# The targets side by side, each for FUZZ_SECONDS of wall time (a fuzzer
# uses one processor): each one's output is printed when all have ended.
fuzz: $(FUZZ_BINS)
	@pids=; for t in $(FUZZ_TARGETS); do \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) >$(BUILD)/fuzz/$$t.log 2>&1 & \
		pids="$$pids $$!"; \
	done; rc=0; for p in $$pids; do wait $$p || rc=1; done; \
	for t in $(FUZZ_TARGETS); do echo "== fuzz_$$t"; cat $(BUILD)/fuzz/$$t.log; done; exit $$rc

# A bounded run of every fuzz target, part of make check (clang needed).
fuzz-smoke:
	@mkdir -p $(BUILD)
	@if command -v clang >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10 >$(BUILD)/fuzz.log 2>&1; rc=$$?; \
		grep -E '^Done|ERROR|SUMMARY' $(BUILD)/fuzz.log; exit $$rc; \
	else \
		echo "fuzz-smoke: SKIPPED LOUDLY: clang is missing (make deps installs it); the fuzz targets did not run"; \
	fi

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libprocage.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libprocage.so.$(SOVERSION)
	ln -sf libprocage.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libprocage.so
	install -m 644 include/procage.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
		procage.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/procage.pc
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 644 man/procage.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/libprocage.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 man/procage-policy.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 completion/procage.bash $(DESTDIR)$(BASHCOMPDIR)/procage
	install -m 644 completion/_procage $(DESTDIR)$(ZSHCOMPDIR)/_procage
	install -m 644 completion/procage.fish $(DESTDIR)$(FISHCOMPDIR)/procage.fish
	install -d $(DESTDIR)$(DATADIR)/procage/profiles
	install -m 644 profiles/*.profile $(DESTDIR)$(DATADIR)/procage/profiles/
	scripts/apparmor-profile install $(BINDIR) $(DESTDIR)
	@if [ -n "$(DESTDIR)" ]; then \
		echo "install: staged under $(DESTDIR): run $(LDCONFIG) once $(LIBDIR) is in place"; \
	elif ! printf ' %s ' $(LDCONFIG_DIRS) | grep -qF ' $(patsubst %/,%,$(LIBDIR)) '; then \
		echo "install: $(LIBDIR) is not a directory of the dynamic linker: run programs built against it" \
			"with LD_LIBRARY_PATH=$(LIBDIR), link them with -Wl,-rpath,$(LIBDIR)," \
			"or add $(LIBDIR) to a file of /etc/ld.so.conf.d/ and run $(LDCONFIG)"; \
	elif [ "$$(id -u)" != 0 ]; then \
		echo "install: run '$(LDCONFIG)' as root so that programs find libprocage.so.$(SOVERSION)"; \
	else \
		$(LDCONFIG); \
	fi

# What install put there, and nothing else.
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libprocage.a $(DESTDIR)$(LIBDIR)/libprocage.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libprocage.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libprocage.so \
		$(DESTDIR)$(INCLUDEDIR)/procage.h $(DESTDIR)$(PKGCONFIGDIR)/procage.pc \
		$(DESTDIR)$(BINDIR)/procage \
		$(DESTDIR)$(MANDIR)/man1/procage.1 $(DESTDIR)$(MANDIR)/man3/libprocage.3 \
		$(DESTDIR)$(MANDIR)/man5/procage-policy.5 $(DESTDIR)$(BASHCOMPDIR)/procage \
		$(DESTDIR)$(ZSHCOMPDIR)/_procage $(DESTDIR)$(FISHCOMPDIR)/procage.fish
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/procage/profiles/,$(notdir $(wildcard profiles/*.profile)))
	-rmdir $(DESTDIR)$(DATADIR)/procage/profiles $(DESTDIR)$(DATADIR)/procage 2>/dev/null
	scripts/apparmor-profile uninstall $(DESTDIR)

format:
	clang-format -i include/*.h src/lib/*/*.[ch] src/common/*.[ch] src/gen/*.[ch] src/cli/*.[ch] tests/*.c tests/*/*.[ch] bench/*.c bench/inside/*.c

clean:
	rm -rf build build-asan build-distro

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TESTLIB_OBJS:.o=.d) \
	$(BUILD)/src/gen/seccomp_gen.d $(SECCOMP_BUILD_OBJS:.o=.d) \
	$(addsuffix .d,$(UNIT_BINS) $(BUILD)/tests/without_userns)
