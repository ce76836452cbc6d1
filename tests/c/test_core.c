/* C unit tests of the core: float16/bfloat16 conversions against independent references
 * (the compiler's _Float16, exhaustive nearest-value search for bfloat16), the caching
 * allocator, tensors/views/copies, the broadcast iterator, errors, and the op runner. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/pd_alloc.h"
#include "core/pd_iter.h"
#include "core/pd_random.h"
#include "ops/generated/pd_ops_gen.h"
#include "pd_test.h"

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static void test_f16_roundtrip_all(void) {
  /* every half value converts to float exactly as the compiler's _Float16 does, and back */
  for (uint32_t h = 0; h < 65536; h++) {
    pd_float16 v = {(uint16_t)h};
    _Float16 ref;
    memcpy(&ref, &v, 2);
    float f = pd_f16_to_f32(v);
    if (isnan((float)ref)) {
      CHECK(isnan(f));
      continue;
    }
    CHECK(f2u(f) == f2u((float)ref));
    CHECK(pd_f32_to_f16(f).x == h);
  }
}

static void test_f32_to_f16_rounding(void) {
  /* random floats across the half range (incl. subnormals, overflow) vs the compiler */
  uint64_t key, ctr;
  pd_random_seed(7);
  pd_random_reserve_seeded(0, &key, &ctr);
  for (uint64_t i = 0; i < (1 << 16); i++) {
    uint32_t r[4];
    pd_philox(key, ctr + i, r);
    uint32_t exp = 100 + r[1] % 50; /* 2^-27 .. 2^22 */
    float f = u2f((r[0] & 0x807fffffu) | (exp << 23));
    _Float16 ref = (_Float16)f;
    pd_float16 got = pd_f32_to_f16(f);
    uint16_t refbits;
    memcpy(&refbits, &ref, 2);
    CHECK(got.x == refbits);
  }
  CHECK(pd_f32_to_f16(INFINITY).x == 0x7c00);
  CHECK(pd_f32_to_f16(-INFINITY).x == 0xfc00);
  CHECK((pd_f32_to_f16(NAN).x & 0x7c00) == 0x7c00 && (pd_f32_to_f16(NAN).x & 0x3ff) != 0);
  CHECK(pd_f32_to_f16(65520.0f).x == 0x7c00); /* rounds to inf */
  CHECK(pd_f32_to_f16(65519.0f).x == 0x7bff);
}

static void test_f64_to_f16_no_double_rounding(void) {
  /* 1 + 2^-11 + 2^-40 lies just above the half-way point between two halves: correct rounding
   * goes up; rounding through float first would land exactly on the tie and go to even (down) */
  double d = 1.0 + ldexp(1.0, -11) + ldexp(1.0, -40);
  CHECK(pd_f64_to_f16(d).x == 0x3c01);
  CHECK(pd_f32_to_f16((float)d).x == 0x3c00);
  _Float16 ref = (_Float16)d;
  uint16_t rb;
  memcpy(&rb, &ref, 2);
  CHECK(pd_f64_to_f16(d).x == rb);
}

static void test_bf16_rounding(void) {
  pd_random_seed(11);
  uint64_t key, ctr;
  pd_random_reserve_seeded(0, &key, &ctr);
  for (uint64_t i = 0; i < (1 << 16); i++) {
    uint32_t r[4];
    pd_philox(key, ctr + i, r);
    float f = u2f(r[0]);
    if (isnan(f)) {
      CHECK(isnan(pd_bf16_to_f32(pd_f32_to_bf16(f))));
      continue;
    }
    /* reference: the nearer of the two neighbouring bf16 values, ties to even */
    uint32_t lo = r[0] & 0xffff0000u, hi = lo + 0x10000u;
    if ((lo & 0x7f800000u) == 0x7f800000u) continue; /* already inf/nan range */
    /* past the largest finite value, the next step up is 2^128 in magnitude (rounds to inf) */
    double vhi = isinf(u2f(hi)) ? copysign(ldexp(1.0, 128), (double)f) : (double)u2f(hi);
    double dl = fabs((double)f - (double)u2f(lo)), dh = fabs(vhi - (double)f);
    uint32_t want = (dl < dh || (dl == dh && ((lo >> 16) & 1) == 0)) ? lo : hi;
    CHECK(pd_f32_to_bf16(f).x == (uint16_t)(want >> 16));
  }
  CHECK(pd_bf16_to_f32(pd_f32_to_bf16(1.0f)) == 1.0f);
  CHECK(isinf(pd_bf16_to_f32(pd_f32_to_bf16(INFINITY))));
}

static void test_alloc_caching_and_alignment(void) {
  pd_alloc_stats a, b;
  pd_alloc_get_stats(&a);
  void *p = pd_alloc(1000);
  CHECK(p && ((uintptr_t)p % 64) == 0);
  CHECK(pd_alloc_size(p) >= 1000);
  pd_free(p);
  void *q = pd_alloc(1000);
  pd_alloc_get_stats(&b);
  if (!getenv("PADDLE_C_ALLOC_PASSTHROUGH")) {
    CHECK(q == p); /* served from the free list */
    CHECK(b.n_cache_hit >= a.n_cache_hit + 1);
  }
  CHECK(b.n_live_blocks == a.n_live_blocks + 1);
  pd_free(q);
  void *z = pd_alloc(0);
  CHECK(z != NULL);
  pd_free(z);
  void *big = pd_alloc((size_t)8 << 20);
  CHECK(big && ((uintptr_t)big % 64) == 0);
  memset(big, 1, (size_t)8 << 20);
  pd_free(big);
  pd_alloc_get_stats(&b);
  CHECK(b.in_use_bytes == a.in_use_bytes);
}

/* a large block (>= 64 KB) goes back to the thread that freed it, where one is among the first few
 * cached blocks of its size (its lines are in that core's caches); small blocks stay LIFO */
static pthread_barrier_t g_bar;
static void *g_mine, *g_got;
static void *affine_worker(void *arg) {
  (void)arg;
  pd_free(g_mine);               /* this thread frees a... */
  pthread_barrier_wait(&g_bar);  /* ...the main thread then frees b, which heads the free list */
  pthread_barrier_wait(&g_bar);
  g_got = pd_alloc(256 << 10);   /* a again, not b */
  return NULL;
}
static void test_alloc_large_blocks_return_to_their_thread(void) {
  if (getenv("PADDLE_C_ALLOC_PASSTHROUGH")) return;
  const char *e = getenv("PADDLE_C_ALLOC_AFFINE");
  const int affine = !(e && e[0] == '0');
  void *a = pd_alloc(256 << 10), *b = pd_alloc(250 << 10); /* the same bucket */
  CHECK(a && b && a != b);
  g_mine = a;
  pthread_t t;
  CHECK(pthread_barrier_init(&g_bar, NULL, 2) == 0);
  CHECK(pthread_create(&t, NULL, affine_worker, NULL) == 0);
  pthread_barrier_wait(&g_bar);
  pd_free(b);
  pthread_barrier_wait(&g_bar);
  pthread_join(t, NULL);
  pthread_barrier_destroy(&g_bar);
  CHECK(g_got == (affine ? a : b));
  void *c = pd_alloc(256 << 10);
  CHECK(c == (affine ? b : a));
  pd_free(g_got);
  pd_free(c);
}

static void test_tensor_views_share_storage(void) {
  int64_t shape[2] = {3, 4};
  pd_tensor *t;
  CHECK(pd_tensor_zeros(PD_FLOAT32, 2, shape, &t) == PD_OK);
  float *d = (float *)pd_tensor_data(t);
  for (int i = 0; i < 12; i++) d[i] = (float)i;
  /* column 1 as a strided view */
  int64_t vs[1] = {3}, vst[1] = {4};
  pd_tensor *col;
  CHECK(pd_tensor_view(t, 1, vs, vst, 1, &col) == PD_OK);
  CHECK(!pd_tensor_is_contiguous(col));
  CHECK(pd_tensor_fill_(col, -1.0, 0) == PD_OK);
  CHECK(d[1] == -1.0f && d[5] == -1.0f && d[9] == -1.0f && d[2] == 2.0f);
  pd_tensor *c;
  CHECK(pd_tensor_contiguous(col, &c) == PD_OK);
  CHECK(pd_tensor_is_contiguous(c) && c->storage != t->storage);
  /* out-of-bounds view is rejected */
  int64_t bad_st[1] = {5};
  pd_tensor *bad = NULL;
  CHECK(pd_tensor_view(t, 1, vs, bad_st, 3, &bad) == PD_ERR_OUT_OF_RANGE);
  CHECK(strstr(pd_last_error(), "storage") != NULL);
  pd_tensor_release(c);
  pd_tensor_release(col);
  pd_tensor_release(t);
}

static void test_copy_broadcast_cast(void) {
  int64_t s3[1] = {3}, s23[2] = {2, 3};
  pd_tensor *src, *dst;
  CHECK(pd_tensor_empty(PD_INT64, 1, s3, &src) == PD_OK);
  int64_t *sd = (int64_t *)pd_tensor_data(src);
  sd[0] = 1; sd[1] = -2; sd[2] = 300;
  CHECK(pd_tensor_empty(PD_FLOAT16, 2, s23, &dst) == PD_OK);
  CHECK(pd_tensor_copy_(dst, src) == PD_OK);
  pd_float16 *h = (pd_float16 *)pd_tensor_data(dst);
  CHECK(pd_f16_to_f32(h[0]) == 1.0f && pd_f16_to_f32(h[4]) == -2.0f && pd_f16_to_f32(h[5]) == 300.0f);
  int64_t s4[1] = {4};
  pd_tensor *bad;
  CHECK(pd_tensor_empty(PD_FLOAT32, 1, s4, &bad) == PD_OK);
  CHECK(pd_tensor_copy_(dst, bad) == PD_ERR_INVALID_ARGUMENT);
  CHECK(strstr(pd_last_error(), "[copy]") != NULL);
  pd_tensor_release(bad);
  pd_tensor_release(src);
  pd_tensor_release(dst);
}

static void test_shape_errors(void) {
  int64_t neg[2] = {2, -1};
  pd_tensor *t = NULL;
  CHECK(pd_tensor_empty(PD_FLOAT32, 2, neg, &t) == PD_ERR_INVALID_ARGUMENT);
  int64_t ten[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(pd_tensor_empty(PD_FLOAT32, 10, ten, &t) == PD_ERR_INVALID_ARGUMENT);
  int ax;
  CHECK(pd_norm_axis("sum", -3, 2, &ax) == PD_ERR_INVALID_ARGUMENT);
  CHECK(pd_norm_axis("sum", -1, 2, &ax) == PD_OK && ax == 1);
}

static void test_op_runner_add(void) {
  int64_t s34[2] = {3, 4}, s4[1] = {4};
  pd_tensor *x, *y;
  CHECK(pd_tensor_empty(PD_FLOAT64, 2, s34, &x) == PD_OK);
  CHECK(pd_tensor_empty(PD_FLOAT64, 1, s4, &y) == PD_OK);
  double *xd = (double *)pd_tensor_data(x), *yd = (double *)pd_tensor_data(y);
  for (int i = 0; i < 12; i++) xd[i] = i * 0.5;
  for (int i = 0; i < 4; i++) yd[i] = 10.0 * i;
  pd_add_args a = {x, y};
  pd_tensor **outs = NULL;
  int n = 0;
  CHECK(pd_op_run(PD_OP_ADD, &a, &outs, &n) == PD_OK);
  CHECK(n == 1 && outs[0]->ndim == 2 && outs[0]->shape[0] == 3 && outs[0]->shape[1] == 4);
  double *od = (double *)pd_tensor_data(outs[0]);
  int ok = 1;
  for (int i = 0; i < 12; i++) ok &= od[i] == xd[i] + yd[i % 4];
  CHECK(ok);
  pd_tensor_release(outs[0]);
  free(outs);
  /* mismatched dtype and shape give errors naming the op */
  pd_tensor *z;
  int64_t s5[1] = {5};
  CHECK(pd_tensor_empty(PD_FLOAT64, 1, s5, &z) == PD_OK);
  pd_add_args b = {x, z};
  CHECK(pd_op_run(PD_OP_ADD, &b, &outs, &n) == PD_ERR_INVALID_ARGUMENT);
  CHECK(strstr(pd_last_error(), "broadcast") != NULL);
  pd_add_args c = {x, NULL};
  CHECK(pd_op_run(PD_OP_ADD, &c, &outs, &n) == PD_ERR_INVALID_ARGUMENT);
  pd_tensor_release(z);
  pd_tensor_release(x);
  pd_tensor_release(y);
}

static void test_iter_parallel_matches_serial(void) {
  /* a big strided broadcast copy: parallel split must equal element-by-element reference */
  int64_t s[3] = {64, 33, 129}, sb[2] = {1, 129};
  pd_tensor *dst, *src;
  CHECK(pd_tensor_empty(PD_FLOAT32, 3, s, &dst) == PD_OK);
  CHECK(pd_tensor_empty(PD_FLOAT32, 2, sb, &src) == PD_OK);
  float *sd = (float *)pd_tensor_data(src);
  for (int i = 0; i < 129; i++) sd[i] = (float)i * 3.0f;
  CHECK(pd_tensor_copy_(dst, src) == PD_OK);
  float *dd = (float *)pd_tensor_data(dst);
  int ok = 1;
  for (int64_t i = 0; i < dst->numel; i++) ok &= dd[i] == sd[i % 129];
  CHECK(ok);
  pd_tensor_release(dst);
  pd_tensor_release(src);
}

int main(void) {
  printf("test_core\n");
  RUN(test_f16_roundtrip_all);
  RUN(test_f32_to_f16_rounding);
  RUN(test_f64_to_f16_no_double_rounding);
  RUN(test_bf16_rounding);
  RUN(test_alloc_caching_and_alignment);
  RUN(test_alloc_large_blocks_return_to_their_thread);
  RUN(test_tensor_views_share_storage);
  RUN(test_copy_broadcast_cast);
  RUN(test_shape_errors);
  RUN(test_op_runner_add);
  RUN(test_iter_parallel_matches_serial);
  return PD_TEST_RESULT();
}
