/* Checks the runtime family of libpaddle_c_cuda.so (pd_cuda_api.h's pd_cuda_runtime) on a real
 * GPU, from plain C through dlopen, as paddle._C sees it. Build: `make cuda-check` (links nothing
 * but libdl). Run: build/cuda/rt_check [path/to/libpaddle_c_cuda.so]
 * (default $PADDLE_C_CUDA_LIB, else python/paddle/libs/libpaddle_c_cuda.so).
 * One PASS/FAIL line per check; exit status 1 on any failure; "no GPU: skipped" and 0 without one. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_cuda_api.h"

static int n_fail = 0;
static const pd_cuda_runtime *rt;

static void report(int ok, const char *name, const char *detail) {
  printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name, detail && *detail ? ": " : "", detail ? detail : "");
  if (!ok) n_fail++;
}

#define EXPECT(cond, ...)                                   \
  do {                                                      \
    if (!(cond)) {                                          \
      snprintf(why, sizeof why, __VA_ARGS__);               \
      goto done;                                            \
    }                                                       \
  } while (0)
#define CHECK_RT(call) EXPECT((call) == 0, "%s failed: %s", #call, rt->last_error())

static unsigned long long rng = 88172645463325252ull;
static unsigned char rand_byte(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned char)(rng >> 24);
}

static pd_cuda_mem_stats stats(void) {
  pd_cuda_mem_stats s;
  memset(&s, 0, sizeof s);
  if (rt->mem_stats(0, &s)) printf("     (mem_stats failed: %s)\n", rt->last_error());
  return s;
}

static void check_table(void) {
  char why[256] = "";
  void *slots[sizeof(pd_cuda_runtime) / sizeof(void *)];
  memcpy(slots, rt, sizeof slots);
  for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
    EXPECT(slots[i] != NULL, "function pointer %zu of pd_cuda_runtime is NULL", i);
done:
  report(!why[0], "table: every pd_cuda_runtime entry is set", why);
}

static void check_props(void) {
  char why[256] = "";
  pd_cuda_props p;
  int drv = 0, run = 0;
  CHECK_RT(rt->set_device(0));
  EXPECT(rt->get_device() == 0, "get_device() = %d after set_device(0)", rt->get_device());
  CHECK_RT(rt->get_props(0, &p));
  EXPECT(p.name[0] != 0, "empty name");
  EXPECT(p.major >= 1 && p.multi_processor_count > 0 && p.total_memory > ((size_t)1 << 30) && p.warp_size == 32,
         "implausible: cc %d.%d, %d SMs, %zu bytes, warp %d", p.major, p.minor, p.multi_processor_count,
         p.total_memory, p.warp_size);
  EXPECT(p.l2_cache_size > 0 && p.max_threads_per_multi_processor > 0 && p.shared_mem_per_block_optin >= 48 * 1024,
         "implausible: L2 %d, threads/SM %d, smem optin %zu", p.l2_cache_size, p.max_threads_per_multi_processor,
         p.shared_mem_per_block_optin);
  CHECK_RT(rt->versions(&drv, &run));
  EXPECT(drv >= 12000 && run >= 12000 && run % 10 == 0, "versions driver %d runtime %d", drv, run);
  EXPECT(rt->set_device(rt->device_count()) == -1 && rt->last_error_code() == PD_CU_ERR_NO_DEVICE,
         "set_device(count) did not fail with PD_CU_ERR_NO_DEVICE");
  printf("     %s, cc %d.%d, %d SMs, %.1f GiB, L2 %d KiB, driver %d, runtime %d\n", p.name, p.major, p.minor,
         p.multi_processor_count, (double)p.total_memory / (1 << 30), p.l2_cache_size / 1024, drv, run);
done:
  report(!why[0], "props / devices / versions", why);
}

static void check_reuse(void) {
  char why[256] = "";
  void *a = rt->alloc(0, 1000), *b = NULL, *z1 = NULL, *z2 = NULL;
  EXPECT(a != NULL, "alloc(1000): %s", rt->last_error());
  EXPECT(((size_t)a & 511) == 0, "alloc(1000) = %p is not 512-byte aligned", a);
  rt->free(0, a);
  b = rt->alloc(0, 1000);
  EXPECT(b == a, "alloc after free gave %p, not the freed %p", b, a);
  z1 = rt->alloc(0, 0);
  z2 = rt->alloc(0, 0);
  EXPECT(z1 && z2 && z1 != z2 && z1 != b && z2 != b, "alloc(0) twice: %p %p (other %p)", z1, z2, b);
  rt->free(0, NULL); /* a no-op */
done:
  if (b) rt->free(0, b);
  if (z1) rt->free(0, z1);
  if (z2) rt->free(0, z2);
  report(!why[0], "alloc/free: the same block back for the same size; alloc(0) unique", why);
}

static void check_split_merge(void) {
  char why[256] = "";
  const size_t k = 256 * 1024;
  void *p[3] = {NULL, NULL, NULL}, *all = NULL;
  pd_cuda_mem_stats s0, s1, s2, s3;
  CHECK_RT(rt->empty_cache());
  s0 = stats();
  EXPECT(s0.reserved == s0.allocated, "after empty_cache: %zu reserved, %zu allocated", s0.reserved, s0.allocated);
  for (int i = 0; i < 3; i++) {
    p[i] = rt->alloc(0, k);
    EXPECT(p[i] != NULL, "alloc(256 KiB): %s", rt->last_error());
  }
  s1 = stats();
  EXPECT(s1.n_device_allocs == s0.n_device_allocs + 1, "three 256 KiB blocks took %llu cudaMallocs",
         (unsigned long long)(s1.n_device_allocs - s0.n_device_allocs));
  EXPECT((char *)p[1] == (char *)p[0] + k && (char *)p[2] == (char *)p[1] + k, "not neighbours: %p %p %p", p[0], p[1],
         p[2]);
  EXPECT(s1.reserved - s0.reserved == ((size_t)2 << 20), "a small request reserved %zu bytes, not a 2 MiB chunk",
         s1.reserved - s0.reserved);
  rt->free(0, p[1]); /* middle first: then the left merges right, the right merges left */
  rt->free(0, p[0]);
  rt->free(0, p[2]);
  p[0] = p[1] = p[2] = NULL;
  s2 = stats();
  EXPECT(s2.allocated == s0.allocated, "allocated %zu after freeing all, was %zu", s2.allocated, s0.allocated);
  all = rt->alloc(0, 2 * 1024 * 1024); /* the whole chunk: only possible when all merged back */
  EXPECT(all != NULL, "alloc(2 MiB): %s", rt->last_error());
  s3 = stats();
  EXPECT(s3.n_device_allocs == s1.n_device_allocs, "the merged chunk was not reused (%llu new cudaMallocs)",
         (unsigned long long)(s3.n_device_allocs - s1.n_device_allocs));
  EXPECT(s3.reserved == s1.reserved, "reserved grew from %zu to %zu", s1.reserved, s3.reserved);
done:
  for (int i = 0; i < 3; i++)
    if (p[i]) rt->free(0, p[i]);
  if (all) rt->free(0, all);
  report(!why[0], "split / merge: three neighbours freed make one chunk again", why);
}

static void check_stats(void) {
  char why[256] = "";
  void *a = NULL, *b = NULL;
  pd_cuda_mem_stats s0, s1, s2, s3, s4;
  const size_t big = (size_t)5 << 20; /* a large request: its own chunk, rounded to 6 MiB */
  CHECK_RT(rt->empty_cache());
  rt->reset_peak(0);
  s0 = stats();
  EXPECT(s0.max_allocated == s0.allocated && s0.max_reserved == s0.reserved, "reset_peak left peaks %zu/%zu above %zu/%zu",
         s0.max_allocated, s0.max_reserved, s0.allocated, s0.reserved);
  a = rt->alloc(0, 1000);
  b = rt->alloc(0, big + 1);
  EXPECT(a && b, "alloc: %s", rt->last_error());
  s1 = stats();
  EXPECT(s1.allocated - s0.allocated == 1024 + big + 512, "allocated grew by %zu, expected %zu (1000 -> 1024, 5 MiB + 1 -> +512)",
         s1.allocated - s0.allocated, (size_t)1024 + big + 512);
  EXPECT(s1.reserved - s0.reserved == ((size_t)2 << 20) + ((size_t)6 << 20), "reserved grew by %zu, expected 8 MiB",
         s1.reserved - s0.reserved);
  EXPECT(s1.max_allocated == s1.allocated && s1.max_reserved == s1.reserved, "peaks not updated");
  EXPECT(s1.n_device_allocs == s0.n_device_allocs + 2, "%llu cudaMallocs, expected 2",
         (unsigned long long)(s1.n_device_allocs - s0.n_device_allocs));
  rt->free(0, b);
  b = NULL;
  s2 = stats();
  EXPECT(s2.allocated == s0.allocated + 1024 && s2.reserved == s1.reserved && s2.max_allocated == s1.max_allocated,
         "after free: allocated %zu reserved %zu max %zu", s2.allocated, s2.reserved, s2.max_allocated);
  rt->reset_peak(0);
  s3 = stats();
  EXPECT(s3.max_allocated == s3.allocated, "reset_peak: max %zu, allocated %zu", s3.max_allocated, s3.allocated);
  CHECK_RT(rt->empty_cache()); /* the 6 MiB chunk goes back, the 2 MiB one holds `a` */
  s4 = stats();
  EXPECT(s4.reserved == s0.reserved + ((size_t)2 << 20), "empty_cache left %zu reserved, expected %zu", s4.reserved,
         s0.reserved + ((size_t)2 << 20));
done:
  if (a) rt->free(0, a);
  if (b) rt->free(0, b);
  report(!why[0], "stats: allocated / reserved / peaks / n_device_allocs / empty_cache", why);
}

/* Random allocs and frees with every live block filled with its own byte: no two live blocks
 * overlap (the bytes survive), the stats add up, and everything merges back into whole chunks. */
static void check_random(void) {
  char why[256] = "";
  enum { SLOTS = 24, OPS = 600 };
  void *p[SLOTS] = {0};
  size_t sz[SLOTS] = {0}, live = 0;
  unsigned char *buf = malloc((size_t)3 << 20);
  pd_cuda_mem_stats s0, s1, s2;
  EXPECT(buf != NULL, "malloc");
  CHECK_RT(rt->empty_cache());
  s0 = stats();
  for (int op = 0; op < OPS; op++) {
    int i = rand_byte() % SLOTS;
    if (p[i]) {
      rt->free(0, p[i]);
      live -= (sz[i] + 511) / 512 * 512 + (sz[i] == 0 ? 512 : 0);
      p[i] = NULL;
      continue;
    }
    unsigned r = rand_byte();
    sz[i] = r < 20 ? 0 : r < 200 ? (size_t)(rand_byte() * 37) : r < 250 ? ((size_t)rand_byte() << 10) : ((size_t)rand_byte() << 13);
    p[i] = rt->alloc(0, sz[i]);
    EXPECT(p[i] != NULL, "alloc(%zu): %s", sz[i], rt->last_error());
    live += (sz[i] + 511) / 512 * 512 + (sz[i] == 0 ? 512 : 0);
    if (sz[i]) CHECK_RT(rt->memset(p[i], i + 1, sz[i]));
    s1 = stats();
    EXPECT(s1.allocated - s0.allocated == live, "op %d: allocated %zu, expected %zu", op, s1.allocated - s0.allocated, live);
    EXPECT(s1.reserved >= s1.allocated && s1.max_allocated >= s1.allocated, "op %d: reserved %zu < allocated %zu", op,
           s1.reserved, s1.allocated);
  }
  for (int i = 0; i < SLOTS; i++) {
    if (!p[i] || !sz[i]) continue;
    CHECK_RT(rt->memcpy(buf, p[i], sz[i], PD_CU_D2H));
    for (size_t k = 0; k < sz[i]; k++) EXPECT(buf[k] == i + 1, "block %d (%zu bytes) byte %zu is %u: overwritten", i, sz[i], k, buf[k]);
  }
  for (int i = 0; i < SLOTS; i++)
    if (p[i]) rt->free(0, p[i]), p[i] = NULL;
  s2 = stats();
  EXPECT(s2.allocated == s0.allocated, "allocated %zu after freeing everything, was %zu", s2.allocated, s0.allocated);
  CHECK_RT(rt->empty_cache());
  s2 = stats();
  EXPECT(s2.reserved == s0.reserved, "empty_cache kept %zu bytes (chunks that did not merge back whole)", s2.reserved - s0.reserved);
done:
  for (int i = 0; i < SLOTS; i++)
    if (p[i]) rt->free(0, p[i]);
  free(buf);
  report(!why[0], "random alloc/free: no overlap, stats add up, chunks merge back whole", why);
}

static void check_copies(int pinned_src) {
  char why[256] = "";
  const size_t n = ((size_t)3 << 20) + 77; /* odd size */
  unsigned char *h = NULL, *back = NULL, *ref = malloc(n);
  void *d = NULL, *d2 = NULL;
  if (pinned_src) {
    h = rt->host_alloc(n);
    back = rt->host_alloc(n);
  } else {
    h = malloc(n);
    back = malloc(n);
  }
  EXPECT(h && back && ref, "host buffers: %s", rt->last_error());
  for (size_t i = 0; i < n; i++) ref[i] = h[i] = rand_byte();
  d = rt->alloc(0, n);
  d2 = rt->alloc(0, n);
  EXPECT(d && d2, "alloc: %s", rt->last_error());
  CHECK_RT(rt->memcpy(d, h, n, PD_CU_H2D));
  if (pinned_src) CHECK_RT(rt->stream_sync(rt->current_stream(0))); /* pinned: asynchronous */
  memset(h, 0xAB, n); /* pageable: the source may be reused as soon as memcpy returned */
  memset(back, 0, n);
  CHECK_RT(rt->memcpy(back, d, n, PD_CU_D2H)); /* waits for the stream */
  for (size_t i = 0; i < n; i++) EXPECT(back[i] == ref[i], "H2D/D2H: byte %zu is %u, expected %u", i, back[i], ref[i]);
  /* memset (async) then an offset D2D (async) then D2H */
  CHECK_RT(rt->memset(d2, 0x5A, n));
  CHECK_RT(rt->memcpy((char *)d2 + 1, (char *)d + 3, n - 1000, PD_CU_D2D));
  CHECK_RT(rt->memcpy(back, d2, n, PD_CU_D2H));
  EXPECT(back[0] == 0x5A, "memset: byte 0 is %u", back[0]);
  for (size_t i = 0; i < n - 1000; i++) EXPECT(back[i + 1] == ref[i + 3], "D2D: byte %zu", i + 1);
  for (size_t i = n - 999; i < n; i++) EXPECT(back[i] == 0x5A, "memset tail: byte %zu is %u", i, back[i]);
  CHECK_RT(rt->memcpy(h, back, 64, PD_CU_H2H));
  EXPECT(memcmp(h, back, 64) == 0, "H2H copy differs");
  EXPECT(rt->memcpy(back, d, 16, 99) == -1 && rt->last_error_code() == PD_CU_ERR_INVALID, "memcpy kind 99 accepted");
  CHECK_RT(rt->check(1));
done:
  if (d) rt->free(0, d);
  if (d2) rt->free(0, d2);
  if (pinned_src) {
    rt->host_free(h);
    rt->host_free(back);
  } else {
    free(h);
    free(back);
  }
  free(ref);
  report(!why[0], pinned_src ? "copies: H2D / D2H / D2D / H2H / memset, pinned host memory"
                             : "copies: H2D / D2H / D2D / H2H / memset, pageable host memory", why);
}

static void check_pinned_cache(void) {
  char why[256] = "";
  void *a = rt->host_alloc(100000), *b = NULL;
  EXPECT(a != NULL, "host_alloc: %s", rt->last_error());
  rt->host_free(a);
  CHECK_RT(rt->device_sync()); /* the free's event completes */
  b = rt->host_alloc(120000);  /* same power-of-two bucket (128 KiB) */
  EXPECT(b == a, "host_alloc after host_free gave %p, not the cached %p", b, a);
done:
  if (b) rt->host_free(b);
  report(!why[0], "pinned cache: a freed block comes back for the same bucket", why);
}

static void check_streams_events(void) {
  char why[256] = "";
  void *s = NULL, *e0 = NULL, *e1 = NULL, *e2 = NULL, *d = NULL;
  const size_t n = (size_t)256 << 20;
  float ms = -1.f;
  s = rt->stream_create(0, 0);
  e0 = rt->event_create(1, 0, 0);
  e1 = rt->event_create(1, 1, 0);
  e2 = rt->event_create(0, 0, 0);
  EXPECT(s && e0 && e1 && e2, "create: %s", rt->last_error());
  d = rt->alloc(0, n);
  EXPECT(d, "alloc: %s", rt->last_error());
  EXPECT(rt->current_stream(0) == NULL, "the initial current stream is %p, not NULL", rt->current_stream(0));
  CHECK_RT(rt->set_current_stream(0, s));
  EXPECT(rt->current_stream(0) == s, "set_current_stream did not stick");
  CHECK_RT(rt->event_record(e0, s));
  for (int i = 0; i < 8; i++) CHECK_RT(rt->memset(d, i, n)); /* runs on s, the current stream */
  CHECK_RT(rt->event_record(e1, s));
  CHECK_RT(rt->stream_wait_event(NULL, e1));
  CHECK_RT(rt->event_record(e2, NULL));
  CHECK_RT(rt->event_sync(e1));
  EXPECT(rt->event_query(e1) == 1, "event_query after event_sync: %d", rt->event_query(e1));
  CHECK_RT(rt->stream_sync(NULL));
  EXPECT(rt->event_query(e2) == 1, "event on the waiting default stream not done");
  EXPECT(rt->stream_query(s) == 1, "stream_query after sync: %d", rt->stream_query(s));
  CHECK_RT(rt->event_elapsed_ms(e0, e1, &ms));
  EXPECT(ms > 0.f && ms < 10000.f, "elapsed %.3f ms for 2 GiB of memset", ms);
  printf("     8 x memset of 256 MiB: %.3f ms (%.0f GB/s)\n", ms, 8.0 * (double)n / (ms * 1e-3) / 1e9);
  EXPECT(rt->event_elapsed_ms(e0, e2, &ms) == -1, "elapsed time with a non-timing event succeeded");
  CHECK_RT(rt->set_current_stream(0, NULL));
  CHECK_RT(rt->check(1));
done:
  if (d) rt->free(0, d);
  rt->set_current_stream(0, NULL);
  if (e0) rt->event_destroy(e0);
  if (e1) rt->event_destroy(e1);
  if (e2) rt->event_destroy(e2);
  if (s) rt->stream_destroy(s);
  report(!why[0], "streams and events: record / wait / sync / query / elapsed", why);
}

static void check_oom(void) {
  char why[512] = "";
  const size_t tib = (size_t)1 << 40;
  void *p = rt->alloc(0, tib), *q = NULL;
  const char *msg;
  EXPECT(p == NULL, "alloc(1 TiB) returned %p", p);
  EXPECT(rt->last_error_code() == PD_CU_ERR_OOM, "code %d, expected PD_CU_ERR_OOM", rt->last_error_code());
  msg = rt->last_error();
  printf("     %s\n", msg);
  EXPECT(strstr(msg, "out of memory on GPU 0") && strstr(msg, "1024.00 GiB") && strstr(msg, "1099511627776"),
         "message does not name the GPU and the size: %s", msg);
  EXPECT(strstr(msg, "allocated") && strstr(msg, "reserved") && strstr(msg, "cached"), "message lacks the stats: %s", msg);
  CHECK_RT(rt->check(0)); /* the failed cudaMalloc left no error behind for the next launch check */
  q = rt->alloc(0, 4096);
  EXPECT(q != NULL, "a normal alloc after the OOM failed: %s", rt->last_error());
done:
  if (q) rt->free(0, q);
  report(!why[0], "out of memory: 1 TiB -> NULL, PD_CU_ERR_OOM, a message naming it; then alloc works", why);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : getenv("PADDLE_C_CUDA_LIB");
  if (!path || !*path) path = "python/paddle/libs/libpaddle_c_cuda.so";
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("FAIL dlopen %s: %s\n", path, dlerror());
    return 1;
  }
  pd_cuda_get_api_fn get = NULL;
  void *sym = dlsym(lib, "pd_cuda_get_api");
  memcpy(&get, &sym, sizeof get);
  if (!get) {
    printf("FAIL pd_cuda_get_api not exported by %s\n", path);
    return 1;
  }
  const pd_cuda_api *api = get();
  if (!api || api->version != PD_CUDA_API_VERSION || api->max_dims != PD_CUDA_MAX_DIMS || !api->rt) {
    printf("FAIL pd_cuda_get_api: version %d max_dims %d rt %p\n", api ? api->version : -1, api ? api->max_dims : -1,
           api ? (const void *)api->rt : NULL);
    return 1;
  }
  rt = api->rt;
  check_table();
  int n = rt->device_count();
  if (n <= 0) {
    printf("no GPU: skipped\n");
    return n_fail ? 1 : 0;
  }
  printf("     %d GPU(s)\n", n);
  check_props();
  check_reuse();
  check_split_merge();
  check_stats();
  check_random();
  check_copies(0);
  check_copies(1);
  check_pinned_cache();
  check_streams_events();
  check_oom();
  printf("%s: %d check(s) failed\n", n_fail ? "FAIL" : "PASS", n_fail);
  return n_fail ? 1 : 0;
}
