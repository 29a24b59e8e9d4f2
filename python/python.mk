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
