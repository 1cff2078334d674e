# SPDX-License-Identifier: MIT
#
# bench.mk - the benchmark half of the build, included by the top-level
# Makefile after its own `bench` rule (which builds bench/DIR/NAME.c per
# allocator against libuslab-ALLOC.a and runs bench/run.py).
#
# 1. What it adds to `make bench`:
#    - bench/setup.sh: the Debian packages of the peers, valgrind, gnuplot and
#      the whole programs, installed when missing (as root);
#    - the malloc-only build of every benchmark that is marked
#      "uslab-bench: malloc" in its source: BUILD/bench/malloc/DIR/NAME,
#      compiled with -DBENCH_USLAB=0 and linked with no uslab code, which the
#      driver runs under each peer's and each uslab drop-in's LD_PRELOAD;
#    - the drop-ins BUILD/lib/libuslab-malloc-ALLOC.so themselves;
#    - bench-unhardened: libuslab-ALLOC.so built without the default
#      hardening, under BUILD/unhardened/lib/, and the default build's
#      libuslab-ALLOC.so: debug_cost/paired loads both into one process
#      (the debug-cost section);
#    - BENCH_QUICK=1: the short run (--quick) for the driver.
# 2. Variables: BENCH_QUICK=1, BENCH_ARGS (more driver options, see
#    `bench/run.py --help`, e.g. BENCH_ARGS='--only fastpath --threads 1,2,4').
# 3. Outputs of the run: docs/BENCHMARKS.md, docs/bench/*.svg, the block
#    between <!-- bench:begin --> and <!-- bench:end --> in README.md, and
#    the raw results and each failed run's output under BUILD/bench/results/.

BENCH_MALLOC_MARK := uslab-bench: malloc
BENCH_MALLOC_SRCS := $(if $(BENCH_SRCS),$(shell grep -lF '$(BENCH_MALLOC_MARK)' $(BENCH_SRCS)))
BENCH_MALLOC_BINS := $(patsubst bench/%.c,$(BUILD)/bench/malloc/%,$(BENCH_MALLOC_SRCS))
BENCH_COMMON_HDRS := $(wildcard bench/common/*.h)
BENCH_DROPINS := $(foreach a,$(VARIANTS),$(call malloc_so,$a))

.PHONY: bench-setup benches-malloc
benches-malloc: $(BENCH_MALLOC_BINS)

bench-setup:
	@bench/setup.sh

# The same flags as the uslab build of the program (so that the two builds
# differ only in what they link), and the common sources compiled along.
$(BUILD)/bench/malloc/%: bench/%.c $(BENCH_COMMON_SRCS) $(BENCH_COMMON_HDRS) $(BUILD)/obj/bench-malloc.flags
	@mkdir -p $(@D)
	$(call say,CC,malloc,$<)$(CC) $(USLAB_CPPFLAGS) -DBENCH_USLAB=0 $(CPPFLAGS) $(USLAB_CFLAGS) \
		$(CFLAGS) -o $@ $< $(BENCH_COMMON_SRCS) $(LINK_FLAGS)

$(BUILD)/obj/bench-malloc.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CPPFLAGS) $(USLAB_CFLAGS) $(CFLAGS) $(LINK_FLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(CPPFLAGS) $(USLAB_CFLAGS) $(CFLAGS) $(LINK_FLAGS)' > $@

# The cost of the default hardening (the debug-cost section): debug_cost/paired
# loads this build's libuslab-ALLOC.so and BUILD/unhardened/lib/libuslab-ALLOC.so,
# built without freelist hardening and randomisation (its own build root, so
# that its objects and flags never mix with these), into one process.
BENCH_UNHARDENED := $(BUILD)/unhardened
BENCH_UNHARDENED_CPPFLAGS := -DCONFIG_SLAB_FREELIST_HARDENED=0 -DCONFIG_SLAB_FREELIST_RANDOM=0
BENCH_PAIRED := $(wildcard bench/debug_cost/paired.c)
BENCH_PAIRED_LIBS := $(if $(BENCH_PAIRED),$(foreach a,$(VARIANTS),$(BUILD)/lib/libuslab-$a.so))
BENCH_UNHARDENED_BINS := $(if $(BENCH_PAIRED),\
	$(foreach a,$(VARIANTS),$(BENCH_UNHARDENED)/lib/libuslab-$a.so))

.PHONY: bench-unhardened
bench-unhardened:
	$(if $(BENCH_UNHARDENED_BINS),+$(MAKE) --no-print-directory BUILD='$(BENCH_UNHARDENED)' \
		ALLOCATORS='$(VARIANTS)' CC='$(CC)' OPT='$(OPT)' SAN= \
		CPPFLAGS='$(CPPFLAGS) $(BENCH_UNHARDENED_CPPFLAGS)' $(BENCH_UNHARDENED_BINS))

# debug_cost/paired dlopens its libraries and links no uslab code: only
# bench/common/bench.c and paired.c (api.c would pull in libuslab-ALLOC.a, a
# third copy whose constructors would run too).  This explicit rule wins over
# the Makefile's pattern rule for bench programs (which links every
# bench/common/*.c, paired.c included, into the others).
define bench_paired_rule
$(BUILD)/bench/$1/debug_cost/paired: $(BUILD)/obj/$1/bench/debug_cost/paired.o \
		$(call objs,$1,bench/common/bench.c bench/common/paired.c)
	@mkdir -p $$(@D)
	$$(call say,LINK,$1,$$@)$$(CC) -o $$@ $$^ -pthread $$(SAN_FLAGS) $$(LDFLAGS) -ldl
endef
$(if $(BENCH_PAIRED),$(foreach a,$(VARIANTS),$(eval $(call bench_paired_rule,$a))))

# Prerequisites only: the recipe is the Makefile's (bench/run.py).
bench: bench-setup $(BENCH_MALLOC_BINS) $(BENCH_DROPINS) $(BENCH_PAIRED_LIBS) bench-unhardened

override BENCH_ARGS += $(if $(filter-out 0,$(BENCH_QUICK)),--quick)
