# SPDX-License-Identifier: MIT
#
# uslab build (GNU Make, no autotools).  `make help` lists the targets.
#
# 1. Overview.  The library is built once per allocator ("variant": slub, slab,
#    slob).  A variant is every src/**/*.c except src/malloc/ and the two
#    allocator files not selected, compiled with -DCONFIG_SLUB/SLAB/SLOB=0|1
#    into $(BUILD)/obj/VARIANT/.  Every output lives under $(BUILD)/.
# 2. Outputs per variant:
#      $(BUILD)/lib/libuslab-V.so[.0[.0.1.0]]  exports uslab_* only (src/uslab.map)
#      $(BUILD)/lib/libuslab-V.a               one object: ld -r, then
#                                              objcopy --localize-hidden
#      $(BUILD)/lib/libuslab-malloc-V.so       when src/malloc/*.c exist
#      $(BUILD)/obj/V/libuslab-internal.a      plain archive, for tests
#      $(BUILD)/tests/V/KIND/NAME              tests/KIND/NAME.c + Check + the
#                                              internal archive
#      $(BUILD)/bin/DEMO-V                     tools/DEMO.c per variant
#      $(BUILD)/bench/V/DIR/NAME               bench/DIR/NAME.c (static lib)
#    and once: $(BUILD)/bin/NAME for every other tools/NAME.c (static, slub).
# 3. Configuration: CC, BUILD, ALLOCATORS, SAN, OPT, PREFIX, DESTDIR, V=1.
#    Changing CC, SAN, OPT or the flags rebuilds what they affect
#    ($(BUILD)/obj/V/.flags records them).
# 4. Files are discovered, never listed: a new source file, test, tool or
#    benchmark is picked up by the next `make`.

# ---- configuration ---------------------------------------------------------
ifeq ($(origin CC),default)
CC := gcc
endif
BUILD      ?= build
ALLOCATORS ?= slub slab slob
SAN        ?=
OPT        ?= -O2
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR   ?= $(LIBDIR)/cmake/uslab
LD         ?= ld
OBJCOPY    ?= objcopy
OBJDUMP    ?= objdump
NM         ?= nm
PKG_CONFIG ?= pkg-config
INSTALL    ?= install
TEST_SET   ?= all
DEMOS      ?= uslab-demo
BENCH_ARGS ?=
RUN_ARGS   ?=
ASM_ALLOC  ?= slub
ASM_FUNCS  ?= kmem_cache_alloc kmem_cache_free __kmalloc kfree alloc_pages

override BUILD := $(patsubst %/,%,$(strip $(BUILD)))
ifeq ($(BUILD),)
$(error BUILD must name a build folder)
endif
ifneq ($(filter . .. / ~ src include tests tools docs man packaging,$(BUILD)),)
$(error BUILD=$(BUILD) would put outputs (and `make clean`) over the source tree)
endif

ALLOC_NAMES := slub slab slob
ifneq ($(filter-out $(ALLOC_NAMES),$(ALLOCATORS)),)
$(error ALLOCATORS may hold only: $(ALLOC_NAMES) (got '$(ALLOCATORS)'))
endif

VERSION_MAJOR := $(shell awk '/define USLAB_VERSION_MAJOR/ {print $$3}' include/uslab/uslab.h)
VERSION_MINOR := $(shell awk '/define USLAB_VERSION_MINOR/ {print $$3}' include/uslab/uslab.h)
VERSION_PATCH := $(shell awk '/define USLAB_VERSION_PATCH/ {print $$3}' include/uslab/uslab.h)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SOMAJOR := $(VERSION_MAJOR)

ifeq ($(V)$(findstring s,$(firstword -$(MAKEFLAGS))),1)
Q :=
say :=
else ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
Q := @
say := @
else
Q := @
say = @printf '  %-7s %-5s %s\n' $1 $2 $3;
endif

# ---- flags -----------------------------------------------------------------
comma := ,
# Frame pointers for track.c's stack walk, except in leaf functions: those
# call nothing (tail calls restore the caller's frame pointer first), so no
# walk ever starts inside one, and the exported fast paths need no frame.
USLAB_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wundef -mcx16 \
	-fvisibility=hidden -fPIC -pthread -g -fno-omit-frame-pointer \
	-momit-leaf-frame-pointer $(OPT)
USLAB_CPPFLAGS := -Iinclude -Isrc
SAN_FLAGS := $(if $(SAN),-fsanitize=$(SAN) -fno-sanitize-recover=all)
DEP_FLAGS := -MMD -MP
# -z defs catches undefined symbols in the .so; sanitizer runtimes are only
# resolved in the final executable, so it is off for sanitizer builds.
SO_DEFS := $(if $(SAN),,-Wl$(comma)-z$(comma)defs)

config_defs = -DCONFIG_SLUB=$(if $(filter slub,$1),1,0) \
	-DCONFIG_SLAB=$(if $(filter slab,$1),1,0) \
	-DCONFIG_SLOB=$(if $(filter slob,$1),1,0)
cflags_of = $(USLAB_CPPFLAGS) $(call config_defs,$1) $(CPPFLAGS) \
	$(USLAB_CFLAGS) $(SAN_FLAGS) $(CFLAGS) $(DEP_FLAGS)
# Libraries the core depends on: liburcu-bp (RCU for SLAB_TYPESAFE_BY_RCU,
# kfree_rcu; the bulletproof flavour, see include/uslab/rcupdate.h).
LIB_DEPS ?= -lurcu-bp
LINK_FLAGS = -pthread $(SAN_FLAGS) $(LDFLAGS) $(LIB_DEPS)

# Check's flags are read once, and only when a test is compiled or linked, so
# that `make clean` or `make install` work before Check is installed.
CHECK_CFLAGS = $(eval CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check))$(CHECK_CFLAGS)
CHECK_LIBS = $(eval CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check))$(CHECK_LIBS)

# ---- sources (discovered) --------------------------------------------------
ALLOC_SRCS := $(ALLOC_NAMES:%=src/mm/%.c)
LIB_SRCS := $(sort $(shell find src -name '*.c' ! -name '.*' ! -path 'src/malloc/*' 2>/dev/null))
CORE_SRCS := $(filter-out $(ALLOC_SRCS),$(LIB_SRCS))
MALLOC_SRCS := $(sort $(wildcard src/malloc/*.c))
MALLOC_MAP := $(wildcard src/malloc/malloc.map)
MALLOC_MAP_FLAG := $(if $(MALLOC_MAP),-Wl$(comma)--version-script=$(MALLOC_MAP))
DEMO_SRCS := $(wildcard $(DEMOS:%=tools/%.c))
TOOL_SRCS := $(filter-out $(DEMO_SRCS),$(sort $(wildcard tools/*.c)))
TOOL_NAMES := $(TOOL_SRCS:tools/%.c=%)
DEMO_NAMES := $(DEMO_SRCS:tools/%.c=%)
BENCH_COMMON_SRCS := $(sort $(wildcard bench/common/*.c))
BENCH_SRCS := $(filter-out $(BENCH_COMMON_SRCS),$(sort $(wildcard bench/*/*.c)))
# tests/malloc/ is not among them: its own driver, tests/malloc/run.sh, builds
# those programs against the C library only and runs them with the drop-in
# preloaded (`make test` calls it).
TEST_KINDS := unit api misuse stress
TEST_SRCS := $(sort $(wildcard $(TEST_KINDS:%=tests/%/*.c)))
TEST_COMMON_SRCS := $(sort $(wildcard tests/common/*.c))
THREADED_MARK := /* uslab-test: threaded */
THREADED_SRCS := $(sort $(filter tests/stress/%,$(TEST_SRCS)) \
	$(if $(TEST_SRCS),$(shell grep -lF '$(THREADED_MARK)' $(TEST_SRCS))))
ifeq ($(TEST_SET),threaded)
SEL_TEST_SRCS := $(THREADED_SRCS)
else ifeq ($(TEST_SET),all)
SEL_TEST_SRCS := $(TEST_SRCS)
else
$(error TEST_SET must be 'all' or 'threaded')
endif

# A variant whose allocator file does not exist yet is skipped, with a note.
VARIANTS := $(foreach a,$(ALLOCATORS),$(if $(wildcard src/mm/$a.c),$a))
MISSING := $(filter-out $(VARIANTS),$(ALLOCATORS))
ifneq ($(filter-out test list-tests clean help,$(or $(MAKECMDGOALS),all)),)
$(foreach a,$(MISSING),$(shell echo "note: src/mm/$a.c does not exist yet; skipping the $a variant" >&2))
endif
TOOL_ALLOC := $(firstword $(filter slub,$(VARIANTS)) $(VARIANTS))

objs = $(patsubst %.c,$(BUILD)/obj/$1/%.o,$2)
lib_objs = $(call objs,$1,$(CORE_SRCS) src/mm/$1.c)
so_real = $(BUILD)/lib/libuslab-$1.so.$(VERSION)
so_files = $(call so_real,$1) $(BUILD)/lib/libuslab-$1.so.$(SOMAJOR) $(BUILD)/lib/libuslab-$1.so
a_file = $(BUILD)/lib/libuslab-$1.a
internal_a = $(BUILD)/obj/$1/libuslab-internal.a
malloc_so = $(if $(MALLOC_SRCS),$(BUILD)/lib/libuslab-malloc-$1.so)
test_bins = $(patsubst tests/%.c,$(BUILD)/tests/$1/%,$(SEL_TEST_SRCS))
demo_bins = $(DEMO_NAMES:%=$(BUILD)/bin/%-$1)
bench_bins = $(patsubst bench/%.c,$(BUILD)/bench/$1/%,$(BENCH_SRCS))

ALL_LIBS := $(foreach a,$(VARIANTS),$(call so_files,$a) $(call a_file,$a) \
	$(call internal_a,$a) $(call malloc_so,$a))
ALL_TOOLS := $(if $(TOOL_ALLOC),$(TOOL_NAMES:%=$(BUILD)/bin/%))
ALL_DEMOS := $(foreach a,$(VARIANTS),$(call demo_bins,$a))
ALL_TESTS := $(foreach a,$(VARIANTS),$(call test_bins,$a))
ALL_BENCHES := $(foreach a,$(VARIANTS),$(call bench_bins,$a))
ALL_OBJS := $(foreach a,$(VARIANTS),$(call lib_objs,$a) \
	$(call objs,$a,$(MALLOC_SRCS) $(TOOL_SRCS) $(DEMO_SRCS) $(TEST_SRCS) $(TEST_COMMON_SRCS) \
		$(BENCH_SRCS) $(BENCH_COMMON_SRCS)))

# ---- top-level targets -----------------------------------------------------
.PHONY: all libs tools demos tests benches bench check list-tests check-exports test \
	run asm install clean help FORCE
.DEFAULT_GOAL := all

all: libs tools demos
libs: $(ALL_LIBS)
tools: $(ALL_TOOLS)
demos: $(ALL_DEMOS)
tests: $(ALL_TESTS)
benches: $(ALL_BENCHES)

help:
	@echo 'make [all]        libraries, tools and demos of ALLOCATORS="$(ALLOCATORS)"'
	@echo '                  under BUILD=$(BUILD)'
	@echo 'make run          build and run the demo on SLUB, SLAB and SLOB (RUN_ARGS=requests)'
	@echo 'make test         everything: deps, gcc, clang, ASan+UBSan, TSan, install test'
	@echo 'make tests        build the test binaries (TEST_SET=all|threaded)'
	@echo 'make check        build and run the tests of this one configuration'
	@echo 'make check-exports  the .so files export only what they should'
	@echo 'make bench        build bench/*/*.c per variant, run bench/run.py (BENCH_ARGS=)'
	@echo 'make asm          disassemble the fast paths into $(BUILD)/asm/'
	@echo 'make install      PREFIX=$(PREFIX) DESTDIR=...'
	@echo 'make clean        remove $(BUILD)/'
	@echo 'variables: CC=$(CC) SAN=$(SAN) OPT=$(OPT) V=1 for full commands'

# ---- compiling ---------------------------------------------------------------
# The flags stamp is rewritten only when the flags change, so that objects
# depend on the flags without being rebuilt on every run.
define variant_rules
$(BUILD)/obj/$1/.flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CC) $$(call cflags_of,$1) $$(LINK_FLAGS)' | cmp -s - $$@ || \
		echo '$$(CC) $$(call cflags_of,$1) $$(LINK_FLAGS)' > $$@

$(BUILD)/obj/$1/%.o: %.c $(BUILD)/obj/$1/.flags
	@mkdir -p $$(@D)
	$$(call say,CC,$1,$$<)$$(CC) $$(call cflags_of,$1) -c -o $$@ $$<

$(BUILD)/obj/$1/tests/%.o: tests/%.c $(BUILD)/obj/$1/.flags
	@mkdir -p $$(@D)
	$$(call say,CC,$1,$$<)$$(CC) $$(call cflags_of,$1) -Itests -Itests/common $$(CHECK_CFLAGS) -c -o $$@ $$<
endef
$(foreach a,$(VARIANTS),$(eval $(call variant_rules,$a)))

# ---- libraries ---------------------------------------------------------------
define variant_libs
$(call so_real,$1): $(call lib_objs,$1) src/uslab.map
	@mkdir -p $$(@D)
	$$(call say,LINK,$1,$$@)$$(CC) -shared -Wl,-soname,libuslab-$1.so.$(SOMAJOR) \
		-Wl,--version-script=src/uslab.map $(SO_DEFS) -o $$@ \
		$(call lib_objs,$1) $$(LINK_FLAGS)
$(BUILD)/lib/libuslab-$1.so.$(SOMAJOR): $(call so_real,$1)
	$(Q)ln -sf $$(notdir $$<) $$@
$(BUILD)/lib/libuslab-$1.so: $(BUILD)/lib/libuslab-$1.so.$(SOMAJOR)
	$(Q)ln -sf $$(notdir $$<) $$@

# One relocatable object whose hidden (kernel-named) symbols are made local,
# so that a program's own alloc_pages or kfree never meets ours.
$(BUILD)/obj/$1/uslab-$1.o: $(call lib_objs,$1)
	$$(call say,LD,$1,$$@)$(LD) -r -o $$@.tmp $$^
	$(Q)$(OBJCOPY) --localize-hidden $$@.tmp $$@ && rm -f $$@.tmp
$(call a_file,$1): $(BUILD)/obj/$1/uslab-$1.o
	@mkdir -p $$(@D)
	$$(call say,AR,$1,$$@)rm -f $$@ && $(AR) rcs $$@ $$<
$(call internal_a,$1): $(call lib_objs,$1)
	$$(call say,AR,$1,$$@)rm -f $$@ && $(AR) rcs $$@ $$^

$(BUILD)/lib/libuslab-malloc-$1.so: $(call objs,$1,$(MALLOC_SRCS)) $(call lib_objs,$1) $(MALLOC_MAP)
	@mkdir -p $$(@D)
	$$(call say,LINK,$1,$$@)$$(CC) -shared -Wl,-soname,libuslab-malloc-$1.so \
		$(MALLOC_MAP_FLAG) $(SO_DEFS) -o $$@ \
		$$(filter %.o,$$^) $$(LINK_FLAGS)
endef
$(foreach a,$(VARIANTS),$(eval $(call variant_libs,$a)))

# ---- tests, tools, demos -----------------------------------------------------
# Tests take the whole internal archive: options register themselves in the
# "uslab_setup" section, so every object must be there, as in the libraries.
# -rdynamic: owner tracks in debug reports name the test's functions.
define variant_programs
$(BUILD)/tests/$1/%: $(BUILD)/obj/$1/tests/%.o $(call objs,$1,$(TEST_COMMON_SRCS)) $(call internal_a,$1)
	@mkdir -p $$(@D)
	$$(call say,LINK,$1,$$@)$$(CC) -o $$@ $$< $(call objs,$1,$(TEST_COMMON_SRCS)) \
		-Wl,--whole-archive $(call internal_a,$1) -Wl,--no-whole-archive \
		-rdynamic $$(CHECK_LIBS) $$(LINK_FLAGS)

$(BUILD)/bin/%-$1: $(BUILD)/obj/$1/tools/%.o $(call a_file,$1)
	@mkdir -p $$(@D)
	$$(call say,LINK,$1,$$@)$$(CC) -o $$@ $$^ $$(LINK_FLAGS)

$(BUILD)/bench/$1/%: $(BUILD)/obj/$1/bench/%.o $(call objs,$1,$(BENCH_COMMON_SRCS)) $(call a_file,$1)
	@mkdir -p $$(@D)
	$$(call say,LINK,$1,$$@)$$(CC) -o $$@ $$^ $$(LINK_FLAGS)
endef
$(foreach a,$(VARIANTS),$(eval $(call variant_programs,$a)))

ifneq ($(TOOL_ALLOC),)
$(BUILD)/bin/%: $(BUILD)/obj/$(TOOL_ALLOC)/tools/%.o $(call a_file,$(TOOL_ALLOC))
	@mkdir -p $(@D)
	$(call say,LINK,$(TOOL_ALLOC),$@)$(CC) -o $@ $^ $(LINK_FLAGS)
endif

# Keep objects and the relocatable object after a test or tool is linked;
# never leave a half-written output behind a failed command.
.SECONDARY:
.DELETE_ON_ERROR:

# ---- running -----------------------------------------------------------------
list-tests:
	@for t in $(ALL_TESTS); do echo $$t; done

check: $(ALL_TESTS)
	@tools/run-tests.sh --label '$(CC)$(if $(SAN), $(SAN))' $(ALL_TESTS)

check-exports: $(foreach a,$(VARIANTS),$(call so_real,$a) $(call a_file,$a) $(call malloc_so,$a))
	@tools/check-exports.sh --nm '$(NM)' $(if $(MALLOC_MAP),--malloc-map $(MALLOC_MAP)) $^

test:
	@MAKE='$(MAKE)' tools/test-all.sh --build '$(BUILD)'

# Benchmarks measure, they do not test: never part of `make test`.
BENCH_NONE := @echo 'make bench: bench/run.py does not exist yet' >&2; exit 1
bench: $(ALL_BENCHES)
	$(if $(SAN),$(error make bench with SAN=$(SAN) would measure the sanitizer))
	$(if $(wildcard bench/run.py),bench/run.py --build '$(BUILD)' $(BENCH_ARGS),$(BENCH_NONE))

run: $(foreach a,slub slab slob,$(call demo_bins,$a))
	tools/run-demo.sh '$(BUILD)'$(if $(RUN_ARGS), $(RUN_ARGS))

asm: $(call so_real,$(ASM_ALLOC))
	@tools/disasm.sh '$(OBJDUMP)' $< $(BUILD)/asm $(ASM_FUNCS)

clean:
	rm -rf -- '$(BUILD)'

# ---- install -----------------------------------------------------------------
MAN_PAGES := $(wildcard man/*.1 man/*.3 man/*.7)
rel_to = $(shell realpath -m --relative-to='$1' '$2')
pc_path = $(patsubst $(PREFIX)/%,$${prefix}/%,$1)
PKG_SED = -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call pc_path,$(LIBDIR))|g' \
	-e 's|@INCLUDEDIR@|$(call pc_path,$(INCLUDEDIR))|g' -e 's|@VERSION@|$(VERSION)|g'
CMAKE_SED = -e 's|@PREFIX_FROM_CONFIG@|$(call rel_to,$(CMAKEDIR),$(PREFIX))|g' \
	-e 's|@LIBDIR_REL@|$(call rel_to,$(PREFIX),$(LIBDIR))|g' \
	-e 's|@INCLUDEDIR_REL@|$(call rel_to,$(PREFIX),$(INCLUDEDIR))|g' \
	-e 's|@VERSION@|$(VERSION)|g' -e 's|@SOMAJOR@|$(SOMAJOR)|g'
D := $(DESTDIR)

install: libs tools
	$(INSTALL) -d '$(D)$(INCLUDEDIR)/uslab' '$(D)$(LIBDIR)' '$(D)$(PKGCONFIGDIR)' '$(D)$(CMAKEDIR)'
	$(INSTALL) -m 644 include/uslab/*.h '$(D)$(INCLUDEDIR)/uslab/'
	@set -e; for a in $(VARIANTS); do \
		echo "  INSTALL $$a"; \
		$(INSTALL) -m 755 $(BUILD)/lib/libuslab-$$a.so.$(VERSION) '$(D)$(LIBDIR)/'; \
		ln -sf libuslab-$$a.so.$(VERSION) '$(D)$(LIBDIR)/libuslab-'$$a.so.$(SOMAJOR); \
		ln -sf libuslab-$$a.so.$(SOMAJOR) '$(D)$(LIBDIR)/libuslab-'$$a.so; \
		$(INSTALL) -m 644 $(BUILD)/lib/libuslab-$$a.a '$(D)$(LIBDIR)/'; \
		$(if $(MALLOC_SRCS),$(INSTALL) -m 755 $(BUILD)/lib/libuslab-malloc-$$a.so '$(D)$(LIBDIR)/';) \
		sed $(PKG_SED) -e "s|@NAME@|uslab-$$a|g" -e "s|@ALLOC@|$$a|g" \
			packaging/uslab.pc.in > '$(D)$(PKGCONFIGDIR)/uslab-'$$a.pc; \
	done
	$(if $(filter slub,$(VARIANTS)),sed $(PKG_SED) -e 's|@NAME@|uslab|g' -e 's|@ALLOC@|slub|g' \
		packaging/uslab.pc.in > '$(D)$(PKGCONFIGDIR)/uslab.pc')
	sed $(CMAKE_SED) packaging/uslabConfig.cmake.in > '$(D)$(CMAKEDIR)/uslabConfig.cmake'
	sed $(CMAKE_SED) packaging/uslabConfigVersion.cmake.in > '$(D)$(CMAKEDIR)/uslabConfigVersion.cmake'
	$(if $(ALL_TOOLS),$(INSTALL) -d '$(D)$(BINDIR)' && $(INSTALL) -m 755 $(ALL_TOOLS) '$(D)$(BINDIR)/')
	$(foreach m,$(MAN_PAGES),$(INSTALL) -D -m 644 $m '$(D)$(MANDIR)/man$(subst .,,$(suffix $m))/$(notdir $m)';)

-include $(ALL_OBJS:.o=.d)
-include $(sort $(wildcard mk/*.mk))
include bench/bench.mk
