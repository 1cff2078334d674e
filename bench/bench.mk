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
#    - bench-unhardened: the debug_cost program built without the default
#      hardening, under BUILD/unhardened/ (the debug-cost section);
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

# The cost of the default hardening (the debug-cost section): the debug_cost
# program once more, from a build without freelist hardening and
# randomisation, BUILD/unhardened/bench/ALLOC/debug_cost/debug_cost (its own
# build root, so that its objects and flags never mix with these).
BENCH_UNHARDENED := $(BUILD)/unhardened
BENCH_UNHARDENED_CPPFLAGS := -DCONFIG_SLAB_FREELIST_HARDENED=0 -DCONFIG_SLAB_FREELIST_RANDOM=0
BENCH_UNHARDENED_BINS := $(if $(wildcard bench/debug_cost/debug_cost.c),\
	$(foreach a,$(VARIANTS),$(BENCH_UNHARDENED)/bench/$a/debug_cost/debug_cost))

.PHONY: bench-unhardened
bench-unhardened:
	$(if $(BENCH_UNHARDENED_BINS),+$(MAKE) --no-print-directory BUILD='$(BENCH_UNHARDENED)' \
		ALLOCATORS='$(VARIANTS)' CC='$(CC)' OPT='$(OPT)' SAN= \
		CPPFLAGS='$(CPPFLAGS) $(BENCH_UNHARDENED_CPPFLAGS)' $(BENCH_UNHARDENED_BINS))

# Prerequisites only: the recipe is the Makefile's (bench/run.py).
bench: bench-setup $(BENCH_MALLOC_BINS) $(BENCH_DROPINS) bench-unhardened

override BENCH_ARGS += $(if $(filter-out 0,$(BENCH_QUICK)),--quick)
