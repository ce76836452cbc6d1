/* bfloat16 GEMM on the CPU's bf16 units, and float32 GEMM through the same primitives (pd_gemm_f32_prim)
 * (pd_gemm.h, docs/arch/autograd_training.md "Mixed precision"):
 * oneDNN's matmul primitive with bf16 operands, float32 accumulation and a bf16 or float32 result,
 * primitives kept in a cache (two-way sets, the older entry replaced) keyed by the geometry (transposes, leading dimensions, batch
 * strides), so an eager step pays a lookup, not a primitive creation. Used only where
 * pd_isa_bf16_units() (cpuid at run time) and PADDLE_C_BF16_UNITS is not 0: without the units
 * oneDNN emulates bf16 and is slower than the float32 path. A baseline translation unit (not a
 * per-ISA copy): the cache and its lock exist once. */
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "pd_gemm.h"
#include "../../core/pd_pool.h"
#include "../../core/pd_alloc.h"
#include "../../core/pd_hash.h"
#include "../../core/pd_isa.h"

/* the primitive cache: MM_SETS sets of two entries, the older one of a full set replaced */
#define MM_SETS 256

/* dims [b0, b1, M, K] x [b0, b1, K, N] -> [b0, b1, M, N]; strides in elements, an operand's batch
 * stride 0: that batch dim broadcast (size 1 in its descriptor) */
typedef struct {
  int cf32, f32; /* C float32; f32: A, B and C all float32 (pd_gemm_f32_prim) */
  int64_t b[2], M, N, K, as[4], bs[4], cs[4];
} mkey;

typedef struct mentry {
  mkey key;
  uint64_t hash;
  uint64_t used; /* g_clock at the last lookup */
  int refs, dead, ok;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t md[4]; /* src, weights, dst, scratchpad (NULL: none) */
  size_t scratch;
} mentry;

static dnnl_engine_t g_eng;
static int g_eng_ok;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static mentry *g_set[MM_SETS][2];
static uint64_t g_clock;
static _Thread_local dnnl_stream_t t_stream;
/* -1: PADDLE_C_BF16_UNITS decides (pd_bf16_units_enabled); 0: the float32 fallback; 1: the units (pd_gemm_bf16_set) */
static int g_mode = -1;

/* fork() must not copy the lock held by another thread; priority 103 as the conv cache (see
 * docs/arch/core.md "Memory": allocations happen while it is held, so it is taken first) */
static void mm_prefork(void) { pthread_mutex_lock(&g_mu); }
static void mm_postfork(void) { pthread_mutex_unlock(&g_mu); }
__attribute__((constructor(103))) static void mm_atfork_init(void) {
  pthread_atfork(mm_prefork, mm_postfork, mm_postfork);
}

static void eng_init(void) { g_eng_ok = dnnl_engine_create(&g_eng, dnnl_cpu, 0) == dnnl_success; }

/* the CPU has the units and oneDNN may use them (ONEDNN_MAX_CPU_ISA can cap it below
 * avx512_core_bf16; its ISA values are nested bit sets) */
static int units_usable(void) {
  const unsigned need = (unsigned)dnnl_cpu_isa_avx512_core_bf16;
  return pd_isa_bf16_units() && ((unsigned)dnnl_get_effective_cpu_isa() & need) == need;
}

/* the one switch of the bf16 kernels (pd_bf16_units_enabled: the units, and PADDLE_C_BF16_UNITS
 * read on every call, as the convolutions read it) unless paddle._C._bf16_units set it */
int pd_gemm_bf16_units(void) {
  if (g_mode >= 0) return g_mode;
  static int usable = -1;
  if (usable < 0) usable = units_usable();
  return usable && pd_bf16_units_enabled();
}

int pd_gemm_bf16_set(int on) {
  int prev = pd_gemm_bf16_units();
  g_mode = on && units_usable();
  return prev;
}

/* a [b0 or 1, b1 or 1, rows, cols] descriptor with strides st (batch stride 0: size 1) */
static int md4(dnnl_memory_desc_t *md, const int64_t *b, int64_t rows, int64_t cols, const int64_t *st,
               dnnl_data_type_t dt) {
  dnnl_dims_t dims = {st[0] ? b[0] : 1, st[1] ? b[1] : 1, rows, cols}, s = {st[0], st[1], st[2], st[3]};
  /* a size-1 dim's stride does not address anything: the one a dense layout would give */
  if (!s[1]) s[1] = rows * cols;
  if (!s[0]) s[0] = dims[1] * s[1];
  return dnnl_memory_desc_create_with_strides(md, 4, dims, dt, s) == dnnl_success;
}

static void build(mentry *e) {
  const mkey *k = &e->key;
  dnnl_memory_desc_t a = NULL, b = NULL, c = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_primitive_desc_t pd = NULL;
  const dnnl_data_type_t ab = k->f32 ? dnnl_f32 : dnnl_bf16;
  if (!md4(&a, k->b, k->M, k->K, k->as, ab) || !md4(&b, k->b, k->K, k->N, k->bs, ab) ||
      !md4(&c, k->b, k->M, k->N, k->cs, k->cf32 || k->f32 ? dnnl_f32 : dnnl_bf16) ||
      dnnl_primitive_attr_create(&attr) != dnnl_success ||
      dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success ||
      dnnl_matmul_primitive_desc_create(&pd, g_eng, a, b, NULL, c, attr) != dnnl_success)
    goto done;
  /* a reference implementation (no bf16 kernel for this geometry) would be slower than the
   * float32 fallback: decline it */
  const char *impl = NULL;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl ||
      strstr(impl, "ref"))
    goto done;
  const_dnnl_memory_desc_t sq = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  e->scratch = sq ? dnnl_memory_desc_get_size(sq) : 0;
  if (e->scratch && dnnl_memory_desc_clone(&e->md[3], sq) != dnnl_success) goto done;
  if (dnnl_primitive_create(&e->prim, pd) != dnnl_success) goto done;
  e->md[0] = a, e->md[1] = b, e->md[2] = c;
  a = b = c = NULL;
  e->ok = 1;
done:
  if (pd) dnnl_primitive_desc_destroy(pd);
  if (attr) dnnl_primitive_attr_destroy(attr);
  if (a) dnnl_memory_desc_destroy(a);
  if (b) dnnl_memory_desc_destroy(b);
  if (c) dnnl_memory_desc_destroy(c);
}

static void entry_free(mentry *e) {
  if (e->prim) dnnl_primitive_destroy(e->prim);
  for (int i = 0; i < 4; i++)
    if (e->md[i]) dnnl_memory_desc_destroy(e->md[i]);
  free(e);
}

/* a referenced entry for k (built on a miss; ok = 0 when oneDNN declined), NULL when out of memory */
static mentry *acquire(const mkey *k) {
  uint64_t h = pd_hash_bytes(k, sizeof(*k));
  mentry **set = g_set[h % MM_SETS];
  pthread_mutex_lock(&g_mu);
  mentry *e = NULL;
  for (int w = 0; w < 2 && !e; w++)
    if (set[w] && set[w]->hash == h && !memcmp(&set[w]->key, k, sizeof(*k))) e = set[w];
  if (!e) {
    if (!(e = (mentry *)calloc(1, sizeof(*e)))) {
      pthread_mutex_unlock(&g_mu);
      return NULL;
    }
    e->key = *k;
    e->hash = h;
    const int pc = pd_pool_create_begin(); /* the configured thread count, not a governor window */
    build(e);
    pd_pool_create_end(pc);
    int w = !set[0] ? 0 : !set[1] ? 1 : set[0]->used <= set[1]->used ? 0 : 1;
    mentry *old = set[w];
    set[w] = e;
    if (old) {
      if (old->refs) old->dead = 1; /* freed by its last release */
      else entry_free(old);
    }
  }
  e->used = ++g_clock;
  e->refs++;
  pthread_mutex_unlock(&g_mu);
  return e;
}
static void release(mentry *e) {
  pthread_mutex_lock(&g_mu);
  int gone = --e->refs == 0 && e->dead;
  pthread_mutex_unlock(&g_mu);
  if (gone) entry_free(e);
}

static int run(mentry *e, const void *A, const void *B, void *C) {
  dnnl_memory_t m[4] = {NULL, NULL, NULL, NULL};
  void *scr = NULL;
  int ok = 0, n = 3;
  if (e->scratch && !(scr = pd_alloc(e->scratch))) return 0;
  void *ptr[4] = {(void *)A, (void *)B, C, scr};
  for (int i = 0; i < 4; i++)
    if (e->md[i] && dnnl_memory_create(&m[i], e->md[i], g_eng, ptr[i]) != dnnl_success) goto done;
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, m[0]}, {DNNL_ARG_WEIGHTS, m[1]}, {DNNL_ARG_DST, m[2]},
                             {DNNL_ARG_SCRATCHPAD, m[3]}};
  if (m[3]) n = 4;
  ok = dnnl_primitive_execute(e->prim, t_stream, n, args) == dnnl_success &&
       dnnl_stream_wait(t_stream) == dnnl_success;
done:
  for (int i = 0; i < 4; i++)
    if (m[i]) dnnl_memory_destroy(m[i]);
  if (scr) pd_free(scr);
  return ok;
}

static int mm_strided(int f32, const int64_t batch[2], int64_t M, int64_t N, int64_t K, const void *A,
                      const int64_t as[4], const void *B, const int64_t bs[4], void *C, const int64_t cs[4], int c_f32) {
  if (batch[0] < 1 || batch[1] < 1 || M < 1 || N < 1 || K < 1) return 0;
  pthread_once(&g_once, eng_init);
  if (!g_eng_ok) return 0;
  if (!t_stream && dnnl_stream_create(&t_stream, g_eng, dnnl_stream_default_flags) != dnnl_success) {
    t_stream = NULL;
    return 0;
  }
  mkey k;
  memset(&k, 0, sizeof k); /* padding takes part in the hash and the compare */
  k.cf32 = !!c_f32;
  k.f32 = f32;
  k.M = M, k.N = N, k.K = K;
  for (int i = 0; i < 4; i++) k.as[i] = as[i], k.bs[i] = bs[i], k.cs[i] = cs[i];
  for (int i = 0; i < 2; i++) {
    k.b[i] = batch[i];
    if (batch[i] == 1) k.as[i] = k.bs[i] = k.cs[i] = 0;
  }
  if (!k.cs[0] && k.b[0] > 1) k.cs[0] = k.b[1] * (k.cs[1] ? k.cs[1] : M * N); /* C is never broadcast */
  if (!k.cs[1] && k.b[1] > 1) k.cs[1] = M * N;
  mentry *e = acquire(&k);
  if (!e) return 0;
  int ok = e->ok && (!A || run(e, A, B, C));
  release(e);
  return ok;
}

int pd_gemm_bf16_strided(const int64_t batch[2], int64_t M, int64_t N, int64_t K, const void *A, const int64_t as[4],
                         const void *B, const int64_t bs[4], void *C, const int64_t cs[4], int c_f32) {
  if (!pd_gemm_bf16_units()) return 0;
  return mm_strided(0, batch, M, N, K, A, as, B, bs, C, cs, c_f32);
}

/* one batch dim (b1) over row-major / transposed 2-D operands: mm_strided's strides from leading
 * dimensions and batch strides */
static int mm_batched(int f32, int ta, int tb, int64_t batch, int64_t M, int64_t N, int64_t K, const void *A,
                      int64_t lda, int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc,
                      int64_t sc, int c_f32) {
  const int64_t b[2] = {1, batch};
  const int64_t as[4] = {0, sa, ta ? 1 : lda, ta ? lda : 1}, bs[4] = {0, sb, tb ? 1 : ldb, tb ? ldb : 1},
                cs[4] = {0, sc, ldc, 1};
  return mm_strided(f32, b, M, N, K, A, as, B, bs, C, cs, c_f32);
}

int pd_gemm_f32_prim(int ta, int tb, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *B,
                     int64_t ldb, float *C, int64_t ldc) {
  return mm_batched(1, ta, tb, 1, M, N, K, A, lda, 0, B, ldb, 0, C, ldc, 0, 1);
}

int pd_gemm_bf16(int ta, int tb, int64_t batch, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
                 int64_t sa, const void *B, int64_t ldb, int64_t sb, void *C, int64_t ldc, int64_t sc, int c_f32) {
  if (!pd_gemm_bf16_units()) return 0;
  return mm_batched(0, ta, tb, batch, M, N, K, A, lda, sa, B, ldb, sb, C, ldc, sc, c_f32);
}
