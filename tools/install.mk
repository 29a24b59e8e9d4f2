# vneuron: `make install`, `make uninstall` and `make deb` (included by the Makefile).
#
# What is installed (PREFIX=/usr/local by default, DESTDIR for staging):
#   BINDIR        the user tools: tools/bin/NAME.c and vneuron-profile, linked against
#   LIBDIR        libneurondev.so.0, libvnprog.so.0 and libvnprofile.so.0 (real names
#                 .so.VERSION, the .so links for the linker); the device core is part of
#                 libneurondev
#   PKGCONFIGDIR  libneurondev.pc, libvnprog.pc, libvnprofile.pc
#   INCLUDEDIR/vneuron   neurondev.h, vnprog.h, vnrun.h, vnprofile.h and the uapi headers
#   MANDIR        man1 (one page per tool, from its --help), man3 (libneurondev(3),
#                 libvnprog(3), libvnprofile(3))
#   UDEVRULESDIR  60-vneuron.rules (/dev/vneuronN 0660, group vneuron)
#   PREFIX/libexec/vneuron   vneuron-profile-mpi, capture's MPI side (built with mpicc
#                 when Open MPI is there): vneuron-profile execs it under mpirun and looks
#                 for it in ../libexec/vneuron/ from its own folder, so it goes there
#   DKMSSRCDIR/vneuron-VERSION   the module's DKMS source tree (dkms.conf, Kbuild, kmod/,
#                 core/, uapi/, udev/), ready for `dkms install -m vneuron -v VERSION`
# Everything installed is built in build/pic (position-independent objects), build/shared
# (the dynamically linked tools) and build/man; build/bin keeps the static tools the
# tests use.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
UDEVRULESDIR ?= /etc/udev/rules.d
DKMSSRCDIR ?= /usr/src
# Extra flags for the installed build (debian/rules passes dpkg-buildflags' here).
PKG_CPPFLAGS ?=
PKG_CFLAGS ?=
PKG_LDFLAGS ?=

# The soname's number changes with an incompatible ABI change, the real name with every
# version (dkms.conf's PACKAGE_VERSION, also the module's and the packages').
SOMAJOR := 0
PIC := $(B)/pic
SHB := $(B)/shared/bin
SO_ND := libneurondev.so.$(SOMAJOR)
SO_VNP := libvnprog.so.$(SOMAJOR)
SO_VNPF := libvnprofile.so.$(SOMAJOR)
SO_LIBS := libneurondev libvnprog libvnprofile
INST_TOOLS := $(notdir $(TOOLS)) $(notdir $(PROFILER))
INST_HEADERS := libneurondev/neurondev.h libvnprog/vnprog.h libvnprog/vnrun.h profiler/vnprofile.h \
		$(wildcard uapi/*.h)
MAN3 := $(wildcard man/*.3)
DKMS_FILES := dkms.conf Kbuild $(wildcard kmod/*.c kmod/*.h core/*.c core/*.h uapi/*.h) \
	      udev/60-vneuron.rules udev/vneuron-udev
DKMS_DEST := $(DKMSSRCDIR)/vneuron-$(VERSION)
# Not a user tool (no man page): vneuron-profile finds it relative to itself.
SH_MPI := $(if $(HAVE_MPI),$(B)/shared/libexec/vneuron/vneuron-profile-mpi)
MPI_DEST := $(PREFIX)/libexec/vneuron

# The shared libraries run the device core for Python and the tools as fast as the static
# ones do for C: their own calls bound inside them (no semantic interposition, no PLT
# hops: -Bsymbolic-functions), thread-locals through TLS descriptors, not a call to
# __tls_get_addr() at each access (the core's locks note what a thread holds).
# (gnu2 is x86's name for descriptors; elsewhere the compiler's default stays)
PIC_TLS := $(if $(filter x86_64-% i386-% i686-%,$(shell $(CC) -dumpmachine)),-mtls-dialect=gnu2)
PIC_CFLAGS := $(CFLAGS_REL) -fPIC -fno-semantic-interposition $(PIC_TLS) \
	      $(PKG_CPPFLAGS) $(PKG_CFLAGS) $(NLINC)
PIC_LDFLAGS := -Wl,--as-needed -Wl,-Bsymbolic-functions $(PKG_LDFLAGS)

.PHONY: install-build install uninstall deb
install-build: $(PIC)/$(SO_ND) $(PIC)/$(SO_VNP) $(PIC)/$(SO_VNPF) $(addprefix $(SHB)/,$(INST_TOOLS)) \
	       $(patsubst %,$(B)/man/man1/%.1,$(INST_TOOLS)) $(patsubst %,$(PIC)/%.pc,$(SO_LIBS)) \
	       $(SH_MPI)

$(PIC)/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PIC_CFLAGS) -c $< -o $@
$(PIC)/profiler/output/web.o: $(wildcard profiler/output/web/*)
$(PIC)/libvnmpi/%.o: libvnmpi/%.c
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(PIC_CFLAGS) -c $< -o $@

$(PIC)/libneurondev.so.$(VERSION): $(patsubst %.c,$(PIC)/%.o,$(LIB_SRCS) $(CORE_SRCS))
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SO_ND) -Wl,--no-undefined $(PIC_LDFLAGS) $^ -o $@ $(LIBS)
$(PIC)/libvnprog.so.$(VERSION): $(patsubst %.c,$(PIC)/%.o,$(VNPROG_SRCS)) $(PIC)/$(SO_ND)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SO_VNP) -Wl,--no-undefined $(PIC_LDFLAGS) \
		$(filter %.o,$^) -o $@ -L$(PIC) -lneurondev $(LIBS)
# The profiler library: vnprofile.h's functions only (its version script hides the rest).
$(PIC)/libvnprofile.so.$(VERSION): $(patsubst %.c,$(PIC)/%.o,$(PROF_SRCS)) profiler/libvnprofile.map \
				   $(PIC)/$(SO_VNP) $(PIC)/$(SO_ND)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SO_VNPF) -Wl,--no-undefined \
		-Wl,--version-script=profiler/libvnprofile.map $(PIC_LDFLAGS) $(filter %.o,$^) -o $@ \
		-L$(PIC) -lvnprog -lneurondev $(LIBS)
# The soname links (what the dynamic linker loads) and the linker's .so links.
$(PIC)/%.so.$(SOMAJOR): $(PIC)/%.so.$(VERSION)
	$(Q)ln -sf $(notdir $<) $@ && ln -sf $(notdir $@) $(PIC)/$*.so

$(SHB)/%: tools/bin/%.c $(PIC)/$(SO_ND) $(PIC)/$(SO_VNP)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(PIC_CFLAGS) $(PIC_LDFLAGS) $< -o $@ -L$(PIC) -lvnprog -lneurondev $(LIBS)
# A tool's own libraries, as for its build/bin twin in the Makefile.
$(SHB)/vneuron-top: LIBS += $(shell pkg-config --libs ncurses 2>/dev/null || echo -lncurses)
# vneuron-profile: a command line over libvnprofile's header (vnprofile.h).
$(SHB)/vneuron-profile: $(patsubst %.c,$(PIC)/%.o,$(PROF_CMD_SRCS)) $(PIC)/$(SO_VNPF) \
			$(PIC)/$(SO_ND) $(PIC)/$(SO_VNP)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(PIC_CFLAGS) $(PIC_LDFLAGS) $(filter %.o,$^) -o $@ -L$(PIC) -lvnprofile \
		-lvnprog -lneurondev $(LIBS)

# As build/libexec/vneuron/vneuron-profile-mpi, on the shared libraries.
$(SH_MPI): profiler/mpi/vneuron-profile-mpi.c $(call PROF_MPI_OBJS,$(PIC)) \
	   $(patsubst %.c,$(PIC)/%.o,$(VNMPI_SRCS)) $(PIC)/$(SO_VNPF) $(PIC)/$(SO_ND) $(PIC)/$(SO_VNP)
	@mkdir -p $(@D)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(PIC_CFLAGS) $(PIC_LDFLAGS) -Ilibvnmpi -Iprofiler $(filter %.c %.o,$^) \
		-o $@ -L$(PIC) -lvnprofile -lvnprog -lneurondev $(LIBS)

# Section 1 from each tool's --help (NAME, SYNOPSIS, ... sections), so they never differ.
$(B)/man/man1/%.1: $(SHB)/% tools/help2man
	@mkdir -p $(@D)
	$(call msg,MAN,$@)
	$(Q)LD_LIBRARY_PATH=$(PIC) tools/help2man $< $(VERSION) > $@.tmp && mv $@.tmp $@

$(PIC)/%.pc: tools/pkgconfig.in Makefile tools/install.mk
	@mkdir -p $(@D)
	$(Q)sed -e 's|@NAME@|$*|' -e 's|@LIBNAME@|$(patsubst lib%,%,$*)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@PREFIX@|$(PREFIX)|' \
		-e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@DESC@|$(PC_DESC_$*)|' -e 's|@REQUIRES@|$(PC_REQUIRES_$*)|' \
		$< > $@
, := ,
PC_DESC_libneurondev := userspace driver library
PC_DESC_libvnprog := program toolchain (builder$(,) assembler$(,) .vnef$(,) .npy$(,) host backend)
PC_DESC_libvnprofile := profiler library (profiles$(,) figures$(,) findings$(,) outputs$(,) capture)
PC_REQUIRES_libvnprog := Requires: libneurondev = $(VERSION)
PC_REQUIRES_libvnprofile := Requires: libvnprog = $(VERSION)
# The .pc files hold the paths: remake them when PREFIX or LIBDIR changes.
$(PIC)/.paths.$(subst /,_,$(PREFIX)$(LIBDIR)$(INCLUDEDIR)):
	@mkdir -p $(@D) && rm -f $(PIC)/.paths.* && touch $@
$(patsubst %,$(PIC)/%.pc,$(SO_LIBS)): $(PIC)/.paths.$(subst /,_,$(PREFIX)$(LIBDIR)$(INCLUDEDIR))

install: install-build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/vneuron $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(UDEVRULESDIR)
	install -m 0755 $(addprefix $(SHB)/,$(INST_TOOLS)) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(patsubst %,$(PIC)/%.so.$(VERSION),$(SO_LIBS)) $(DESTDIR)$(LIBDIR)/
	for l in $(SO_LIBS); do \
		ln -sf $$l.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$$l.so.$(SOMAJOR) && \
		ln -sf $$l.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/$$l.so || exit 1; \
	done
	install -m 0644 $(patsubst %,$(PIC)/%.pc,$(SO_LIBS)) $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 0644 $(INST_HEADERS) $(DESTDIR)$(INCLUDEDIR)/vneuron/
	install -m 0644 $(patsubst %,$(B)/man/man1/%.1,$(INST_TOOLS)) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 udev/60-vneuron.rules $(DESTDIR)$(UDEVRULESDIR)/
	$(if $(SH_MPI),install -D -m 0755 $(SH_MPI) $(DESTDIR)$(MPI_DEST)/vneuron-profile-mpi)
	rm -rf $(DESTDIR)$(DKMS_DEST)
	for f in $(DKMS_FILES); do \
		install -D -m $$(if [ -x $$f ]; then echo 0755; else echo 0644; fi) $$f \
			$(DESTDIR)$(DKMS_DEST)/$$f || exit 1; \
	done
	@if [ -z "$(DESTDIR)" ]; then \
		ldconfig 2>/dev/null || true; \
		echo "install: /dev/vneuronN is for the group vneuron (udev rule in $(UDEVRULESDIR));"; \
		echo "         create it with 'groupadd --system vneuron' and add users to it;"; \
		echo "         build the module with 'dkms install -m vneuron -v $(VERSION)'."; \
	fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INST_TOOLS))
	rm -f $(foreach l,$(SO_LIBS),$(addprefix $(DESTDIR)$(LIBDIR)/$(l),.so.$(VERSION) .so.$(SOMAJOR) .so))
	rm -f $(patsubst %,$(DESTDIR)$(PKGCONFIGDIR)/%.pc,$(SO_LIBS))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/vneuron/,$(notdir $(INST_HEADERS)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/vneuron 2>/dev/null
	rm -f $(patsubst %,$(DESTDIR)$(MANDIR)/man1/%.1,$(INST_TOOLS))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3)))
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-vneuron.rules
	rm -f $(DESTDIR)$(MPI_DEST)/vneuron-profile-mpi
	-rmdir $(DESTDIR)$(MPI_DEST) 2>/dev/null
	rm -rf $(DESTDIR)$(DKMS_DEST)
	@if [ -z "$(DESTDIR)" ]; then ldconfig 2>/dev/null || true; fi

# Debian packages with Debian's tooling, built in a copy of the tree (build/deb/src) so the
# tree itself stays clean; the .debs land in build/deb/. tools/make-deb says how.
deb:
	@bash tools/make-deb

-include $(shell find $(PIC) -name '*.d' 2>/dev/null)
