# Builds the C library (build/libpaddle_c.so), the Python extension (in place), and the C unit
# tests, plain and with ASan/UBSan. `make test-c` runs both C test builds. The README's
# scripts call these targets; flags come from tools/buildcfg.py (shared with setup.py).
PY ?= python3
CFLAGS := $(shell $(PY) tools/buildcfg.py cflags) -Icsrc
LDFLAGS := $(shell $(PY) tools/buildcfg.py ldflags)
SRCS := $(shell $(PY) tools/buildcfg.py sources)
OBJS := $(patsubst %.c,build/obj/%.o,$(SRCS))
ASAN_OBJS := $(patsubst %.c,build/asan/%.o,$(SRCS))
CTESTS := $(wildcard tests/c/test_*.c)
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: all lib ext gen gen-check test-c clean
.SECONDARY:
all: lib ext

gen:
	$(PY) tools/opgen/gen.py
	$(PY) tools/protogen.py

gen-check:
	$(PY) tools/opgen/gen.py --check
	$(PY) tools/protogen.py --check

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -O3,$(CFLAGS)) $(ASAN_FLAGS) -MMD -MP -c $< -o $@

# header dependencies (a changed generated header rebuilds what includes it)
-include $(OBJS:.o=.d) $(ASAN_OBJS:.o=.d)

lib: build/libpaddle_c.so
build/libpaddle_c.so: $(OBJS)
	$(CC) -shared -o $@ $(OBJS) $(LDFLAGS)

ext:
	$(PY) setup.py build_ext --inplace -q -j 2

build/tests/%: tests/c/%.c $(OBJS) tests/c/pd_test.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS) $< $(OBJS) -o $@ $(LDFLAGS)

build/tests-asan/%: tests/c/%.c $(ASAN_OBJS) tests/c/pd_test.h
	@mkdir -p build/tests-asan
	$(CC) $(filter-out -O3,$(CFLAGS)) $(ASAN_FLAGS) $< $(ASAN_OBJS) -o $@ $(LDFLAGS)

test-c: $(patsubst tests/c/%.c,build/tests/%,$(CTESTS)) $(patsubst tests/c/%.c,build/tests-asan/%,$(CTESTS))
	@set -e; for t in $(patsubst tests/c/%.c,build/tests/%,$(CTESTS)); do echo "== $$t"; OMP_NUM_THREADS=2 $$t; done
	@set -e; for t in $(patsubst tests/c/%.c,build/tests-asan/%,$(CTESTS)); do echo "== $$t (asan+ubsan)"; \
	  PADDLE_C_ALLOC_PASSTHROUGH=1 ASAN_OPTIONS=detect_leaks=1 OMP_NUM_THREADS=1 $$t; done

clean:
	rm -rf build python/paddle/_C*.so
