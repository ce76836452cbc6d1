/* Axis-list reductions: sum, mean, prod, max/min (amax/amin), all/any, and the two-pass ones
 * (logsumexp, var/std, frobenius_norm, p_norm). The input is brought to a contiguous
 * [outer, red, inner] layout (reduce_common.h); inner == 1 reduces rows with 64 independent
 * accumulators and pairwise splitting, inner > 1 adds rows into column blocks (blocked sums
 * for accuracy). OpenMP splits independent output slices, or the rows of one long reduction. */
#include <stdlib.h>
#include "pd_kernel_util.h"
#include "pd_vmath.h"
#include "reduce_common.h"

#define RED_GRAIN 65536   /* elements below which a reduction stays on one thread */
#define COL_CH 1024       /* columns per block in inner > 1 reductions */
#define COL_BLOCK 128     /* rows summed into a fresh block before joining the total */
#define ROW_LEAF 2048     /* pairwise-summation leaf size */
#define LEAF_W 64         /* independent accumulators in a leaf (one vectorised loop); the
                             fold in DEF_RED assumes 64 */

typedef void (*row_fn)(const char *p, int64_t n, void *acc);
typedef void (*col_fn)(const char *p, int64_t red, int64_t ld, int64_t w, void *acc);
typedef void (*comb_fn)(void *acc, const void *other);
typedef struct { row_fn row; col_fn col; comb_fn comb; size_t isz, asz; } red_impl;

/* Reduces x ([outer, red, inner], contiguous) into acc[outer * inner] (the impl's ACC type). */
static pd_status run_reduce(const red_impl *f, const char *x, pd_rshape rs, char *acc) {
  const int64_t NO = rs.outer, NR = rs.red, NI = rs.inner;
  const size_t isz = f->isz, asz = f->asz;
  const int nt = pd_num_threads();
  const int par = NO * NR * NI >= RED_GRAIN && nt > 1;
  if (NO * NI == 0) return PD_OK;
  if (NI == 1) {
    if (!par || NO >= nt || NR < 4 * ROW_LEAF) {
#pragma omp parallel for if (par) schedule(static)
      for (int64_t o = 0; o < NO; o++) f->row(x + (size_t)(o * NR) * isz, NR, acc + (size_t)o * asz);
      return PD_OK;
    }
    /* few long rows: each row split into nt parts, partial results combined in order */
    const int64_t step0 = ((NR + nt - 1) / nt + LEAF_W - 1) / LEAF_W * LEAF_W;
    const int64_t P = (NR + step0 - 1) / step0, tasks = NO * P;
    char *part = (char *)malloc((size_t)tasks * asz);
    if (!part) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[reduce] out of memory");
    const int64_t step = step0;
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < tasks; t++) {
      int64_t o = t / P, b = (t % P) * step, e = b + step < NR ? b + step : NR;
      f->row(x + (size_t)(o * NR + b) * isz, e - b, part + (size_t)t * asz);
    }
    for (int64_t o = 0; o < NO; o++) {
      memcpy(acc + (size_t)o * asz, part + (size_t)(o * P) * asz, asz);
      for (int64_t k = 1; k < P; k++) f->comb(acc + (size_t)o * asz, part + (size_t)(o * P + k) * asz);
    }
    free(part);
    return PD_OK;
  }
  int64_t ch = COL_CH;
  if (par && NO * ((NI + ch - 1) / ch) < nt) {
    ch = (NI + nt - 1) / nt;
    ch = ch < 16 ? 16 : (ch + 15) / 16 * 16;
  }
  const int64_t nch = (NI + ch - 1) / ch, tasks = NO * nch;
#pragma omp parallel for if (par && tasks > 1) schedule(static)
  for (int64_t t = 0; t < tasks; t++) {
    int64_t o = t / nch, j0 = (t % nch) * ch, w = NI - j0 < ch ? NI - j0 : ch;
    f->col(x + (size_t)(o * NR * NI + j0) * isz, NR, NI, w, acc + (size_t)(o * NI + j0) * asz);
  }
  return PD_OK;
}

/* One reduction kind for one dtype: ACC accumulator type, INIT, COMB(a, b) -> combined, LOAD(p);
 * SEED: COMB(INIT, x) == x, so a long row's first block can seed the lanes (sum, prod). */
#define DEF_RED(NAME, SUF, T, ACC, INIT, COMB, LOAD, SEED)                                          \
  static ACC NAME##_leaf_##SUF(const char *p, int64_t n) {                                    \
    ACC a[LEAF_W];                                                                            \
    const int64_t s = (int64_t)sizeof(T);                                                     \
    int64_t i = 0;                                                                            \
    if ((SEED) && n >= LEAF_W) { /* gcc made a zero fill a rep stos: 15% of a 1024-element \
                                    row sum (for max/min seeding measured slower) */          \
      for (int64_t j = 0; j < LEAF_W; j++) a[j] = LOAD(p + j * s);                            \
      i = LEAF_W;                                                                             \
    } else {                                                                                  \
      for (int k = 0; k < LEAF_W; k++) a[k] = (INIT);                                         \
    }                                                                                         \
    for (; i + LEAF_W <= n; i += LEAF_W) {                                                    \
      const char *q = p + i * s;                                                              \
      for (int64_t j = 0; j < LEAF_W; j++) a[j] = COMB(a[j], LOAD(q + j * s));                \
    }                                                                                         \
    for (int k = 0; i < n; i++, k++) a[k] = COMB(a[k], LOAD(p + i * s));                      \
    /* tree fold with constant trip counts (they vectorise; LEAF_W == 64) */                 \
    for (int k = 0; k < 32; k++) a[k] = COMB(a[k], a[k + 32]);                                \
    for (int k = 0; k < 16; k++) a[k] = COMB(a[k], a[k + 16]);                                \
    for (int k = 0; k < 8; k++) a[k] = COMB(a[k], a[k + 8]);                                  \
    for (int k = 0; k < 4; k++) a[k] = COMB(a[k], a[k + 4]);                                  \
    for (int k = 0; k < 2; k++) a[k] = COMB(a[k], a[k + 2]);                                  \
    a[0] = COMB(a[0], a[1]);                                                                  \
    return a[0];                                                                              \
  }                                                                                           \
  static ACC NAME##_pair_##SUF(const char *p, int64_t n) {                                    \
    if (n <= ROW_LEAF) return NAME##_leaf_##SUF(p, n);                                        \
    int64_t h = (n / 2 + LEAF_W - 1) / LEAF_W * LEAF_W;                                     \
    ACC a = NAME##_pair_##SUF(p, h), b = NAME##_pair_##SUF(p + h * (int64_t)sizeof(T), n - h); \
    return COMB(a, b);                                                                        \
  }                                                                                           \
  static void NAME##_row_##SUF(const char *p, int64_t n, void *acc) {                         \
    *(ACC *)acc = NAME##_pair_##SUF(p, n);                                                    \
  }                                                                                           \
  static void NAME##_col_##SUF(const char *p, int64_t red, int64_t ld, int64_t w, void *out) { \
    ACC tot[COL_CH], blk[COL_CH];                                                             \
    const int64_t s = (int64_t)sizeof(T);                                                     \
    for (int64_t j = 0; j < w; j++) tot[j] = (INIT);                                          \
    if (red == 0) {                                                                           \
      memcpy(out, tot, (size_t)w * sizeof(ACC));                                              \
      return;                                                                                 \
    }                                                                                         \
    for (int64_t r0 = 0; r0 < red; r0 += COL_BLOCK) {                                         \
      int64_t r1 = r0 + COL_BLOCK < red ? r0 + COL_BLOCK : red;                               \
      for (int64_t j = 0; j < w; j++) blk[j] = LOAD(p + (r0 * ld + j) * s);                   \
      for (int64_t r = r0 + 1; r < r1; r++) {                                                 \
        const char *q = p + r * ld * s;                                                       \
        for (int64_t j = 0; j < w; j++) blk[j] = COMB(blk[j], LOAD(q + j * s));               \
      }                                                                                       \
      if (r0 == 0) memcpy(tot, blk, (size_t)w * sizeof(ACC));                                 \
      else for (int64_t j = 0; j < w; j++) tot[j] = COMB(tot[j], blk[j]);                     \
    }                                                                                         \
    memcpy(out, tot, (size_t)w * sizeof(ACC));                                                \
  }                                                                                           \
  static void NAME##_comb_##SUF(void *a, const void *b) {                                     \
    *(ACC *)a = COMB(*(ACC *)a, *(const ACC *)b);                                             \
  }                                                                                           \
  static const red_impl NAME##_impl_##SUF = {NAME##_row_##SUF, NAME##_col_##SUF,              \
                                             NAME##_comb_##SUF, sizeof(T), sizeof(ACC)};

#define C_ADD(a, b) ((a) + (b))
#define C_MUL(a, b) ((a) * (b))
#define C_MAX(a, b) ((((b) > (a)) | ((b) != (b))) ? (b) : (a))
#define C_MIN(a, b) ((((b) < (a)) | ((b) != (b))) ? (b) : (a))
#define C_AND(a, b) ((a) & (b))
#define C_OR(a, b) ((a) | (b))

/* accumulator type per dtype for sum/prod: ints in int64, 16-bit floats in float */
#define ACC_bool int64_t
#define ACC_u8 int64_t
#define ACC_i8 int64_t
#define ACC_i16 int64_t
#define ACC_i32 int64_t
#define ACC_i64 int64_t
#define ACC_f16 float
#define ACC_bf16 float
#define ACC_f32 float
#define ACC_f64 double
#define ACC_c64 pd_complex64
#define ACC_c128 pd_complex128
/* the pd_dtype of the accumulator */
#define ACCDT_bool PD_INT64
#define ACCDT_u8 PD_INT64
#define ACCDT_i8 PD_INT64
#define ACCDT_i16 PD_INT64
#define ACCDT_i32 PD_INT64
#define ACCDT_i64 PD_INT64
#define ACCDT_f16 PD_FLOAT32
#define ACCDT_bf16 PD_FLOAT32
#define ACCDT_f32 PD_FLOAT32
#define ACCDT_f64 PD_FLOAT64
#define ACCDT_c64 PD_COMPLEX64
#define ACCDT_c128 PD_COMPLEX128

/* Writes n accumulators of dtype adt into out (contiguous), converting to out's dtype. */
static void store_acc(pd_tensor *out, const void *acc, pd_dtype adt, int64_t n) {
  char *d = (char *)pd_tensor_data(out);
  if (out->dtype == adt) {
    if ((const void *)d != acc) memcpy(d, acc, (size_t)n * pd_dtype_size(adt));
    return;
  }
  size_t osz = pd_dtype_size(out->dtype), asz = pd_dtype_size(adt);
  if (adt == PD_FLOAT32 && out->dtype == PD_FLOAT16) {
    for (int64_t i = 0; i < n; i++) ((pd_float16 *)d)[i] = pd_f32_to_f16(((const float *)acc)[i]);
  } else if (adt == PD_FLOAT32 && out->dtype == PD_BFLOAT16) {
    for (int64_t i = 0; i < n; i++) ((pd_bfloat16 *)d)[i] = pd_f32_to_bf16(((const float *)acc)[i]);
  } else if (adt == PD_INT64) {
    for (int64_t i = 0; i < n; i++)
      pd_store_from_int64(d + (size_t)i * osz, out->dtype, ((const int64_t *)acc)[i]);
  } else {
    for (int64_t i = 0; i < n; i++) {
      double re, im;
      pd_load_as_complex((const char *)acc + (size_t)i * asz, adt, &re, &im);
      pd_store_from_complex(d + (size_t)i * osz, out->dtype, re, im);
    }
  }
}

/* [r1, kept, r2] reductions of a contiguous x (a per-channel sum of NCHW, the bias gradient):
 * rows of r2 are reduced first (rows in parallel), then the r1 partials of each kept index are
 * combined in order; no transposed copy. Needs rows of >= 16 values and an actual r1. */
static int rkr_split(const pd_tensor *x, unsigned mask, int64_t *r1, int64_t *r2) {
  int64_t gsize[PD_MAX_DIMS];
  int gred[PD_MAX_DIMS], ng = 0;
  if (!pd_tensor_is_contiguous(x)) return 0;
  for (int d = 0; d < x->ndim; d++) {
    if (x->shape[d] == 1) continue;
    int r = (mask >> d) & 1;
    if (ng > 0 && gred[ng - 1] == r) {
      gsize[ng - 1] *= x->shape[d];
    } else {
      gsize[ng] = x->shape[d];
      gred[ng++] = r;
    }
  }
  if (ng != 3 || !gred[0] || gred[1] || !gred[2] || gsize[2] < 16 || !gsize[0] || !gsize[1]) return 0;
  *r1 = gsize[0];
  *r2 = gsize[2];
  return 1;
}
static pd_status run_rkr(const red_impl *f, const char *x, int64_t r1, int64_t k, int64_t r2, char *acc) {
  const size_t asz = f->asz;
  char *part = (char *)malloc((size_t)(r1 * k) * asz);
  if (!part) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[reduce] out of memory");
  pd_rshape rows = {r1 * k, r2, 1};
  pd_status s = run_reduce(f, x, rows, part);
  if (s == PD_OK) {
    memcpy(acc, part, (size_t)k * asz);
    for (int64_t a = 1; a < r1; a++)
      for (int64_t j = 0; j < k; j++) f->comb(acc + (size_t)j * asz, part + (size_t)(a * k + j) * asz);
  }
  free(part);
  return s;
}

typedef struct { pd_tensor *x; pd_int_array axis; int keepdim; } red_args;

/* Runs impl f (accumulator dtype adt) over args' x and axes, leaving the accumulators in *accp
 * (which may be out's own data); scale != 1 multiplies them (mean). */
static pd_status reduce_into(const char *op, const red_impl *f, pd_dtype adt, const void *args,
                             pd_tensor *out, int need_nonempty, double scale_by_red) {
  const red_args *a = (const red_args *)args;
  unsigned mask;
  PD_TRY(pd_reduce_mask(op, a->x->ndim, a->axis, &mask));
  pd_tensor *xc;
  pd_rshape rs;
  int64_t r1 = 0, r2 = 0;
  const int rkr = rkr_split(a->x, mask, &r1, &r2);
  if (rkr) {
    PD_TRY(pd_tensor_contiguous(a->x, &xc));
    rs.outer = 1;
    rs.red = r1 * r2;
    rs.inner = a->x->numel / rs.red;
  } else {
    PD_TRY(pd_reduce_prepare(a->x, mask, &xc, &rs));
  }
  if (need_nonempty && rs.red == 0 && out->numel > 0) {
    pd_tensor_release(xc);
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected a non-empty reduction, received a zero-size axis", op);
  }
  const int64_t n = rs.outer * rs.inner;
  const size_t asz = pd_dtype_size(adt);
  char *acc = out->dtype == adt ? (char *)pd_tensor_data(out) : (char *)malloc((size_t)(n ? n : 1) * asz);
  if (!acc) {
    pd_tensor_release(xc);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
  }
  pd_status s = rkr ? run_rkr(f, (const char *)pd_tensor_data(xc), r1, n, r2, acc)
                    : run_reduce(f, (const char *)pd_tensor_data(xc), rs, acc);
  pd_tensor_release(xc);
  if (s == PD_OK && scale_by_red) {
    double k = rs.red ? 1.0 / (double)rs.red : NAN;
    for (int64_t i = 0; i < n; i++) {
      if (adt == PD_FLOAT32) ((float *)acc)[i] *= (float)k;
      else if (adt == PD_FLOAT64) ((double *)acc)[i] *= k;
      else if (adt == PD_COMPLEX64) ((pd_complex64 *)acc)[i] *= (float)k;
      else if (adt == PD_COMPLEX128) ((pd_complex128 *)acc)[i] *= k;
    }
  }
  if (s == PD_OK) store_acc(out, acc, adt, n);
  if (acc != (char *)pd_tensor_data(out)) free(acc);
  return s;
}

/* ---- sum, mean, prod ---- */
#define DEF_SUM(SUF, T, CT)                                                                 \
  DEF_RED(sum, SUF, T, ACC_##SUF, 0, C_ADD, (ACC_##SUF) PD_LD_##SUF, 1)                      \
  pd_status pd_kernel_sum_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return reduce_into("sum", &sum_impl_##SUF, ACCDT_##SUF, args, out[0], 0, 0);            \
  }
PD_FOR_ALL(DEF_SUM)

#define DEF_MEAN(SUF, T, CT)                                                                \
  pd_status pd_kernel_mean_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                            \
    return reduce_into("mean", &sum_impl_##SUF, ACCDT_##SUF, args, out[0], 0, 1);           \
  }
PD_FOR_FLOAT(DEF_MEAN)
PD_FOR_COMPLEX(DEF_MEAN)

#define DEF_PROD(SUF, T, CT)                                                                \
  DEF_RED(prod, SUF, T, ACC_##SUF, 1, C_MUL, (ACC_##SUF) PD_LD_##SUF, 1)                      \
  pd_status pd_kernel_prod_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                            \
    return reduce_into("prod", &prod_impl_##SUF, ACCDT_##SUF, args, out[0], 0, 0);          \
  }
PD_FOR_REAL(DEF_PROD)
PD_FOR_COMPLEX(DEF_PROD)

/* ---- max, min (amax, amin share the forward) ---- */
#define MAXDT_u8 PD_UINT8
#define MAXDT_i8 PD_INT8
#define MAXDT_i16 PD_INT16
#define MAXDT_i32 PD_INT32
#define MAXDT_i64 PD_INT64
#define MAXDT_f16 PD_FLOAT32
#define MAXDT_bf16 PD_FLOAT32
#define MAXDT_f32 PD_FLOAT32
#define MAXDT_f64 PD_FLOAT64
#define MAXACC_u8 uint8_t
#define MAXACC_i8 int8_t
#define MAXACC_i16 int16_t
#define MAXACC_i32 int32_t
#define MAXACC_i64 int64_t
#define MAXACC_f16 float
#define MAXACC_bf16 float
#define MAXACC_f32 float
#define MAXACC_f64 double
#define DEF_MAXMIN(SUF, T, CT)                                                              \
  DEF_RED(max, SUF, T, MAXACC_##SUF, PD_LD_##SUF(p), C_MAX, (MAXACC_##SUF) PD_LD_##SUF, 0)     \
  DEF_RED(min, SUF, T, MAXACC_##SUF, PD_LD_##SUF(p), C_MIN, (MAXACC_##SUF) PD_LD_##SUF, 0)     \
  pd_status pd_kernel_max_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return reduce_into("max", &max_impl_##SUF, MAXDT_##SUF, args, out[0], 1, 0);            \
  }                                                                                         \
  pd_status pd_kernel_min_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return reduce_into("min", &min_impl_##SUF, MAXDT_##SUF, args, out[0], 1, 0);            \
  }                                                                                         \
  pd_status pd_kernel_amax_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                            \
    return reduce_into("amax", &max_impl_##SUF, MAXDT_##SUF, args, out[0], 1, 0);           \
  }                                                                                         \
  pd_status pd_kernel_amin_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                            \
    return reduce_into("amin", &min_impl_##SUF, MAXDT_##SUF, args, out[0], 1, 0);           \
  }
PD_FOR_REAL(DEF_MAXMIN)

/* ---- all, any (any dtype in, bool out; accumulate 0/1 bytes) ---- */
#define NZ(SUF, p) ((uint8_t)(PD_LD_##SUF(p) != 0))
#define DEF_ALLANY(SUF, T, CT)                                                              \
  static inline uint8_t nz_##SUF(const char *p) { return NZ(SUF, p); }                      \
  DEF_RED(all, SUF, T, uint8_t, 1, C_AND, nz_##SUF, 0)                                         \
  DEF_RED(any, SUF, T, uint8_t, 0, C_OR, nz_##SUF, 0)                                          \
  pd_status pd_kernel_all_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return reduce_into("all", &all_impl_##SUF, PD_BOOL, args, out[0], 0, 0);                \
  }                                                                                         \
  pd_status pd_kernel_any_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return reduce_into("any", &any_impl_##SUF, PD_BOOL, args, out[0], 0, 0);                \
  }
PD_FOR_ALL(DEF_ALLANY)

/* ---- two-pass reductions in double: acc = fold over the axis of ACCUM(acc, v, c, q), where
 * c is a per-output value from a first pass (max for logsumexp, mean for var) ---- */
#define DEF_MR(NAME, SUF, T, INIT, ACCUM)                                                   \
  static void mr_##NAME##_##SUF(const char *x, pd_rshape rs, const double *c, double q,     \
                                double *acc) {                                              \
    const int64_t NO = rs.outer, NR = rs.red, NI = rs.inner, s = (int64_t)sizeof(T);           \
    const int64_t ch = NI < COL_CH ? NI : COL_CH, nch = (NI + ch - 1) / ch, tasks = NO * nch;   \
    _Pragma("omp parallel for if (NO * NR * NI >= RED_GRAIN && tasks > 1) schedule(static)")   \
    for (int64_t t = 0; t < tasks; t++) {                                                   \
      int64_t o = t / nch, j0 = (t % nch) * ch, w = NI - j0 < ch ? NI - j0 : ch;              \
      const char *base = x + (o * NR * NI + j0) * s;                                          \
      double *a = acc + o * NI + j0;                                                         \
      const double *cc = c ? c + o * NI + j0 : NULL;                                         \
      for (int64_t j = 0; j < w; j++) a[j] = (INIT);                                        \
      for (int64_t r = 0; r < NR; r++) {                                                     \
        const char *p = base + r * NI * s;                                                   \
        for (int64_t j = 0; j < w; j++) {                                                   \
          double v = (double)PD_LD_##SUF(p + j * s), cv = cc ? cc[j] : 0.0;                 \
          (void)cv;                                                                         \
          (void)q;                                                                          \
          ACCUM(a[j], v, cv, q);                                                            \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }

#define A_LSE(a, v, c, q) a += pd_vexp(v - c)

/* logsumexp's exp-sum over rows (inner == 1): 8 partial sums so the double exp vectorises */
#define DEF_LSE_ROWS(SUF, T)                                                                 \
  static void mr_lse_rows_##SUF(const char *x, pd_rshape rs, const double *c, double q,     \
                                double *acc) {                                              \
    (void)q;                                                                                \
    const int64_t NO = rs.outer, NR = rs.red;                                                \
    _Pragma("omp parallel for if (NO * NR >= RED_GRAIN && NO > 1) schedule(static)")         \
    for (int64_t o = 0; o < NO; o++) {                                                       \
      const T *p = (const T *)x + o * NR;                                                    \
      const double cv = c[o];                                                                \
      double s[8] = {0};                                                                     \
      int64_t r = 0;                                                                         \
      for (; r + 8 <= NR; r += 8)                                                            \
        for (int k = 0; k < 8; k++) s[k] += pd_vexp((double)PD_LD_##SUF(p + r + k) - cv);    \
      for (; r < NR; r++) s[0] += pd_vexp((double)PD_LD_##SUF(p + r) - cv);                  \
      acc[o] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));           \
    }                                                                                        \
  }
#define A_VAR(a, v, c, q) { double d_ = v - c; a += d_ * d_; }
#define A_MEAN(a, v, c, q) a += v
#define A_SQ(a, v, c, q) a += v * v
#define A_ABS(a, v, c, q) a += fabs(v)
#define A_POW(a, v, c, q) a += pow(fabs(v), q)
#define A_ZERO(a, v, c, q) a += (v != 0)
#define A_INF(a, v, c, q) { double u_ = fabs(v); if (u_ > a || u_ != u_) a = u_; }
#define A_NINF(a, v, c, q) { double u_ = fabs(v); if (u_ < a || u_ != u_) a = u_; }
#define A_MAX(a, v, c, q) { if (v > a || v != v) a = v; }

#define DEF_MR_ALL(SUF, T, CT)                                                              \
  DEF_MR(lse, SUF, T, 0.0, A_LSE)                                                           \
  DEF_MR(var, SUF, T, 0.0, A_VAR)                                                           \
  DEF_MR(mean, SUF, T, 0.0, A_MEAN)                                                         \
  DEF_MR(sq, SUF, T, 0.0, A_SQ)                                                             \
  DEF_MR(abs, SUF, T, 0.0, A_ABS)                                                           \
  DEF_MR(pow, SUF, T, 0.0, A_POW)                                                           \
  DEF_MR(zero, SUF, T, 0.0, A_ZERO)                                                         \
  DEF_MR(inf, SUF, T, 0.0, A_INF)                                                           \
  DEF_MR(ninf, SUF, T, INFINITY, A_NINF)                                                    \
  DEF_MR(max, SUF, T, -INFINITY, A_MAX)                                                     \
  DEF_LSE_ROWS(SUF, T)                                                                      \
  static const mr_set mrs_##SUF = {mr_lse_rows_##SUF, mr_lse_##SUF, mr_var_##SUF, mr_mean_##SUF, mr_sq_##SUF,  \
                                   mr_abs_##SUF, mr_pow_##SUF, mr_zero_##SUF, mr_inf_##SUF,  \
                                   mr_ninf_##SUF, mr_max_##SUF};

typedef void (*mr_fn)(const char *x, pd_rshape rs, const double *c, double q, double *acc);
typedef struct { mr_fn lse_rows, lse, var, mean, sq, abs, pow, zero, inf, ninf, max; } mr_set;
PD_FOR_FLOAT(DEF_MR_ALL)

typedef enum { K_LSE, K_VAR, K_STD, K_FROB, K_PNORM } mr_kind;

/* Runs a two-pass reduction over the axes in mask and writes out[0] (float dtype of x). */
static pd_status mr_run(const char *op, const mr_set *ms, mr_kind kind, pd_tensor *x, unsigned mask,
                        int unbiased, double porder, pd_tensor *out) {
  pd_tensor *xc;
  pd_rshape rs;
  PD_TRY(pd_reduce_prepare(x, mask, &xc, &rs));
  const int64_t n = rs.outer * rs.inner;
  double *acc = (double *)malloc(sizeof(double) * (size_t)(2 * n + 1));
  if (!acc) {
    pd_tensor_release(xc);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
  }
  double *c = acc + n;
  const char *xd = (const char *)pd_tensor_data(xc);
  const double NR = (double)rs.red;
  if (kind == K_LSE) {
    ms->max(xd, rs, NULL, 0, c);
    for (int64_t i = 0; i < n; i++) if (isinf(c[i])) c[i] = 0; /* all -inf, or an inf present */
    (rs.inner == 1 ? ms->lse_rows : ms->lse)(xd, rs, c, 0, acc);
    for (int64_t i = 0; i < n; i++) acc[i] = c[i] + pd_vlog(acc[i]);
  } else if (kind == K_VAR || kind == K_STD) {
    ms->mean(xd, rs, NULL, 0, c);
    for (int64_t i = 0; i < n; i++) c[i] /= NR;
    ms->var(xd, rs, c, 0, acc);
    double den = NR - (unbiased ? 1.0 : 0.0);
    for (int64_t i = 0; i < n; i++) {
      acc[i] = den > 0 ? acc[i] / den : NAN;
      if (kind == K_STD) acc[i] = sqrt(acc[i]);
    }
  } else if (kind == K_FROB) {
    ms->sq(xd, rs, NULL, 0, acc);
    for (int64_t i = 0; i < n; i++) acc[i] = sqrt(acc[i]);
  } else {
    if (isinf(porder)) {
      (porder > 0 ? ms->inf : ms->ninf)(xd, rs, NULL, 0, acc);
    } else if (porder == 0) {
      ms->zero(xd, rs, NULL, 0, acc);
    } else if (porder == 1) {
      ms->abs(xd, rs, NULL, 0, acc);
    } else if (porder == 2) {
      ms->sq(xd, rs, NULL, 0, acc);
      for (int64_t i = 0; i < n; i++) acc[i] = sqrt(acc[i]);
    } else {
      ms->pow(xd, rs, NULL, porder, acc);
      for (int64_t i = 0; i < n; i++) acc[i] = pow(acc[i], 1.0 / porder);
    }
  }
  pd_tensor_release(xc);
  store_acc(out, acc, PD_FLOAT64, n);
  free(acc);
  return PD_OK;
}

static pd_status mr_axes(const char *op, const mr_set *ms, mr_kind kind, const void *args,
                         int unbiased, pd_tensor *out) {
  const red_args *a = (const red_args *)args;
  unsigned mask;
  PD_TRY(pd_reduce_mask(op, a->x->ndim, a->axis, &mask));
  return mr_run(op, ms, kind, a->x, mask, unbiased, 0, out);
}

#define DEF_MR_KERNELS(SUF, T, CT)                                                          \
  pd_status pd_kernel_logsumexp_##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                            \
    return mr_axes("logsumexp", &mrs_##SUF, K_LSE, args, 0, out[0]);                        \
  }                                                                                         \
  pd_status pd_kernel_var_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return mr_axes("var", &mrs_##SUF, K_VAR, args, ((const pd_var_args *)args)->unbiased,   \
                   out[0]);                                                                 \
  }                                                                                         \
  pd_status pd_kernel_std_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return mr_axes("std", &mrs_##SUF, K_STD, args, ((const pd_std_args *)args)->unbiased,   \
                   out[0]);                                                                 \
  }                                                                                         \
  pd_status pd_kernel_frobenius_norm_##SUF(const void *args, pd_tensor **out, int n_out) {  \
    (void)n_out;                                                                            \
    return mr_axes("frobenius_norm", &mrs_##SUF, K_FROB, args, 0, out[0]);                  \
  }                                                                                         \
  pd_status pd_kernel_p_norm_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                            \
    const pd_p_norm_args *a = (const pd_p_norm_args *)args;                                 \
    unsigned mask;                                                                          \
    if (a->asvector) {                                                                      \
      mask = a->x->ndim > 0 ? (1u << a->x->ndim) - 1 : 1u;                                  \
    } else {                                                                                \
      int ax;                                                                               \
      PD_TRY(pd_norm_axis("p_norm", a->axis, a->x->ndim, &ax));                             \
      mask = 1u << ax;                                                                      \
    }                                                                                       \
    return mr_run("p_norm", &mrs_##SUF, K_PNORM, a->x, mask, 0, a->porder, out[0]);         \
  }
PD_FOR_FLOAT(DEF_MR_KERNELS)
