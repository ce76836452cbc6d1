/* Scans along one axis: cumsum (with flatten, exclusive and reverse) and cumprod. The input is
 * made contiguous and viewed as [outer, n, inner]; inner == 1 scans each row, inner > 1 carries
 * a block of running totals down the rows. Ints accumulate in int64, 16-bit floats in float. */
#include "pd_kernel_util.h"
#include "reduce_common.h"

#define SCAN_CH 256
#define SACC_bool int64_t
#define SACC_u8 int64_t
#define SACC_i8 int64_t
#define SACC_i16 int64_t
#define SACC_i32 int64_t
#define SACC_i64 int64_t
#define SACC_f16 float
#define SACC_bf16 float
#define SACC_f32 float
#define SACC_f64 double
#define SACC_c64 pd_complex64
#define SACC_c128 pd_complex128

/* out[r] = running OP over x[0..r] (or x[r..n) when reverse), excluding x[r] when exclusive */
#define DEF_SCAN(NAME, OP, INIT, SUF, T)                                                      \
  static void NAME##_scan_##SUF(const T *x, T *y, pd_rshape rs, int exclusive, int reverse) { \
    const int64_t no = rs.outer, nr = rs.red, ni = rs.inner;                                  \
    const int64_t ch = ni < SCAN_CH ? ni : SCAN_CH, nch = (ni + ch - 1) / ch;                 \
    const int64_t tasks = no * nch;                                                           \
    _Pragma("omp parallel for if (no * nr * ni >= 65536 && tasks > 1) schedule(static)")      \
    for (int64_t t = 0; t < tasks; t++) {                                                     \
      int64_t o = t / nch, j0 = (t % nch) * ch, w = ni - j0 < ch ? ni - j0 : ch;              \
      SACC_##SUF acc[SCAN_CH];                                                                \
      for (int64_t j = 0; j < w; j++) acc[j] = (INIT);                                        \
      for (int64_t k = 0; k < nr; k++) {                                                      \
        int64_t r = reverse ? nr - 1 - k : k;                                                 \
        const T *p = x + (o * nr + r) * ni + j0;                                              \
        T *q = y + (o * nr + r) * ni + j0;                                                    \
        if (exclusive) {                                                                      \
          for (int64_t j = 0; j < w; j++) {                                                   \
            SACC_##SUF v = (SACC_##SUF)PD_LD_##SUF(p + j);                                    \
            PD_ST_##SUF(q + j, acc[j]);                                                       \
            acc[j] = acc[j] OP v;                                                             \
          }                                                                                   \
        } else {                                                                              \
          for (int64_t j = 0; j < w; j++) {                                                   \
            acc[j] = acc[j] OP (SACC_##SUF)PD_LD_##SUF(p + j);                                \
            PD_ST_##SUF(q + j, acc[j]);                                                       \
          }                                                                                   \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }

#define DEF_CUMSUM(SUF, T, CT)                                                                \
  DEF_SCAN(cumsum, +, 0, SUF, T)                                                              \
  pd_status pd_kernel_cumsum_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                              \
    const pd_cumsum_args *a = (const pd_cumsum_args *)args;                                   \
    pd_tensor *xc;                                                                            \
    pd_rshape rs;                                                                             \
    if (a->flatten || a->x->ndim == 0) {                                                      \
      PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                \
      rs.outer = 1;                                                                           \
      rs.red = a->x->numel;                                                                   \
      rs.inner = 1;                                                                           \
    } else {                                                                                  \
      int ax;                                                                                 \
      PD_TRY(pd_norm_axis_as(PD_ERR_OUT_OF_RANGE, "cumsum", a->axis, a->x->ndim, &ax));                              \
      PD_TRY(pd_axis_prepare(a->x, ax, &xc, &rs));                                            \
    }                                                                                         \
    cumsum_scan_##SUF((const T *)pd_tensor_data(xc), (T *)pd_tensor_data(out[0]), rs,         \
                      a->exclusive, a->reverse);                                              \
    pd_tensor_release(xc);                                                                    \
    return PD_OK;                                                                             \
  }
PD_FOR_REAL(DEF_CUMSUM)
PD_FOR_COMPLEX(DEF_CUMSUM)

#define DEF_CUMPROD(SUF, T, CT)                                                               \
  DEF_SCAN(cumprod, *, 1, SUF, T)                                                             \
  pd_status pd_kernel_cumprod_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                              \
    const pd_cumprod_args *a = (const pd_cumprod_args *)args;                                 \
    pd_tensor *xc;                                                                            \
    pd_rshape rs;                                                                             \
    int ax;                                                                                   \
    PD_TRY(pd_norm_axis("cumprod", a->dim, a->x->ndim, &ax));                                 \
    PD_TRY(pd_axis_prepare(a->x, ax, &xc, &rs));                                              \
    cumprod_scan_##SUF((const T *)pd_tensor_data(xc), (T *)pd_tensor_data(out[0]), rs, 0, 0); \
    pd_tensor_release(xc);                                                                    \
    return PD_OK;                                                                             \
  }
PD_FOR_REAL(DEF_CUMPROD)
PD_FOR_COMPLEX(DEF_CUMPROD)
