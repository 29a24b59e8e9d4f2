# The Python package (issue 26; docs/python.md), included by the Makefile after
# tools/install.mk. build/python/ is the package as Python imports it: the .py files of
# python/vneuron/ copied, and the extension vneuron/_vneuron$(PY_EXT) built from
# python/ext/*.c over the shared libraries of build/pic/ (found through its RUNPATH in
# the build tree). `make python-path` prints the folder to put on PYTHONPATH.
PY := /usr/bin/python3
PY_INC := $(shell $(PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
NP_INC := $(shell $(PY) -c 'import numpy; print(numpy.get_include())' 2>/dev/null)
PY_EXT := $(shell $(PY) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PYB := $(B)/python
PY_EXT_SRCS := $(wildcard python/ext/*.c)
PY_SRCS := $(shell find python/vneuron -name '*.py' 2>/dev/null)
PY_MOD := $(PYB)/vneuron/_vneuron$(PY_EXT)
PY_CFLAGS := $(CFLAGS_REL) -fPIC -fvisibility=hidden -Iprofiler -I$(PY_INC) -I$(NP_INC)

.PHONY: python python-path
python: $(PY_MOD) $(patsubst python/%,$(PYB)/%,$(PY_SRCS))
python-path:
	@echo $(CURDIR)/$(PYB)

$(PYB)/ext/%.o: python/ext/%.c $(wildcard python/ext/*.h)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PY_CFLAGS) -c $< -o $@
$(PY_MOD): $(patsubst python/ext/%.c,$(PYB)/ext/%.o,$(PY_EXT_SRCS)) $(PIC)/$(SO_ND) $(PIC)/$(SO_VNP) \
	   $(PIC)/$(SO_VNPF)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(PIC_LDFLAGS) -Wl,-rpath,'$$ORIGIN/../../pic' $(filter %.o,$^) -o $@ \
		-L$(PIC) -lvnprofile -lvnprog -lneurondev $(LIBS)
$(PYB)/vneuron/%.py: python/vneuron/%.py
	@mkdir -p $(@D)
	$(Q)cp $< $@
# Header changes (the libraries' too) rebuild the extension's objects.
-include $(shell find $(PYB) $(B)/python-san $(B)/python-inst -name '*.d' 2>/dev/null)

# ---- make python-san: the extension under ASan and UBSan (the host phase) ----------------
# The same sources with CFLAGS_SAN, in build/python-san/ beside a copy of the .py files;
# Debian's python3 runs it with libasan preloaded (tools/check, docs/python.md).
PYS := $(B)/python-san
PY_SAN_MOD := $(PYS)/vneuron/_vneuron$(PY_EXT)
PY_SAN_CFLAGS := $(CFLAGS_SAN) -fPIC -fvisibility=hidden -Iprofiler -I$(PY_INC) -I$(NP_INC)

.PHONY: python-san
python-san: $(PY_SAN_MOD) $(patsubst python/%,$(PYS)/%,$(PY_SRCS))
user host-test: python-san
host-test: python

$(PYS)/ext/%.o: python/ext/%.c $(wildcard python/ext/*.h)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PY_SAN_CFLAGS) -c $< -o $@
$(PY_SAN_MOD): $(patsubst python/ext/%.c,$(PYS)/ext/%.o,$(PY_EXT_SRCS)) $(PIC)/$(SO_ND) \
	       $(PIC)/$(SO_VNP) $(PIC)/$(SO_VNPF)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared -fsanitize=address,undefined -Wl,-rpath,'$$ORIGIN/../../pic' \
		$(filter %.o,$^) -o $@ -L$(PIC) -lvnprofile -lvnprog -lneurondev $(LIBS)
$(PYS)/vneuron/%.py: python/vneuron/%.py
	@mkdir -p $(@D)
	$(Q)cp $< $@

# ---- make install: the package where Debian's python3 finds it ---------------------------
# PREFIX=/usr: /usr/lib/python3/dist-packages (Debian's place for packaged modules);
# another PREFIX: PREFIX/lib/python3.X/dist-packages (/usr/local/lib/python3.11/
# dist-packages is on Debian's sys.path). PYTHONDIR overrides. The installed extension
# is built apart, in build/python-inst/, with the packaging flags and no RUNPATH: it
# finds the installed libraries as the tools do.
PY_VER := $(shell $(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VER)/dist-packages)
PYI := $(B)/python-inst
PY_INST_MOD := $(PYI)/_vneuron$(PY_EXT)

.PHONY: install-python uninstall-python
install-build: $(PY_INST_MOD)
install: install-python
uninstall: uninstall-python

$(PYI)/ext/%.o: python/ext/%.c $(wildcard python/ext/*.h)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PIC_CFLAGS) -fvisibility=hidden -Iprofiler -I$(PY_INC) -I$(NP_INC) -c $< -o $@
$(PY_INST_MOD): $(patsubst python/ext/%.c,$(PYI)/ext/%.o,$(PY_EXT_SRCS)) $(PIC)/$(SO_ND) \
		$(PIC)/$(SO_VNP) $(PIC)/$(SO_VNPF)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(PIC_LDFLAGS) $(filter %.o,$^) -o $@ -L$(PIC) -lvnprofile -lvnprog \
		-lneurondev $(LIBS)

install-python: $(PY_INST_MOD)
	install -d $(DESTDIR)$(PYTHONDIR)/vneuron
	for f in $(patsubst python/%,%,$(PY_SRCS)); do \
		install -D -m 0644 python/$$f $(DESTDIR)$(PYTHONDIR)/$$f || exit 1; \
	done
	install -m 0644 $(PY_INST_MOD) $(DESTDIR)$(PYTHONDIR)/vneuron/

uninstall-python:
	rm -rf $(DESTDIR)$(PYTHONDIR)/vneuron

.PHONY: clean-python
clean: clean-python
clean-python:
	rm -rf $(PYB) $(PYS) $(PYI)
