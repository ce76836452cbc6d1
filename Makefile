# Builds the C library (build/libpaddle_c.so), the Python extension (in place), and the C unit
# tests, plain and with ASan/UBSan. `make test-c` runs both C test builds. The README's
# scripts call these targets; flags come from tools/buildcfg.py (shared with setup.py).
PY ?= python3
CFLAGS := $(shell $(PY) tools/buildcfg.py cflags) -Icsrc -Icsrc/api
LDFLAGS := $(shell $(PY) tools/buildcfg.py ldflags)
# the library at the x86-64-v3 baseline, plus each per-ISA kernel file once per level
# (build/obj/isa_<level>/..., functions suffixed __<level>) and the dispatch table that jumps
# to one level, chosen at load time (tools/isa_build.py, csrc/core/pd_isa.c)
SRCS := $(shell $(PY) tools/buildcfg.py baseline-sources)
ISA_SRCS := $(shell $(PY) tools/buildcfg.py isa-sources)
ISA_LEVELS := $(shell $(PY) tools/buildcfg.py isa-levels)
ISA_OBJS := $(foreach l,$(ISA_LEVELS),$(patsubst %.c,build/obj/isa_$(l)/%.o,$(ISA_SRCS)))
ASAN_ISA_OBJS := $(foreach l,$(ISA_LEVELS),$(patsubst %.c,build/asan/isa_$(l)/%.o,$(ISA_SRCS)))
OBJS := $(patsubst %.c,build/obj/%.o,$(SRCS)) $(ISA_OBJS) build/obj/pd_isa_table.o
ASAN_OBJS := $(patsubst %.c,build/asan/%.o,$(SRCS)) $(ASAN_ISA_OBJS) build/asan/pd_isa_table.o
CTESTS := $(wildcard tests/c/test_*.c)
ASAN_FLAGS := -O0 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: all lib ext gen gen-check test-c test-infer-asan clean cuda cuda-check cuda-mock-check cuda-mock-lib
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

# per-file flags (the load-time CPU check is plain x86-64)
build/obj/csrc/core/pd_isa.o build/asan/csrc/core/pd_isa.o: CFLAGS += $(shell $(PY) tools/buildcfg.py file-cflags csrc/core/pd_isa.c)

define ISA_RULES
build/obj/isa_$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $$(shell $$(PY) tools/buildcfg.py isa-cflags $(1)) -MMD -MP -c $$< -o $$@
	$$(PY) tools/isa_build.py rename $(1) $$@

build/asan/isa_$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(filter-out -O3,$$(CFLAGS)) $$(ASAN_FLAGS) $$(shell $$(PY) tools/buildcfg.py isa-cflags $(1)) -MMD -MP -c $$< -o $$@
	$$(PY) tools/isa_build.py rename $(1) $$@
endef
$(foreach l,$(ISA_LEVELS),$(eval $(call ISA_RULES,$(l))))

build/obj/pd_isa_table.c: $(ISA_OBJS)
	$(PY) tools/isa_build.py table $@ build/obj
build/asan/pd_isa_table.c: $(ASAN_ISA_OBJS)
	$(PY) tools/isa_build.py table $@ build/asan
build/obj/pd_isa_table.o: build/obj/pd_isa_table.c
	$(CC) $(CFLAGS) -c $< -o $@
build/asan/pd_isa_table.o: build/asan/pd_isa_table.c
	$(CC) $(filter-out -O3,$(CFLAGS)) $(ASAN_FLAGS) -c $< -o $@

# header dependencies (a changed generated header rebuilds what includes it)
-include $(filter-out %pd_isa_table.d,$(OBJS:.o=.d) $(ASAN_OBJS:.o=.d))

lib: build/libpaddle_c.so
build/libpaddle_c.so: $(OBJS)
	$(CC) -shared -o $@ $(OBJS) $(LDFLAGS)

# the C inference library alone (setup.py also builds it into python/paddle/libs): PD_* only
lib: build/libpaddle_inference_c.so
build/libpaddle_inference_c.so: $(OBJS)
	@printf '{ global: PD_*; local: *; };\n' > build/paddle_inference_c.map
	$(CC) -shared -o $@ $(OBJS) $(LDFLAGS) -Wl,--version-script=build/paddle_inference_c.map -Wl,-soname,libpaddle_inference_c.so

# the C API driver (tests/c/infer_check.c) under ASan/UBSan: bad input and a bounded fuzz on a
# fixture model (FIXTURES: ../shared/fixtures/paddle_models)
FIXTURES ?= ../shared/fixtures/paddle_models
test-infer-asan: build/tests-asan/infer_check
	@m=$(FIXTURES)/ppocr_mobile_v2_cls/inference; \
	  PADDLE_C_ALLOC_PASSTHROUGH=1 ASAN_OPTIONS=detect_leaks=1 OMP_NUM_THREADS=1 build/tests-asan/infer_check errors $$m.pdmodel $$m.pdiparams > /dev/null && \
	  PADDLE_C_ALLOC_PASSTHROUGH=1 ASAN_OPTIONS=detect_leaks=1 OMP_NUM_THREADS=1 build/tests-asan/infer_check fuzz $$m.pdmodel $$m.pdiparams 2 30 && \
	  echo "infer_check errors + fuzz: clean under ASan/UBSan"

ext:
	$(PY) setup.py build_ext --inplace -q -j 2

# The CUDA backend alone (setup.py's build_ext also builds it, where nvcc is found):
# csrc/cuda/*.cu -> python/paddle/libs/libpaddle_c_cuda.so (objects in build/cuda/; tools/buildcfg.py build_cuda)
cuda:
	$(PY) tools/buildcfg.py cuda-lib python/paddle/libs/libpaddle_c_cuda.so 2

# The runtime family's check on a GPU (tests/cuda/rt_check.c): plain C linked against nothing but
# libdl; it dlopen's the library. Run `build/cuda/rt_check [lib]` on a GPU machine (prints
# "no GPU: skipped" and exits 0 without one).
cuda-check: build/cuda/rt_check
build/cuda/rt_check: tests/cuda/rt_check.c csrc/cuda/pd_cuda_api.h
	@mkdir -p build/cuda
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -Icsrc/cuda $< -o $@ -ldl

# The same check without a GPU: runtime.cu compiled by g++ against a host-only stand-in for the
# CUDA runtime (tests/cuda/mock/cuda_runtime.h), both under ASan/UBSan: the allocator's
# split/merge/stats bookkeeping, the pinned cache, the error paths. Not a test of CUDA itself.
MOCK_SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
cuda-mock-check: build/cuda/mock/rt_check
	@ASAN_OPTIONS=detect_leaks=0 build/cuda/mock/rt_check build/cuda/mock/libpaddle_c_cuda.so
	@MOCK_CUDA_DEVICES=0 ASAN_OPTIONS=detect_leaks=0 build/cuda/mock/rt_check build/cuda/mock/libpaddle_c_cuda.so
build/cuda/mock/rt_check: tests/cuda/rt_check.c csrc/cuda/runtime.cu csrc/cuda/api.cu tests/cuda/mock/tables.cc tests/cuda/mock/cuda_runtime.h csrc/cuda/pd_cuda_api.h csrc/cuda/rt_internal.h
	@mkdir -p build/cuda/mock
	g++ -std=c++17 $(MOCK_SAN) -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror -Itests/cuda/mock -Icsrc/cuda \
	  -x c++ csrc/cuda/runtime.cu csrc/cuda/api.cu tests/cuda/mock/tables.cc -o build/cuda/mock/libpaddle_c_cuda.so
	$(CC) -std=c11 $(MOCK_SAN) -Wall -Wextra -Werror -Icsrc/cuda $< -o $@ -ldl

# The same stand-in as a plain (unsanitised) library: paddle._C loads it with PADDLE_C_CUDA_LIB and
# sees one fake GPU whose memory is host memory and which has no kernels, so every GPU op takes
# the host fallback: the routing, copies, autograd and Python surface of the CUDA backend run on a
# CPU machine (tests/python/test_cuda_mock.py).
cuda-mock-lib: build/cuda/mockrel/libpaddle_c_cuda.so
build/cuda/mockrel/libpaddle_c_cuda.so: csrc/cuda/runtime.cu csrc/cuda/api.cu tests/cuda/mock/tables.cc tests/cuda/mock/cuda_runtime.h csrc/cuda/pd_cuda_api.h csrc/cuda/rt_internal.h
	@mkdir -p build/cuda/mockrel
	g++ -std=c++17 -O1 -fPIC -shared -fvisibility=hidden -Wall -Wextra -Werror -Itests/cuda/mock -Icsrc/cuda \
	  -x c++ csrc/cuda/runtime.cu csrc/cuda/api.cu tests/cuda/mock/tables.cc -o $@

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
