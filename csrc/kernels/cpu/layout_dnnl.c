/* Blocked activations (nChw8c / nChw16c) for the inference executor: the conversion back to plain
 * NCHW and pool2d on blocked inputs. The convolutions themselves read and write blocked tensors
 * through pd_conv_dnnl_blocked (conv_dnnl.c); the executor decides which values stay blocked
 * (csrc/graph/pd_exec_layout.c). */
#include "../../core/pd_pool.h"
#include "layout_dnnl.h"
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

_Thread_local int pd_layout_want;

int pd_layout_block(void) {
  static int blk;
  if (!blk) blk = dnnl_get_effective_cpu_isa() >= dnnl_cpu_isa_avx512_core ? 16 : 8;
  return blk;
}

int pd_layout_nhwc(void) {
  static int on = -1;
  if (on < 0) {
    const char *e = getenv("PADDLE_C_INFER_NHWC");
    /* off by default: measured no faster on AVX2 (docs/arch/core.md "oneDNN 3.2 from PyPI") */
    on = e && !strcmp(e, "1");
  }
  return on;
}

/* PADDLE_C_INFER_PAD=0: channel counts that do not fill whole blocks stay plain (as before the
 * padded blocks; for measuring) */
static int pad_on(void) {
  static int on = -1;
  if (on < 0) {
    const char *e = getenv("PADDLE_C_INFER_PAD");
    on = !(e && !strcmp(e, "0"));
  }
  return on;
}

int pd_layout_block_for(int64_t C, int64_t HW) {
  if (C <= 0) return 0;
  if (pd_layout_nhwc()) return C % 8 || C > (1 << 20) ? 0 : (int)C;
  const int B = pd_layout_block();
  if (C % B == 0) return B;
  /* padded: oneDNN's blocked kernels on ceil(C / B) * B channels. Not for a [N, C, 1, 1] value
   * (plain it is the same bytes as blocked and every consumer reads it plain) */
  return pad_on() && HW > 1 ? B : 0;
}

int64_t pd_layout_numel(const pd_tensor *t) {
  if (!pd_layout_padded(t)) return t->numel;
  return t->shape[0] * pd_layout_cpad(t->shape[1], t->layout) * t->shape[2] * t->shape[3];
}

pd_status pd_layout_reserve(pd_tensor **o, int blk) {
  pd_tensor *t = *o;
  if (blk <= 0 || t->ndim != 4 || t->shape[1] % blk == 0) return PD_OK;
  const size_t es = pd_dtype_size(t->dtype);
  const int64_t need = t->shape[0] * pd_layout_cpad(t->shape[1], blk) * t->shape[2] * t->shape[3];
  if (t->storage && pd_tensor_is_contiguous(t) && (size_t)(t->offset + need) * es <= t->storage->nbytes) return PD_OK;
  pd_storage *sto;
  PD_TRY(pd_storage_new((size_t)need * es, &sto));
  int64_t strides[PD_MAX_DIMS];
  pd_contiguous_strides(4, t->shape, strides);
  pd_tensor *n;
  pd_status st = pd_tensor_from_storage(sto, t->dtype, 4, t->shape, strides, 0, &n);
  pd_storage_release(sto);
  PD_TRY(st);
  pd_tensor_release(t);
  *o = n;
  return PD_OK;
}

/* the padding lanes of each sample's last channel block ([lo, B) of every pixel): zero them
 * (zero = 1), or report whether they are all zero (0: returns 0 at the first one that is not) */
static int pad_lanes(float *d, const pd_tensor *t, int zero) {
  const int64_t B = t->layout, N = t->shape[0], C = t->shape[1], HW = t->shape[2] * t->shape[3];
  const int64_t CB = pd_layout_cpad(C, (int)B) / B, lo = C - (CB - 1) * B;
  for (int64_t n = 0; n < N; n++) {
    float *s = d + ((n + 1) * CB - 1) * HW * B;
    for (int64_t i = 0; i < HW; i++)
      for (int64_t c = lo; c < B; c++) {
        if (zero) s[i * B + c] = 0.0f;
        else if (s[i * B + c] != 0.0f) return 0;
      }
  }
  return 1;
}

void pd_layout_zero_pad(pd_tensor *t) {
  if (pd_layout_padded(t)) pad_lanes((float *)pd_tensor_data(t), t, 1);
}

int pd_layout_pad_clean(const pd_tensor *t) {
  return !pd_layout_padded(t) || pad_lanes((float *)pd_tensor_data(t), t, 0);
}

/* 8 x 8 floats: r[k] (row k) -> r[j] = column j (AVX2, the build's baseline) */
static inline void tr8(__m256 r[8]) {
  __m256 a[8], b[8];
  for (int k = 0; k < 8; k += 2) {
    a[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    a[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    b[k] = _mm256_shuffle_ps(a[k], a[k + 2], 0x44);
    b[k + 1] = _mm256_shuffle_ps(a[k], a[k + 2], 0xEE);
    b[k + 2] = _mm256_shuffle_ps(a[k + 1], a[k + 3], 0x44);
    b[k + 3] = _mm256_shuffle_ps(a[k + 1], a[k + 3], 0xEE);
  }
  for (int k = 0; k < 4; k++) {
    r[k] = _mm256_permute2f128_ps(b[k], b[k + 4], 0x20);
    r[k + 4] = _mm256_permute2f128_ps(b[k], b[k + 4], 0x31);
  }
}

/* the 8 x 8 floats at src (rows sr apart) transposed to dst (rows dr apart) */
static inline void tr8_copy(const float *src, int64_t sr, float *dst, int64_t dr) {
  __m256 r[8];
  for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(src + k * sr);
  tr8(r);
  for (int j = 0; j < 8; j++) _mm256_storeu_ps(dst + j * dr, r[j]);
}

/* one block of B lanes (nc of them channels) over HW pixels, [HW][B] <-> nc planes of HW: src
 * planes -> dst block (to_blk; its padding lanes written zero) or src block -> dst planes; 8 lanes
 * x 8 pixels at a time */
static void block_plain(const float *src, float *dst, int64_t HW, int64_t B, int64_t nc, int to_blk) {
  const int64_t ps = to_blk ? 1 : B, ls = to_blk ? HW : 1;  /* src: pixel / lane strides */
  const int64_t qs = to_blk ? B : 1, ms = to_blk ? 1 : HW;  /* dst: pixel / lane strides */
  int64_t c0 = 0;
  for (; c0 + 8 <= nc; c0 += 8) {
    int64_t i = 0;
    for (; i + 8 <= HW; i += 8)
      tr8_copy(src + i * ps + c0 * ls, to_blk ? HW : B, dst + i * qs + c0 * ms, to_blk ? B : HW);
    for (; i < HW; i++)
      for (int64_t c = c0; c < c0 + 8; c++) dst[i * qs + c * ms] = src[i * ps + c * ls];
  }
  for (int64_t i = 0; c0 < (to_blk ? B : nc) && i < HW; i++)
    for (int64_t c = c0; c < (to_blk ? B : nc); c++) dst[i * qs + c * ms] = c < nc ? src[i * ps + c * ls] : 0.0f;
}

/* blocked <-> plain over ceil(C / B) blocks of B lanes; the last block's lanes past C are padding
 * (written zero towards blocked, skipped towards plain) */
static void reorder(const float *src, float *dst, int64_t N, int64_t C, int64_t HW, int64_t B, int to_blk) {
  const int64_t CB = (C + B - 1) / B, NCB = N * CB;
  _Pragma("omp parallel for if (NCB * HW * B > 65536)")
  for (int64_t q = 0; q < NCB; q++) {
    const int64_t n = q / CB, cb = q % CB, nc = C - cb * B < B ? C - cb * B : B;
    const int64_t bo = q * HW * B, po = (n * C + cb * B) * HW;
    if (to_blk) block_plain(src + po, dst + bo, HW, B, nc, 1);
    else block_plain(src + bo, dst + po, HW, B, nc, 0);
  }
}

pd_status pd_layout_to_plain(pd_tensor *t, pd_tensor **out) {
  if (!t->layout) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  pd_tensor *o;
  PD_TRY(pd_tensor_empty(t->dtype, t->ndim, t->shape, &o));
  reorder((const float *)pd_tensor_data(t), (float *)pd_tensor_data(o), t->shape[0], t->shape[1],
          t->shape[2] * t->shape[3], t->layout, 0);
  *out = o;
  return PD_OK;
}

void pd_layout_copy(const pd_tensor *t, float *dst, int blk) {
  const float *src = (const float *)pd_tensor_data(t);
  if (t->layout == blk) {
    if (src != dst) memcpy(dst, src, (size_t)pd_layout_numel(t) * sizeof(float));
    return;
  }
  reorder(src, dst, t->shape[0], t->shape[1], t->shape[2] * t->shape[3], blk ? blk : t->layout, blk != 0);
}

/* ---------------------------------------------------------------- pooling */
typedef struct {
  int alg, blk;
  int64_t N, C, in[2], out[2], k[2], s[2], pl[2], pr[2];
} pkey;
typedef struct {
  pkey key;
  int ok;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t src, dst, scratch; /* owned; scratch NULL: none (entries of g_pool live as long as the process) */
} pentry;
#define PCACHE 32
static pentry g_pool[PCACHE];
static int g_npool;
static pthread_mutex_t g_pmu = PTHREAD_MUTEX_INITIALIZER;

static void pool_build(pentry *e, dnnl_engine_t eng) {
  const pkey *k = &e->key;
  dnnl_dims_t sd = {k->N, k->C, k->in[0], k->in[1]}, dd = {k->N, k->C, k->out[0], k->out[1]};
  dnnl_dims_t st = {k->s[0], k->s[1]}, ke = {k->k[0], k->k[1]}, pl = {k->pl[0], k->pl[1]}, pr = {k->pr[0], k->pr[1]};
  dnnl_dims_t dil = {0, 0};
  dnnl_format_tag_t tag = k->blk == k->C && pd_layout_nhwc() ? dnnl_nhwc : k->blk == 16 ? dnnl_nChw16c : dnnl_nChw8c;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_attr_t attr = NULL;
  if (dnnl_memory_desc_create_with_tag(&e->src, 4, sd, dnnl_f32, tag) != dnnl_success ||
      dnnl_memory_desc_create_with_tag(&e->dst, 4, dd, dnnl_f32, tag) != dnnl_success ||
      dnnl_primitive_attr_create(&attr) != dnnl_success)
    return;
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  if (dnnl_pooling_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, (dnnl_alg_kind_t)k->alg, e->src,
                                                 e->dst, st, ke, dil, pl, pr, attr) == dnnl_success) {
    const_dnnl_memory_desc_t q = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    int nd = 0;
    if (q && dnnl_memory_desc_query(q, dnnl_query_ndims_s32, &nd) == dnnl_success && nd > 0)
      e->ok = dnnl_memory_desc_clone(&e->scratch, q) == dnnl_success;
    else e->ok = 1;
    e->ok = e->ok && dnnl_primitive_create(&e->prim, pd) == dnnl_success;
  }
  if (pd) dnnl_primitive_desc_destroy(pd);
  dnnl_primitive_attr_destroy(attr);
}

/* what pool_build made, for the private entry of a call that found the cache full */
static void pool_entry_free(pentry *e) {
  if (e->prim) dnnl_primitive_destroy(e->prim);
  if (e->src) dnnl_memory_desc_destroy(e->src);
  if (e->dst) dnnl_memory_desc_destroy(e->dst);
  if (e->scratch) dnnl_memory_desc_destroy(e->scratch);
}

/* The primitive of k: cached (entries live as long as the process; a full cache builds a
 * private one for this call). */
static pd_status pool_dnnl(const pkey *k, const float *x, float *y, int *done) {
  dnnl_engine_t eng;
  dnnl_stream_t stream;
  *done = 0;
  if (!pd_dnnl_context(&eng, &stream)) return PD_OK;
  pentry c, *e = NULL;
  pthread_mutex_lock(&g_pmu);
  for (int i = 0; i < g_npool; i++)
    if (!memcmp(&g_pool[i].key, k, sizeof *k)) {
      e = &g_pool[i];
      break;
    }
  if (!e && g_npool < PCACHE) {
    e = &g_pool[g_npool++];
    memset(e, 0, sizeof *e);
    e->key = *k;
    const int pc = pd_pool_create_begin(); /* the configured thread count, not a governor window */
    pool_build(e, eng);
    pd_pool_create_end(pc);
  }
  if (e) c = *e;
  pthread_mutex_unlock(&g_pmu);
  if (!e) {
    memset(&c, 0, sizeof c);
    c.key = *k;
    pool_build(&c, eng);
  }
  if (!c.ok) {
    if (!e) pool_entry_free(&c);
    return PD_OK;
  }
  pd_status st = PD_OK;
  void *scratch = NULL;
  size_t ssz = c.scratch ? dnnl_memory_desc_get_size(c.scratch) : 0;
  dnnl_memory_t ms = NULL, md = NULL, mscr = NULL;
  if (ssz && !(scratch = malloc(ssz))) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool2d] out of memory");
  if (dnnl_memory_create(&ms, c.src, eng, (void *)x) != dnnl_success ||
      dnnl_memory_create(&md, c.dst, eng, y) != dnnl_success ||
      (ssz && dnnl_memory_create(&mscr, c.scratch, eng, scratch) != dnnl_success)) {
    st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool2d] oneDNN memory creation failed");
  } else {
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}, {DNNL_ARG_SCRATCHPAD, mscr}};
    int ok = dnnl_primitive_execute(c.prim, stream, ssz ? 3 : 2, args) == dnnl_success &&
             dnnl_stream_wait(stream) == dnnl_success;
    if (ok) *done = 1;
    else st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool2d] oneDNN pooling failed");
  }
  if (ms) dnnl_memory_destroy(ms);
  if (md) dnnl_memory_destroy(md);
  if (mscr) dnnl_memory_destroy(mscr);
  free(scratch);
  if (!e) pool_entry_free(&c);
  return st;
}

/* one block of BB lanes (a compile-time width, so the lane loops vectorise): max or sum over HW
 * pixels into acc (padding lanes included: they are zero) */
#define DEF_POOL_BLK(BB)                                                                          \
  static void pool_blk##BB(const float *restrict s, int64_t HW, int is_max, float *restrict acc) { \
    for (int c = 0; c < BB; c++) acc[c] = is_max ? s[c] : 0.0f;                                  \
    if (is_max) {                                                                                \
      for (int64_t i = 1; i < HW; i++)                                                           \
        for (int c = 0; c < BB; c++) {                                                           \
          const float v = s[i * BB + c];                                                         \
          acc[c] = v > acc[c] || v != v ? v : acc[c];                                            \
        }                                                                                        \
    } else {                                                                                     \
      for (int64_t i = 0; i < HW; i++)                                                           \
        for (int c = 0; c < BB; c++) acc[c] += s[i * BB + c];                                    \
    }                                                                                            \
  }
DEF_POOL_BLK(8)
DEF_POOL_BLK(16)

/* global (or adaptive-to-1) pooling straight from the blocks into a plain [N, C, 1, 1] (a padded
 * last block: only its C % B real lanes) */
static void pool_global(const pd_pool_geom *g, int64_t B, const float *x, float *y) {
  const int64_t C = g->C, HW = g->in[0] * g->in[1], CB = (C + B - 1) / B, NCB = g->N * CB;
  const int is_max = g->is_max;
  _Pragma("omp parallel for if (NCB * HW * B > 65536)")
  for (int64_t q = 0; q < NCB; q++) {
    const int64_t n = q / CB, cb = q % CB, nc = C - cb * B < B ? C - cb * B : B;
    float *yq = y + n * C + cb * B;
    if (B == 16 || B == 8) {
      float acc[16];
      if (B == 16) pool_blk16(x + q * HW * B, HW, is_max, acc);
      else pool_blk8(x + q * HW * B, HW, is_max, acc);
      for (int64_t c = 0; c < nc; c++) yq[c] = is_max ? acc[c] : acc[c] / (float)HW;
      continue;
    }
    /* NHWC mode (B is the channel count C): 16 channels at a time */
    for (int64_t c0 = 0; c0 < nc; c0 += 16) {
      const int64_t nb = nc - c0 < 16 ? nc - c0 : 16;
      const float *s = x + q * HW * B + c0;
      float acc[16];
      for (int64_t c = 0; c < nb; c++) acc[c] = is_max ? s[c] : 0.0f;
      for (int64_t i = is_max ? 1 : 0; i < HW; i++)
        for (int64_t c = 0; c < nb; c++) {
          float v = s[i * B + c];
          if (is_max) acc[c] = v > acc[c] || v != v ? v : acc[c];
          else acc[c] += v;
        }
      for (int64_t c = 0; c < nb; c++) yq[c0 + c] = is_max ? acc[c] : acc[c] / (float)HW;
    }
  }
}

/* max pooling on a blocked activation (blocks of BB lanes, NV AVX2 vectors each), split across the
 * threads by output rows, every channel block of a row on one thread, as the convolution before it
 * leaves its output (in row bands). ResNet-50's 3x3 stride-2 pool after the stem, batch 1, 2 threads,
 * medians in one predictor switching per run: 47 vs oneDNN's 55 us with the two vCPUs on one core
 * complex, 120 vs 135 on two, where the next layer also reads its input faster (86 vs 104 us); the
 * whole model level within its noise (docs/performance_log.md "Two core complexes").
 * PADDLE_C_POOL_ROWS=0 (read per call): oneDNN's pooling. */
#define MAXPOOL_ROWS(BB, NV)                                                                          \
  static void maxpool_rows_##BB(const pkey *k, const float *x, float *y) {                          \
    const int64_t CB = (k->C + BB - 1) / BB, IH = k->in[0], IW = k->in[1], OH = k->out[0], OW = k->out[1]; \
    const int64_t work = k->N * CB * IH * IW * BB;                                                  \
    _Pragma("omp parallel for schedule(static) if (work > 65536)")                                  \
    for (int64_t r = 0; r < k->N * OH; r++) {                                                       \
      const int64_t n = r / OH, oh = r % OH;                                                        \
      int64_t h0 = oh * k->s[0] - k->pl[0], h1 = h0 + k->k[0];                                      \
      if (h0 < 0) h0 = 0;                                                                           \
      if (h1 > IH) h1 = IH;                                                                         \
      for (int64_t cb = 0; cb < CB; cb++) {                                                         \
        const float *xc = x + ((n * CB + cb) * IH) * IW * BB;                                       \
        float *yr = y + (((n * CB + cb) * OH + oh) * OW) * BB;                                      \
        for (int64_t ow = 0; ow < OW; ow++) {                                                       \
          int64_t w0 = ow * k->s[1] - k->pl[1], w1 = w0 + k->k[1];                                  \
          if (w0 < 0) w0 = 0;                                                                       \
          if (w1 > IW) w1 = IW;                                                                       \
          __m256 m[NV];                                                                             \
          for (int v = 0; v < NV; v++) m[v] = _mm256_set1_ps(-__builtin_inff());                    \
          for (int64_t ih = h0; ih < h1; ih++)                                                      \
            for (int64_t iw = w0; iw < w1; iw++) {                                                  \
              const float *xp = xc + (ih * IW + iw) * BB;                                           \
              for (int v = 0; v < NV; v++) m[v] = _mm256_max_ps(_mm256_loadu_ps(xp + 8 * v), m[v]); \
            }                                                                                       \
          for (int v = 0; v < NV; v++) _mm256_storeu_ps(yr + ow * BB + 8 * v, m[v]);                \
        }                                                                                           \
      }                                                                                             \
    }                                                                                               \
  }
MAXPOOL_ROWS(8, 1)
MAXPOOL_ROWS(16, 2)
#undef MAXPOOL_ROWS

pd_status pd_layout_pool2d(const pd_pool_geom *g, pd_tensor *x, pd_tensor **outp, int *done) {
  *done = 0;
  const int64_t B = x->layout;
  if (!B || g->nsp != 2 || g->nhwc || x->dtype != PD_FLOAT32 || x->ndim != 4 || g->in[2] != 1) return PD_OK;
  pd_tensor *out = *outp;
  const float *xd = (const float *)pd_tensor_data(x);
  float *yd = (float *)pd_tensor_data(out);
  if (g->out[0] == 1 && g->out[1] == 1) { /* global or adaptive to 1x1: the window is the whole plane? */
    int whole = g->adaptive;
    if (!whole) {
      whole = 1;
      for (int i = 0; i < 2; i++) {
        int64_t s0 = -g->pl[i], e0 = s0 + g->k[i];
        if (s0 > 0 || e0 < g->in[i]) whole = 0;
        if (!g->is_max && !g->exclusive && (s0 != 0 || e0 != g->in[i])) whole = 0;
      }
    }
    if (whole) {
      pool_global(g, B, xd, yd);
      out->layout = 0; /* [N, C, 1, 1]: the same bytes in both layouts */
      *done = 1;
      return PD_OK;
    }
  }
  if (g->adaptive) return PD_OK;
  pkey k;
  memset(&k, 0, sizeof k);
  k.blk = (int)B;
  k.N = g->N;
  k.C = g->C;
  for (int i = 0; i < 2; i++) {
    k.in[i] = g->in[i];
    k.out[i] = g->out[i];
    k.k[i] = g->k[i];
    k.s[i] = g->s[i];
    k.pl[i] = g->pl[i];
    /* oneDNN's right padding is what the output size implies (ceil_mode included) */
    k.pr[i] = (k.out[i] - 1) * k.s[i] + k.k[i] - k.in[i] - k.pl[i];
    if (k.pr[i] < 0 || k.pl[i] < 0 || k.pl[i] >= k.k[i] || k.pr[i] >= k.k[i]) return PD_OK;
    /* counting the padding (exclusive=False) matches Paddle only where Paddle's windows are never
     * cut by its own right padding */
    if (!g->is_max && !g->exclusive && k.pr[i] > g->pr[i]) return PD_OK;
  }
  k.alg = g->is_max ? dnnl_pooling_max : g->exclusive ? dnnl_pooling_avg_exclude_padding : dnnl_pooling_avg_include_padding;
  if (g->out[0] * g->out[1] == 1 && g->C % B) return PD_OK; /* a padded [N, C, 1, 1]: the plain kernel */
  PD_TRY(pd_layout_reserve(outp, (int)B)); /* padded channels: a larger storage */
  out = *outp;
  const char *pr = getenv("PADDLE_C_POOL_ROWS");
  if (g->is_max && (B == 8 || B == 16) && !(pr && !strcmp(pr, "0"))) {
    if (B == 8) maxpool_rows_8(&k, xd, (float *)pd_tensor_data(out));
    else maxpool_rows_16(&k, xd, (float *)pd_tensor_data(out));
    *done = 1;
  } else
    PD_TRY(pool_dnnl(&k, xd, (float *)pd_tensor_data(out), done));
  if (*done) out->layout = (int)B;
  return PD_OK;
}
