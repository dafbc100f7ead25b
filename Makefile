# pg_gsu — PGXS build
EXTENSION = pg_gsu
EXTVERSION = 0.1.0
MODULE_big = pg_gsu

CORE_OBJS = src/core/gsu_loss.o src/core/gsu_objective.o src/core/gsu_solve.o src/core/gsu_polish.o
OBJS = src/pg_gsu.o src/gsu_json.o src/gsu_model.o src/gsu_train.o src/gsu_score.o \
	$(CORE_OBJS)

DATA = $(EXTENSION)--$(EXTVERSION).sql $(filter-out $(EXTENSION)--$(EXTVERSION).sql,$(wildcard $(EXTENSION)--*--*.sql))

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=$(EXTENSION)

# OPTFLAGS="" gives a portable build (no -march=native)
OPTFLAGS ?= -march=native
WARNFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers
PG_CFLAGS = $(WARNFLAGS) $(OPTFLAGS) -O3 -I$(srcdir)/src
SHLIB_LINK = -lopenblas -llapacke -lm

EXTRA_CLEAN = test/test_core regression.diffs regression.out results

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# ---------------------------------------------------------------- core tests
CORE_SRCS = $(CORE_OBJS:.o=.c)
CORE_CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -Isrc/core

test/test_core: test/test_core.c $(CORE_SRCS) src/core/gsu_core.h src/core/gsu_objective.h
	$(CC) $(CORE_CFLAGS) -o $@ test/test_core.c $(CORE_SRCS) -lopenblas -llapacke -lm

.PHONY: coretest valgrind-coretest
coretest: test/test_core
	./test/test_core

valgrind-coretest: test/test_core
	GSU_TEST_QUICK=1 OPENBLAS_NUM_THREADS=1 valgrind --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --quiet ./test/test_core
