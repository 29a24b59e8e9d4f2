# vneuron: top-level build. `make` builds vneuron.ko and every userspace part.
# See README.md for the targets; every target that needs packages expects `make setup`.

KVER_DEB := $(shell cat build/kver 2>/dev/null || ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1 | sed 's|/usr/src/linux-headers-||')
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(if $(KVER_DEB),/usr/src/linux-headers-$(KVER_DEB)))
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# Both cores by default; the kernel build shares the jobserver.
MAKEFLAGS += -j$(shell nproc)
CC ?= cc
# V=1 shows the full commands.
ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2);
endif
CLANG ?= clang
B := build
CSTD := -std=gnu11
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes
INC := -Iuapi -Icore -Ilibneurondev -Ilibvnprog
# The libraries report dkms.conf's version (nd_version()), as the module does.
VNDEF := -DVNEURON_VERSION='"$(VERSION)"'
CFLAGS_COMMON := $(CSTD) $(WARN) -g -D_GNU_SOURCE $(VNDEF) $(INC) -MMD -MP
CFLAGS_REL := $(CFLAGS_COMMON) -O2 -march=x86-64-v2
CFLAGS_SAN := $(CFLAGS_COMMON) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	      -fno-sanitize-recover=all
LIBS := $(shell pkg-config --libs liburing libnl-genl-3.0 libcrypto 2>/dev/null) -lpthread -lm
NLINC := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)

CORE_SRCS := $(wildcard core/*.c)
LIB_SRCS := $(wildcard libneurondev/*.c)
# libvnprog/: the program toolchain (builder, assembler, .vnef, .npy, host backend).
VNPROG_SRCS := $(wildcard libvnprog/*.c)
# profiler/: main.c, options.c and one builtin-NAME.c per command make vneuron-profile, a
# command line over libvnprofile (profiler/vnprofile.h); the rest is the profiler
# library: libvnprof.a for the tests and the static tools, libvnprofile.so.0 installed.
PROF_CMD_SRCS := profiler/main.c profiler/options.c $(wildcard profiler/builtin-*.c)
PROF_SRCS := $(filter-out $(PROF_CMD_SRCS) profiler/mpi/%,$(wildcard profiler/*.c profiler/*/*.c))
HOST_TESTS := $(patsubst tests/host/%.c,$(B)/san/tests/%,$(wildcard tests/host/test_*.c))
GUEST_TESTS := $(patsubst tests/guest/%.c,$(B)/rel/guest/%,$(wildcard tests/guest/*_test.c))
# Helpers the guest tests run (tests/guest/NAME.c other than *_test.c): not user tools.
GUEST_HELPERS := $(patsubst tests/guest/%.c,$(B)/rel/guest/%,$(filter-out %_test.c,$(wildcard tests/guest/*.c)))
FUZZERS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
BENCHES := $(patsubst tools/bench/%.c,$(B)/rel/bench/%,$(wildcard tools/bench/bench_*.c))
GUEST_BENCHES := $(patsubst tools/bench/%.c,$(B)/rel/bench-guest/%,$(wildcard tools/bench/guest_*.c))
TOOLS := $(patsubst tools/bin/%.c,$(B)/bin/%,$(wildcard tools/bin/*.c))
BROWSER_TESTS := $(patsubst tests/browser/%.c,$(B)/rel/browser/%,$(wildcard tests/browser/*_test.c))
PROFILER := $(if $(wildcard profiler/main.c),$(B)/bin/vneuron-profile)
# libvnmpi/ (host communicators across MPI processes) and what uses it are built with
# Open MPI's mpicc (make setup installs it) and only into MPI programs: the other
# libraries and programs never link MPI. Without mpicc they are left out.
MPICC ?= mpicc
HAVE_MPI := $(shell command -v $(MPICC) 2>/dev/null)
VNMPI_SRCS := $(wildcard libvnmpi/*.c)
MPI_TESTS := $(patsubst tests/host/mpi/%.c,$(B)/san/mpi/%,$(wildcard tests/host/mpi/test_*.c))
MPI_BENCHES := $(patsubst tools/bench/%.c,$(B)/rel/bench-mpi/%,$(wildcard tools/bench/mpi_*.c))
# vneuron-profile-mpi: capture's MPI side, which vneuron-profile execs under mpirun; not a
# user tool: in build/libexec/vneuron/, where vneuron-profile looks (../libexec/vneuron/).
PROFILER_MPI := $(B)/libexec/vneuron/vneuron-profile-mpi
MPI_ALL := $(if $(HAVE_MPI),$(B)/rel/libvnmpi.a $(B)/san/libvnmpi.a $(MPI_TESTS) $(MPI_BENCHES) \
	   $(if $(PROFILER),$(PROFILER_MPI)))
# examples/NAME.c -> build/bin/example-NAME, each linked with what examples share:
# common.c (command line, running, checks) and mlp.c (the MLP of mlp-train and mlp-dp).
EXAMPLE_SHARED := examples/common.c examples/mlp.c
EXAMPLES := $(patsubst examples/%.c,$(B)/bin/example-%,$(filter-out $(EXAMPLE_SHARED),$(wildcard examples/*.c)))

.PHONY: all module user setup check host-test guest-test lint dkms-test fuzz bench demo \
	vm-run vm-shell clean help
all: module user

help:
	@sed -n 's/^## //p' Makefile

## make            build vneuron.ko and all userspace parts
## make setup      install the Debian packages and unpack the guest kernel and kselftest
## make check      every test: host unit tests, fuzzers (bounded), lint, DKMS, guest tests
## make lint       checkpatch --strict, sparse and W=1 on the kernel sources
## make bench      benchmarks, one `BENCH name=value unit` line each
## make vm-run CMD='...' [VNEURON_PARAMS='devices=2']   run CMD in the guest
## make vm-shell   an interactive guest shell with the module loaded
## make demo       a sample workload under the profiler, results in out/
## make install    tools, shared libraries, headers, man pages, udev rule, DKMS tree
##                 (PREFIX=/usr/local, DESTDIR=); make uninstall removes them
## make deb        Debian packages vneuron-dkms and vneuron-tools in build/deb/
## make python     the Python package in build/python/ (make python-path prints it)

module: vneuron.ko
vneuron.ko: Kbuild $(wildcard kmod/*.c kmod/*.h core/*.c core/*.h uapi/*.h)
	@test -n "$(KDIR)" || { echo "no kernel build directory: run 'make setup'"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user: python $(B)/rel/libvncore.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(PROFILER) $(TOOLS) $(EXAMPLES) $(HOST_TESTS) \
	$(GUEST_TESTS) $(GUEST_HELPERS) $(BENCHES) $(GUEST_BENCHES) $(BROWSER_TESTS) $(MPI_ALL)

# Two builds of every userspace object: rel (optimised, for tools and the guest) and
# san (ASan + UBSan, for host tests).
$(B)/rel/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(NLINC) -c $< -o $@
$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS_SAN) $(NLINC) -c $< -o $@
$(B)/rel/libvnmpi/%.o: libvnmpi/%.c
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(CFLAGS_REL) -c $< -o $@
$(B)/san/libvnmpi/%.o: libvnmpi/%.c
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(CFLAGS_SAN) -c $< -o $@

define vn_libs
$(B)/$(1)/libvncore.a: $(patsubst %.c,$(B)/$(1)/%.o,$(CORE_SRCS))
	@rm -f $$@
	$$(call msg,AR,$$@)
	$$(Q)ar rcs $$@ $$^
$(B)/$(1)/libneurondev.a: $(patsubst %.c,$(B)/$(1)/%.o,$(LIB_SRCS))
	@rm -f $$@
	$$(call msg,AR,$$@)
	$$(Q)ar rcs $$@ $$^
$(B)/$(1)/libvnprog.a: $(patsubst %.c,$(B)/$(1)/%.o,$(VNPROG_SRCS))
	@rm -f $$@
	$$(call msg,AR,$$@)
	$$(Q)ar rcs $$@ $$^
$(B)/$(1)/libvnmpi.a: $(patsubst %.c,$(B)/$(1)/%.o,$(VNMPI_SRCS))
	@rm -f $$@
	$$(call msg,AR,$$@)
	$$(Q)ar rcs $$@ $$^
$(B)/$(1)/libvnprof.a: $(patsubst %.c,$(B)/$(1)/%.o,$(PROF_SRCS))
	@rm -f $$@
	$$(call msg,AR,$$@)
	$$(Q)ar rcs $$@ $$^
endef
$(eval $(call vn_libs,rel))
$(eval $(call vn_libs,san))

KSFT_INC := -I$(B)/ksrc/tools/testing/selftests
$(B)/san/tests/%: tests/host/%.c $(B)/san/libvnprof.a $(B)/san/libvnprog.a $(B)/san/libneurondev.a $(B)/san/libvncore.a
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_SAN) $(NLINC) $(KSFT_INC) $(filter %.c %.o,$^) $(filter %.a,$^) -o $@ $(LIBS)
# test_view_capture checks the command line's signal handler (profiler/options.c).
$(B)/san/tests/test_view_capture: $(B)/san/profiler/options.o
# MPI programs (libvnmpi.a first): tests/host/mpi/test_*.c run by tests/host/mpi/*.sh
# under mpirun, tools/bench/mpi_*.c run by tools/bench.sh under mpirun.
$(B)/san/mpi/%: tests/host/mpi/%.c $(B)/san/libvnmpi.a $(B)/san/libvnprog.a $(B)/san/libneurondev.a $(B)/san/libvncore.a
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(CFLAGS_SAN) -Ilibvnmpi $(filter %.c %.a,$^) -o $@ $(LIBS)
$(B)/rel/bench-mpi/%: tools/bench/%.c $(B)/rel/libvnmpi.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(CFLAGS_REL) -Ilibvnmpi $(filter %.c %.a,$^) -o $@ $(LIBS)
# capture's MPI side (profiler/mpi/): capture's objects of the command line run by an
# MPI main (its cmd_capture_nodes()).
PROF_MPI_OBJS = $(patsubst %.c,$(1)/%.o,profiler/options.c $(wildcard profiler/builtin-capture*.c))
$(PROFILER_MPI): profiler/mpi/vneuron-profile-mpi.c $(call PROF_MPI_OBJS,$(B)/rel) \
			      $(B)/rel/libvnmpi.a $(B)/rel/libvnprof.a $(B)/rel/libvnprog.a \
			      $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(CFLAGS_REL) -Ilibvnmpi -Iprofiler $(filter %.c %.o %.a,$^) -o $@ $(LIBS)
$(B)/rel/guest/%: tests/guest/%.c $(B)/rel/libvnprof.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(NLINC) $(KSFT_INC) $(filter %.c %.a,$^) -o $@ $(LIBS)
# The web viewer's page is assembled into web.o (.incbin); tests/browser/ drive Chromium.
$(patsubst %,$(B)/%/profiler/output/web.o,rel san): $(wildcard profiler/output/web/*)
# browser_test is built from all of tests/browser/'s other files too: one browser session
$(B)/rel/browser/browser_test: $(filter-out %_test.c,$(wildcard tests/browser/*.c)) \
			       $(wildcard tests/browser/*.h)
$(B)/rel/browser/%: tests/browser/%.c $(B)/rel/libvnprof.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(NLINC) $(filter %.c,$^) $(filter %.a,$^) -o $@ $(LIBS)
# Benchmarks that run inside the guest (tools/bench/guest-bench), kept out of bench/.
$(B)/rel/bench-guest/%: tools/bench/%.c $(B)/rel/libvnprof.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(NLINC) $(filter %.c,$^) $(filter %.a,$^) -o $@ $(LIBS)
$(B)/rel/bench/%: tools/bench/%.c $(B)/rel/libvnprof.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(NLINC) $(filter %.c %.a,$^) -o $@ $(LIBS) -lopenblas
# The tools' dependency files go to build/rel/deps/bin/, not beside the tools in build/bin/.
BIN_DEP = -MF $(B)/rel/deps/bin/$(@F).d
$(B)/bin/%: tools/bin/%.c $(B)/rel/libvnprof.a $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D) $(B)/rel/deps/bin
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(BIN_DEP) $(NLINC) $(filter %.c %.a,$^) -o $@ $(LIBS)
# vneuron-top draws with ncurses (libncurses-dev).
$(B)/bin/vneuron-top: LIBS += $(shell pkg-config --libs ncurses 2>/dev/null || echo -lncurses)
$(B)/bin/example-%: examples/%.c $(EXAMPLE_SHARED) $(wildcard examples/*.h) $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D) $(B)/rel/deps/bin
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(BIN_DEP) $(filter %.c %.a,$^) -o $@ $(LIBS)
$(B)/bin/vneuron-profile: $(patsubst %.c,$(B)/rel/%.o,$(PROF_CMD_SRCS)) $(B)/rel/libvnprof.a \
			  $(B)/rel/libvnprog.a $(B)/rel/libneurondev.a $(B)/rel/libvncore.a
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS_REL) $(filter %.o %.a,$^) -o $@ $(LIBS)

# UBSan stops at its first report, as ASan does: a finding fails the fuzz phase and
# leaves its input (tools/check: build/results/fuzz-NAME-crash-*)
FUZZ_CFLAGS := $(CSTD) -g -O1 -D_GNU_SOURCE $(VNDEF) $(INC) -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=undefined
$(B)/fuzz/%: tests/fuzz/%.c $(CORE_SRCS) $(PROF_SRCS) $(VNPROG_SRCS) $(LIB_SRCS)
	@mkdir -p $(@D)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(NLINC) $^ -o $@ $(LIBS)

setup:
	@bash tools/setup.sh

check: all install-build $(FUZZERS)
	@bash tools/check

host-test: $(HOST_TESTS) $(MPI_ALL)
	@bash tools/check host

guest-test: all
	@bash tools/check guest

lint:
	@bash tools/lint

dkms-test:
	@bash tools/check dkms

fuzz: $(FUZZERS)
	@bash tools/check fuzz

bench: all
	@bash tools/bench.sh

demo: all
	@if [ -x tools/demo.sh ]; then bash tools/demo.sh; else echo 'make demo: not built yet (issue 6)' >&2; exit 1; fi

VNEURON_PARAMS ?=
vm-run: all
	@tools/vmtest -p '$(VNEURON_PARAMS)' -- '$(CMD)'
vm-shell: all
	@tools/vmtest -p '$(VNEURON_PARAMS)' -s

# make install, make uninstall, make deb.
include tools/install.mk
# The Python package: make python, make python-path.
include python/python.mk

print-kdir:
	@echo $(KDIR)

clean:
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	rm -rf $(B)/rel $(B)/san $(B)/fuzz $(B)/bin $(B)/results $(B)/vm $(B)/pic $(B)/shared $(B)/man $(B)/libexec \
		$(B)/deb

-include $(shell find $(B)/rel $(B)/san -name '*.d' 2>/dev/null)
