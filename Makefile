# pg_gsu — PGXS build
EXTENSION = pg_gsu
EXTVERSION = 0.2.0
MODULE_big = pg_gsu

# every .c file of src/ (the PostgreSQL glue) and src/core/ (the numerical core)
CORE_SRCS = $(sort $(wildcard src/core/*.c))
CORE_OBJS = $(CORE_SRCS:.c=.o)
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c))) $(CORE_OBJS)

# the install script of this version is src/sql/*.sql concatenated in name order;
# the install scripts of released versions are frozen copies (pg_gsu--0.1.0.sql)
# and the upgrade scripts pg_gsu--A--B.sql lead from each to the next
# (docs/upgrade.md): every pg_gsu--*.sql of the tree but the built one; a
# version's own control file (pg_gsu--0.1.0.control: not trusted) goes with them
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard $(EXTENSION)--*.sql)) $(wildcard $(EXTENSION)--*.control)

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=$(EXTENSION)

# Portable by default: the .so runs on any machine of the architecture (the Debian
# package, a copy to another server, valgrind, which does not decode AVX-512).
# `make OPTFLAGS=-march=native` (and the same for `make install`) tunes the build for
# the CPU that builds it; it then may not start on an older one (SIGILL).
OPTFLAGS ?=
WARNFLAGS = -Wall -Wextra -Werror -Wshadow=compatible-local -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers
PG_CFLAGS = $(WARNFLAGS) $(OPTFLAGS) -O3 -I$(srcdir)/src
# The single-threaded OpenBLAS (Debian's libopenblas0-serial): the default alternative,
# libopenblas0-pthread, starts a thread in every backend that loads pg_gsu, with the
# backend's signal mask, so PostgreSQL's signal handlers could run on it; parallelism
# belongs to PostgreSQL's workers. Its libopenblas, liblapack and libblas are linked by
# path (needed even where no symbol is used) and found through an rpath, so the
# libblas.so.3 and liblapack.so.3 that liblapacke asks for are these, whatever the
# system's alternatives say (the two builds cannot be mixed in one process).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
OPENBLAS_SERIAL_DIR ?= /usr/lib/$(MULTIARCH)/openblas-serial
OPENBLAS_SERIAL = $(OPENBLAS_SERIAL_DIR)/libopenblas.so.0
SHLIB_LINK = -Wl,--no-as-needed $(OPENBLAS_SERIAL) $(OPENBLAS_SERIAL_DIR)/liblapack.so.3 \
	$(OPENBLAS_SERIAL_DIR)/libblas.so.3 -Wl,--as-needed -Wl,-rpath,$(OPENBLAS_SERIAL_DIR) \
	-llapacke -lfftw3 -lm


EXTRA_CLEAN = $(CORE_TESTS) test/obj test/libgsucore.a regression.diffs regression.out results tmp_check

# the TAP tests (test/t/*.pl, PostgreSQL::Test::Cluster) that `make tapcheck` runs
PROVE_TESTS ?= $(sort $(wildcard test/t/*.pl))

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild every object when a header changes
# (a struct that changed size under a stale object is a crash, not a warning)
$(OBJS): $(wildcard src/*.h src/core/*.h)

$(shlib): $(OPENBLAS_SERIAL)
$(OPENBLAS_SERIAL):
	@echo "pg_gsu links the single-threaded OpenBLAS, $@: apt-get install libopenblas0-serial" >&2
	@exit 1

$(EXTENSION)--$(EXTVERSION).sql: $(sort $(wildcard src/sql/*.sql))
	cat $^ > $@

# ---------------------------------------------------------------- core tests
# one program per test/test_*.c, each linked with the core built once for the tests
# (test/obj/*.o with CORE_CFLAGS, archived in test/libgsucore.a) instead of compiling
# all of src/core/*.c into every program; the harness and the helpers the tests share,
# test/gsu_test.c (declared in test/gsu_test.h), are compiled once beside it
CORE_TESTS = $(patsubst %.c,%,$(sort $(wildcard test/test_*.c)))
CORE_CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow=compatible-local -Isrc/core
CORE_TEST_OBJS = $(patsubst src/core/%.c,test/obj/%.o,$(CORE_SRCS))
CORE_TEST_LIB = test/libgsucore.a
CORE_TEST_LIBS = -lopenblas -llapacke -lfftw3 -lm

test/obj/%.o: src/core/%.c $(wildcard src/core/*.h)
	@mkdir -p test/obj
	$(CC) $(CORE_CFLAGS) -c -o $@ $<

$(CORE_TEST_LIB): $(CORE_TEST_OBJS)
	rm -f $@
	$(AR) crs $@ $^

test/obj/gsu_test.o: test/gsu_test.c test/gsu_test.h $(wildcard src/core/*.h)
	@mkdir -p test/obj
	$(CC) $(CORE_CFLAGS) -c -o $@ $<

test/test_%: test/test_%.c test/gsu_test.h test/obj/gsu_test.o $(CORE_TEST_LIB) $(wildcard src/core/*.h)
	$(CC) $(CORE_CFLAGS) -o $@ $< test/obj/gsu_test.o $(CORE_TEST_LIB) $(CORE_TEST_LIBS)

.PHONY: coretest valgrind-coretest
coretest: $(CORE_TESTS)
	bash test/run_core_tests.sh $(CORE_TESTS)

# two programs at a time; the longest under valgrind first, so that the two lanes end together
VALGRIND_FIRST = test/test_robust test/test_cancel
valgrind-coretest: $(CORE_TESTS)
	GSU_TEST_QUICK=1 OPENBLAS_NUM_THREADS=1 bash test/run_core_tests.sh --valgrind \
		$(VALGRIND_FIRST) $(filter-out $(VALGRIND_FIRST),$(CORE_TESTS))

# The TAP tests (test/t/*.pl): each starts clusters of its own (PostgreSQL::Test::Cluster,
# libipc-run-perl) from the PostgreSQL of PG_CONFIG, where pg_gsu must be installed; their
# data and logs go to tmp_check/. test/run_tap.sh calls prove as PGXS's prove_installcheck
# (TAP_TESTS) would, but as root (initdb refuses root) as TAP_USER from a copy under /tmp.
# PROVE_TESTS=test/t/001_cancel.pl runs one, PROVE_FLAGS=--verbose shows each test.
TAP_USER ?= postgres
.PHONY: tapcheck
tapcheck:
	PROVE_FLAGS='$(PROVE_FLAGS)' TAP_USER='$(TAP_USER)' PG_REGRESS='$(top_builddir)/src/test/regress/pg_regress' bash test/run_tap.sh '$(bindir)' '$(top_srcdir)/src/test/perl' $(PROVE_TESTS)
