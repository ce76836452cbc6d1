/* matmul (matmul_v2 rules) through OpenBLAS gemm: transposes and row strides become BLAS flags and
 * leading dimensions (no copies for contiguous or transposed inputs), batch dims broadcast, and a
 * shared right operand folds the batch into M for one big GEMM. float16 goes through float32;
 * bfloat16 runs on the CPU's bf16 units where it has them (gemm_bf16.c), else through float32.
 * Also dot (row-wise inner products, any numeric dtype). */
#include <cblas.h>
#include <stdlib.h>
#include <oneapi/dnnl/dnnl.h>
#include <string.h>
#include <strings.h>
#include "pd_kernel_util.h"
#include "reduce_common.h"
#include "pd_gemm.h"
#include "../../core/pd_alloc.h"
#include <omp.h>
#include "../pd_kernel_shared.h"

/* float32 GEMM goes to oneDNN when a dimension is small (< 256: batch-sized M, the rank-B
 * weight-gradient updates with small K) and to OpenBLAS otherwise. Measured on the target
 * machine (2 threads): oneDNN is 1.3-3x faster on the MLP training shapes (e.g. 784x1024x32:
 * 504 vs 1198 us) and on par for 1024^3. Both use the one libgomp pool. */
#if defined(__AVX512F__)
/* This copy of the file runs on CPUs with AVX-512 (pd_isa chose it). OpenBLAS 0.3.21 has AVX-512
 * kernels only for Intel cores (SkylakeX, Cooperlake, SapphireRapids); on an AMD EPYC with AVX-512
 * it reports "Haswell" and runs its AVX2 kernel while oneDNN's sgemm uses AVX-512. Measured there
 * (1 thread, best of 7, alternating runs): oneDNN about 2x faster on every shape tried (1024^3 8.7
 * vs 17.2 ms, 4096x256x1024 9.4 vs 18.2, 128x1024x784 0.87 vs 1.66, 1024x128x700 0.71 vs 1.45;
 * 2 threads alike), so there float32 GEMMs all go to oneDNN. */
extern char *openblas_get_corename(void);
static int blas_has_avx512(void) {
  static int known = -1;
  if (known < 0) {
    const char *c = openblas_get_corename();
    known = c && (strcasecmp(c, "skylakex") == 0 || strcasecmp(c, "cooperlake") == 0 ||
                  strcasecmp(c, "sapphirerapids") == 0);
  }
  return known;
}
#endif

static int use_dnnl(int64_t M, int64_t N, int64_t K, int ta, int tb, int64_t ldb) {
  static int mode = -1;
  if (mode < 0) {
    const char *e = getenv("PADDLE_C_GEMM");
    mode = !e ? 2 : (strcmp(e, "dnnl") == 0 ? 1 : strcmp(e, "openblas") == 0 ? 0 : 2);
  }
  if (mode != 2) return mode;
#if defined(__AVX512F__)
  if (!blas_has_avx512()) return 1;
#endif
  /* A small N alone does not pay: the LSTM input-weight gradient 1024x128x700 (A transposed)
   * took 10.7 ms in oneDNN and 4.5 ms in OpenBLAS (bench/bench_rnn.py shapes, 1 thread). */
  if (!(M < 256 || K < 256)) return 0;
  /* oneDNN's sgemm with neither operand transposed, B's rows 2 KiB-aligned apart (ldb a multiple
   * of 512 floats: N = 512, 1024, 2048, 3072 ...), K >= 128 and M >= 16 runs 1.2-2x slower than
   * OpenBLAS here (AVX2 machine, 2 threads, medians): 128x1024x784 2.30 vs 1.42 ms, 128x512x1024
   * 1.14 vs 0.93, 128x4096x128 1.47 vs 0.97, 128x3072x768 7.3 vs 4.1, while N = 768 / 1000 /
   * 2000 stay faster in oneDNN (cache-set conflicts on the power-of-two stride). oneDNN keeps the
   * small cases (8x512x512 0.05 vs 0.12 ms, 2048x2048x64 3.0 vs 6.8, K = 10) and transposed A or
   * B (the weight gradient 784x1024x32, A transposed: 0.45 vs 1.20). */
  if (!ta && !tb && ldb >= 512 && ldb % 512 == 0 && K >= 128 && M >= 16) return 0;
  return 1;
}

/* Integer GEMM (Paddle's int32/int64 matmul): exact, wrapping as two's complement on overflow
 * (the products and sums run in the unsigned type, which has defined wrap-around). */
#define DEF_INT_GEMM(NAME, T, UT)                                                                     \
  static void NAME(int ta, int tb, int64_t M, int64_t N, int64_t K, const T *A, int64_t lda, const T *B, \
                   int64_t ldb, T *C, int64_t ldc) {                                                  \
    _Pragma("omp parallel for if ((double)M * N * K > 65536.0 && pd_num_threads() > 1) schedule(static)") \
    for (int64_t i = 0; i < M; i++) {                                                                 \
      UT *c = (UT *)(C + i * ldc);                                                                    \
      for (int64_t n = 0; n < N; n++) c[n] = 0;                                                       \
      for (int64_t k = 0; k < K; k++) {                                                               \
        const UT a = (UT)(ta ? A[k * lda + i] : A[i * lda + k]);                                      \
        if (tb)                                                                                       \
          for (int64_t n = 0; n < N; n++) c[n] += a * (UT)B[n * ldb + k];                             \
        else                                                                                          \
          for (int64_t n = 0; n < N; n++) c[n] += a * (UT)B[k * ldb + n];                             \
      }                                                                                               \
    }                                                                                                 \
  }
DEF_INT_GEMM(gemm_i32, int32_t, uint32_t)
DEF_INT_GEMM(gemm_i64, int64_t, uint64_t)

static void gemm(pd_dtype dt, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A,
                 int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc) {
  if (dt == PD_INT32) {
    gemm_i32(ta, tb, M, N, K, (const int32_t *)A, lda, (const int32_t *)B, ldb, (int32_t *)C, ldc);
    return;
  }
  if (dt == PD_INT64) {
    gemm_i64(ta, tb, M, N, K, (const int64_t *)A, lda, (const int64_t *)B, ldb, (int64_t *)C, ldc);
    return;
  }
  const enum CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  if (dt == PD_FLOAT32 && use_dnnl(M, N, K, ta, tb, ldb) &&
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, (const float *)A, lda,
                 (const float *)B, ldb, 0.0f, (float *)C, ldc) == dnnl_success)
    return;
  if (dt == PD_FLOAT32) {
    cblas_sgemm(CblasRowMajor, TA, TB, (int)M, (int)N, (int)K, 1.0f, (const float *)A, (int)lda,
                (const float *)B, (int)ldb, 0.0f, (float *)C, (int)ldc);
  } else if (dt == PD_FLOAT64) {
    cblas_dgemm(CblasRowMajor, TA, TB, (int)M, (int)N, (int)K, 1.0, (const double *)A, (int)lda,
                (const double *)B, (int)ldb, 0.0, (double *)C, (int)ldc);
  } else if (dt == PD_COMPLEX64) {
    const float one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_cgemm(CblasRowMajor, TA, TB, (int)M, (int)N, (int)K, one, A, (int)lda, B, (int)ldb,
                zero, C, (int)ldc);
  } else {
    const double one[2] = {1, 0}, zero[2] = {0, 0};
    cblas_zgemm(CblasRowMajor, TA, TB, (int)M, (int)N, (int)K, one, A, (int)lda, B, (int)ldb,
                zero, C, (int)ldc);
  }
}

int pd_gemv_rows_f32(const float *x, const float *W, int64_t K, int64_t N, float *y) {
  const char *e = getenv("PADDLE_C_FC_GEMV");
  if ((e && !strcmp(e, "0")) || K <= 0 || N <= 0) return 0;
  int nt = pd_num_threads();
  if (nt > K / 16) nt = (int)(K / 16);
  if (nt < 1) nt = 1;
  /* partial sums per thread but the first, which writes y */
  float *part = nt > 1 ? (float *)pd_alloc(sizeof(float) * (size_t)(N * (nt - 1))) : NULL;
  if (nt > 1 && !part) return 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t k0 = K * t / n, k1 = K * (t + 1) / n;
    float *restrict acc = t == 0 ? y : part + (t - 1) * N;
    memset(acc, 0, sizeof(float) * (size_t)N);
    int64_t k = k0;
    for (; k + 4 <= k1; k += 4) {
      const float x0 = x[k], x1 = x[k + 1], x2 = x[k + 2], x3 = x[k + 3];
      const float *restrict w0 = W + k * N, *restrict w1 = w0 + N, *restrict w2 = w1 + N, *restrict w3 = w2 + N;
      for (int64_t j = 0; j < N; j++) acc[j] += x0 * w0[j] + x1 * w1[j] + x2 * w2[j] + x3 * w3[j];
    }
    for (; k < k1; k++) {
      const float x0 = x[k];
      const float *restrict w0 = W + k * N;
      for (int64_t j = 0; j < N; j++) acc[j] += x0 * w0[j];
    }
    if (n > 1) {
#pragma omp barrier
      /* each thread adds the partials over its slice of the columns */
      const int64_t j0 = N * t / n, j1 = N * (t + 1) / n;
      for (int q = 1; q < n; q++) {
        const float *restrict pq = part + (q - 1) * N;
        for (int64_t j = j0; j < j1; j++) y[j] += pq[j];
      }
    }
  }
  pd_free(part);
  return 1;
}

int pd_gemm_f32_on_dnnl(int ta, int tb, int64_t M, int64_t N, int64_t K, int64_t ldb) {
  return use_dnnl(M, N, K, ta, tb, ldb);
}

/* The same policy for other kernels (pd_gemm.h): row-major C = op(A) op(B), no zero dims. */
void pd_gemm(pd_dtype dt, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda,
             const void *B, int64_t ldb, void *C, int64_t ldc) {
  gemm(dt, ta, tb, M, N, K, A, lda, B, ldb, C, ldc);
}

/* the element offsets of x and y for flat batch index b (batch dims oshape[0..nb), strides bxs, bys) */
static inline void batch_offsets(int64_t b, int nb, const int64_t *oshape, const int64_t *bxs, const int64_t *bys,
                                 int64_t *ox, int64_t *oy) {
  int64_t rem = b, x = 0, y = 0;
  for (int d = nb - 1; d >= 0; d--) {
    int64_t i = rem % oshape[d];
    rem /= oshape[d];
    x += i * bxs[d];
    y += i * bys[d];
  }
  *ox = x, *oy = y;
}

/* the stride between consecutive batches when the batch offsets (strides bs over the batch dims
 * oshape[0..nb)) are b * stride for the flat batch index b; -1 when they are not */
static int64_t batch_stride(const int64_t *bs, const int64_t *oshape, int nb) {
  int64_t st = -1, inner = 1;
  for (int d = nb - 1; d >= 0; d--) {
    if (oshape[d] == 1) continue;
    if (st < 0) st = bs[d] / inner; /* inner is 1 here: only size-1 dims inside */
    else if (bs[d] != st * inner) return -1;
    inner *= oshape[d];
  }
  return st < 0 ? 0 : st;
}

/* bfloat16 on the units (pd_gemm_bf16): one GEMM for a single or folded batch, one batched
 * primitive where both operands' batch offsets are evenly spaced (broadcast included), else one
 * GEMM per batch. PD_ERR_UNIMPLEMENTED when oneDNN declined: the caller computes through float32
 * (out is written again in full). */
static pd_status mm_bf16_units(pd_blas_view va, pd_blas_view vb, int64_t M, int64_t N, int64_t K, int nb,
                               const int64_t *oshape, const int64_t *bxs, const int64_t *bys, int64_t nbatch,
                               int fold, const char *xd, const char *yd, char *od) {
  int ok;
  int64_t sx = batch_stride(bxs, oshape, nb), sy = batch_stride(bys, oshape, nb);
  if (nbatch == 1 || fold)
    ok = pd_gemm_bf16(va.trans, vb.trans, 1, M * nbatch, N, K, xd, va.ld, 0, yd, vb.ld, 0, od, N, 0, 0);
  else if (sx >= 0 && sy >= 0)
    ok = pd_gemm_bf16(va.trans, vb.trans, nbatch, M, N, K, xd, va.ld, sx, yd, vb.ld, sy, od, N, M * N, 0);
  else {
    ok = 1;
    for (int64_t b = 0; b < nbatch && ok; b++) {
      int64_t ox, oy;
      batch_offsets(b, nb, oshape, bxs, bys, &ox, &oy);
      ok = pd_gemm_bf16(va.trans, vb.trans, 1, M, N, K, xd + 2 * ox, va.ld, 0, yd + 2 * oy, vb.ld, 0,
                        od + 2 * b * M * N, N, 0, 0);
    }
  }
  return ok ? PD_OK : PD_ERR_UNIMPLEMENTED;
}

/* out = op(x) @ op(y) for float32/float64/complex64/complex128, and bfloat16 on the units
 * (PD_ERR_UNIMPLEMENTED, no message, when oneDNN declined); out contiguous. */
static pd_status mm_blas(pd_tensor *x0, pd_tensor *y0, int tx, int ty, pd_tensor *out) {
  int64_t M, N, K, oshape[PD_MAX_DIMS];
  int ondim;
  PD_TRY(pd_matmul_shapes(x0, y0, tx, ty, &M, &N, &K, &ondim, oshape));
  const pd_dtype dt = out->dtype;
  const size_t isz = pd_dtype_size(dt);
  if (out->numel == 0) return PD_OK;
  if (K == 0) {
    memset(pd_tensor_data(out), 0, (size_t)out->numel * isz);
    return PD_OK;
  }
  if ((M > INT32_MAX || N > INT32_MAX || K > INT32_MAX))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[matmul] dims above 2^31 are not supported");
  pd_tensor *x = x0, *y = y0;
  pd_tensor_retain(x);
  pd_tensor_retain(y);
  int64_t sxi, sxk, syk, syn;
  pd_mat_strides(x, tx && x->ndim > 1, 1, &sxi, &sxk);
  pd_mat_strides(y, ty && y->ndim > 1, 0, &syk, &syn);
  pd_blas_view va = pd_blas_fit(M, K, sxi, sxk), vb = pd_blas_fit(K, N, syk, syn);
  pd_status s = PD_OK;
  if (!va.ok) {
    pd_tensor *c;
    s = pd_tensor_clone(x, &c);
    pd_tensor_release(x);
    if (s != PD_OK) { pd_tensor_release(y); return s; }
    x = c;
    pd_mat_strides(x, tx && x->ndim > 1, 1, &sxi, &sxk);
    va = pd_blas_fit(M, K, sxi, sxk);
  }
  if (!vb.ok) {
    pd_tensor *c;
    s = pd_tensor_clone(y, &c);
    pd_tensor_release(y);
    if (s != PD_OK) { pd_tensor_release(x); return s; }
    y = c;
    pd_mat_strides(y, ty && y->ndim > 1, 0, &syk, &syn);
    vb = pd_blas_fit(K, N, syk, syn);
  }
  /* batch geometry: out batch dims = oshape[0..nb) */
  const int nbo = ondim - (x0->ndim > 1) - (y0->ndim > 1);
  const int nb = nbo > 0 ? nbo : 0;
  int64_t bxs[PD_MAX_DIMS] = {0}, bys[PD_MAX_DIMS] = {0}, nbatch = 1;
  const int nbx = x->ndim > 2 ? x->ndim - 2 : 0, nby = y->ndim > 2 ? y->ndim - 2 : 0;
  for (int d = 0; d < nb; d++) {
    int ix = d - (nb - nbx), iy = d - (nb - nby);
    bxs[d] = ix >= 0 && x->shape[ix] != 1 ? x->strides[ix] : 0;
    bys[d] = iy >= 0 && y->shape[iy] != 1 ? y->strides[iy] : 0;
    nbatch *= oshape[d];
  }
  const char *xd = (const char *)pd_tensor_data(x), *yd = (const char *)pd_tensor_data(y);
  char *od = (char *)pd_tensor_data(out);
  /* fold: y shared by every batch and x's batch rows evenly spaced -> one GEMM with M*nbatch rows */
  int fold = nbatch > 1 && !va.trans;
  for (int d = 0; d < nb && fold; d++) {
    if (bys[d] != 0) fold = 0;
    int64_t inner = M;
    for (int e = d + 1; e < nb; e++) inner *= oshape[e];
    if (bxs[d] != inner * va.ld) fold = 0;
  }
  if (dt == PD_BFLOAT16) {
    s = mm_bf16_units(va, vb, M, N, K, nb, oshape, bxs, bys, nbatch, fold, xd, yd, od);
  } else if (nbatch == 1 || fold) {
    gemm(dt, va.trans, vb.trans, M * nbatch, N, K, xd, va.ld, yd, vb.ld, od, N);
  } else {
    const int small = (double)M * (double)N * (double)K < 96.0 * 96.0 * 96.0;
#pragma omp parallel for if (small && pd_num_threads() > 1) schedule(static)
    for (int64_t b = 0; b < nbatch; b++) {
      int64_t ox, oy;
      batch_offsets(b, nb, oshape, bxs, bys, &ox, &oy);
      gemm(dt, va.trans, vb.trans, M, N, K, xd + ox * (int64_t)isz, va.ld, yd + oy * (int64_t)isz,
           vb.ld, od + b * M * N * (int64_t)isz, N);
    }
  }
  pd_tensor_release(x);
  pd_tensor_release(y);
  return s;
}

static pd_status mm_via_f32(const pd_matmul_args *a, pd_tensor *out) {
  pd_tensor *xf = NULL, *yf = NULL, *of = NULL;
  pd_status s = pd_tensor_cast(a->x, PD_FLOAT32, &xf);
  if (s == PD_OK) s = pd_tensor_cast(a->y, PD_FLOAT32, &yf);
  if (s == PD_OK) s = pd_tensor_empty(PD_FLOAT32, out->ndim, out->shape, &of);
  if (s == PD_OK) s = mm_blas(xf, yf, a->transpose_x, a->transpose_y, of);
  if (s == PD_OK) s = pd_tensor_copy_(out, of);
  if (xf) pd_tensor_release(xf);
  if (yf) pd_tensor_release(yf);
  if (of) pd_tensor_release(of);
  return s;
}

#define DEF_MM_BLAS(SUF)                                                                      \
  pd_status pd_kernel_matmul_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                              \
    const pd_matmul_args *a = (const pd_matmul_args *)args;                                   \
    return mm_blas(a->x, a->y, a->transpose_x, a->transpose_y, out[0]);                       \
  }
DEF_MM_BLAS(f32)
DEF_MM_BLAS(f64)
DEF_MM_BLAS(c64)
DEF_MM_BLAS(c128)
DEF_MM_BLAS(i32)
DEF_MM_BLAS(i64)
pd_status pd_kernel_matmul_f16(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return mm_via_f32((const pd_matmul_args *)args, out[0]);
}
/* bfloat16: on the CPU's bf16 units where it has them (pd_gemm_bf16), else (or where oneDNN
 * declines the geometry) rounded through the float32 GEMM */
pd_status pd_kernel_matmul_bf16(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_matmul_args *a = (const pd_matmul_args *)args;
  if (pd_gemm_bf16_units()) {
    pd_status s = mm_blas(a->x, a->y, a->transpose_x, a->transpose_y, out[0]);
    if (s != PD_ERR_UNIMPLEMENTED) return s;
  }
  return mm_via_f32(a, out[0]);
}

/* ---- dot: 1-D -> [1], 2-D [N, K] -> [N, 1]; accumulates in double/int64/complex ---- */
#define DACC_u8 int64_t
#define DACC_i8 int64_t
#define DACC_i16 int64_t
#define DACC_i32 int64_t
#define DACC_i64 int64_t
#define DACC_f16 double
#define DACC_bf16 double
#define DACC_f32 double
#define DACC_f64 double
#define DACC_c64 pd_complex128
#define DACC_c128 pd_complex128
#define DEF_DOT(SUF, T, CT)                                                                   \
  pd_status pd_kernel_dot_##SUF(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                              \
    const pd_dot_args *a = (const pd_dot_args *)args;                                         \
    const pd_tensor *x = a->x, *y = a->y;                                                     \
    const int64_t rows = x->ndim == 2 ? x->shape[0] : 1, n = x->shape[x->ndim - 1];           \
    const int64_t xr = x->ndim == 2 ? x->strides[0] : 0, xc = x->strides[x->ndim - 1];        \
    const int64_t yr = y->ndim == 2 ? y->strides[0] : 0, yc = y->strides[y->ndim - 1];        \
    const T *xd = (const T *)pd_tensor_data(x), *yd = (const T *)pd_tensor_data(y);           \
    T *od = (T *)pd_tensor_data(out[0]);                                                      \
    _Pragma("omp parallel for if (rows * n >= 65536 && rows > 1) schedule(static)")           \
    for (int64_t r = 0; r < rows; r++) {                                                      \
      const T *p = xd + r * xr, *q = yd + r * yr;                                             \
      DACC_##SUF acc = 0;                                                                     \
      if (xc == 1 && yc == 1) {                                                               \
        for (int64_t i = 0; i < n; i++)                                                       \
          acc += (DACC_##SUF)PD_LD_##SUF(p + i) * (DACC_##SUF)PD_LD_##SUF(q + i);             \
      } else {                                                                                \
        for (int64_t i = 0; i < n; i++)                                                       \
          acc += (DACC_##SUF)PD_LD_##SUF(p + i * xc) * (DACC_##SUF)PD_LD_##SUF(q + i * yc);   \
      }                                                                                       \
      PD_ST_##SUF(od + r, acc);                                                               \
    }                                                                                         \
    return PD_OK;                                                                             \
  }
PD_FOR_REAL(DEF_DOT)
PD_FOR_COMPLEX(DEF_DOT)
