/* softmax and log_softmax along one axis, numerically stable (the max is subtracted before exp).
 * Contiguous [outer, n, inner] layout: inner == 1 works row by row (max, exp+sum, scale), inner > 1
 * on column blocks. float32/float64 keep exp(x - max) in the output and rescale it; the 16-bit
 * floats compute in float and evaluate exp twice rather than round the intermediate. */
#include <float.h>
#include "pd_kernel_util.h"
#include "reduce_common.h"

#define SM_CH 64
#define SEXP_f16 expf
#define SEXP_bf16 expf
#define SEXP_f32 expf
#define SEXP_f64 exp
#define SLOG_f16 logf
#define SLOG_bf16 logf
#define SLOG_f32 logf
#define SLOG_f64 log
#define SAME_f16 0
#define SAME_bf16 0
#define SAME_f32 1
#define SAME_f64 1

/* LOG: 0 softmax, 1 log_softmax */
#define DEF_SOFTMAX(NAME, LOG, SUF, T, CT)                                                     \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                               \
    const pd_softmax_args *a = (const pd_softmax_args *)args;                                  \
    int ax;                                                                                    \
    PD_TRY(pd_norm_axis(#NAME, a->axis, a->x->ndim, &ax));                                     \
    pd_tensor *xc;                                                                             \
    pd_rshape rs;                                                                              \
    PD_TRY(pd_axis_prepare(a->x, ax, &xc, &rs));                                               \
    const T *x = (const T *)pd_tensor_data(xc);                                                \
    T *y = (T *)pd_tensor_data(out[0]);                                                        \
    const int64_t no = rs.outer, nr = rs.red, ni = rs.inner;                                   \
    const int64_t ch = ni < SM_CH ? ni : SM_CH, nch = (ni + ch - 1) / ch, tasks = no * nch;    \
    _Pragma("omp parallel for if (no * nr * ni >= 32768 && tasks > 1) schedule(static)")       \
    for (int64_t t = 0; t < tasks; t++) {                                                      \
      int64_t o = t / nch, j0 = (t % nch) * ch, w = ni - j0 < ch ? ni - j0 : ch;               \
      const T *xb = x + o * nr * ni + j0;                                                      \
      T *yb = y + o * nr * ni + j0;                                                            \
      if (ni == 1) {                                                                           \
        CT m[8];                                                                               \
        for (int k = 0; k < 8; k++) m[k] = -INFINITY;                                          \
        int64_t r = 0;                                                                         \
        for (; r + 8 <= nr; r += 8)                                                            \
          for (int k = 0; k < 8; k++) {                                                        \
            CT v = PD_LD_##SUF(xb + r + k);                                                    \
            m[k] = v > m[k] || v != v ? v : m[k];                                              \
          }                                                                                    \
        for (int k = 0; r < nr; r++, k++) {                                                    \
          CT v = PD_LD_##SUF(xb + r);                                                          \
          m[k] = v > m[k] || v != v ? v : m[k];                                                \
        }                                                                                      \
        CT mx = m[0];                                                                          \
        for (int k = 1; k < 8; k++) mx = m[k] > mx || m[k] != m[k] ? m[k] : mx;                \
        if (isinf(mx)) mx = 0;                                                                 \
        CT s = 0;                                                                              \
        if (SAME_##SUF && !LOG) {                                                              \
          for (r = 0; r < nr; r++) {                                                           \
            CT e = SEXP_##SUF(PD_LD_##SUF(xb + r) - mx);                                       \
            PD_ST_##SUF(yb + r, e);                                                            \
            s += e;                                                                            \
          }                                                                                    \
          CT inv = (CT)1 / s;                                                                  \
          for (r = 0; r < nr; r++) PD_ST_##SUF(yb + r, PD_LD_##SUF(yb + r) * inv);             \
        } else {                                                                               \
          for (r = 0; r < nr; r++) s += SEXP_##SUF(PD_LD_##SUF(xb + r) - mx);                  \
          if (LOG) {                                                                           \
            CT sh = mx + SLOG_##SUF(s);                                                        \
            for (r = 0; r < nr; r++) PD_ST_##SUF(yb + r, PD_LD_##SUF(xb + r) - sh);            \
          } else {                                                                             \
            CT inv = (CT)1 / s;                                                                \
            for (r = 0; r < nr; r++)                                                           \
              PD_ST_##SUF(yb + r, SEXP_##SUF(PD_LD_##SUF(xb + r) - mx) * inv);                 \
          }                                                                                    \
        }                                                                                      \
        continue;                                                                              \
      }                                                                                        \
      CT m[SM_CH], s[SM_CH];                                                                   \
      for (int64_t j = 0; j < w; j++) {                                                        \
        m[j] = -INFINITY;                                                                      \
        s[j] = 0;                                                                              \
      }                                                                                        \
      for (int64_t r = 0; r < nr; r++)                                                         \
        for (int64_t j = 0; j < w; j++) {                                                      \
          CT v = PD_LD_##SUF(xb + r * ni + j);                                                 \
          m[j] = v > m[j] || v != v ? v : m[j];                                                \
        }                                                                                      \
      for (int64_t j = 0; j < w; j++)                                                          \
        if (isinf(m[j])) m[j] = 0;                                                             \
      for (int64_t r = 0; r < nr; r++)                                                         \
        for (int64_t j = 0; j < w; j++) {                                                      \
          CT e = SEXP_##SUF(PD_LD_##SUF(xb + r * ni + j) - m[j]);                              \
          if (SAME_##SUF && !LOG) PD_ST_##SUF(yb + r * ni + j, e);                             \
          s[j] += e;                                                                           \
        }                                                                                      \
      for (int64_t j = 0; j < w; j++) s[j] = LOG ? m[j] + SLOG_##SUF(s[j]) : (CT)1 / s[j];     \
      for (int64_t r = 0; r < nr; r++)                                                         \
        for (int64_t j = 0; j < w; j++) {                                                      \
          CT v;                                                                                \
          if (LOG) v = PD_LD_##SUF(xb + r * ni + j) - s[j];                                    \
          else if (SAME_##SUF) v = PD_LD_##SUF(yb + r * ni + j) * s[j];                        \
          else v = SEXP_##SUF(PD_LD_##SUF(xb + r * ni + j) - m[j]) * s[j];                     \
          PD_ST_##SUF(yb + r * ni + j, v);                                                     \
        }                                                                                      \
    }                                                                                          \
    pd_tensor_release(xc);                                                                     \
    return PD_OK;                                                                              \
  }
#define DEF_SM(SUF, T, CT) DEF_SOFTMAX(softmax, 0, SUF, T, CT)
#define DEF_LSM(SUF, T, CT) DEF_SOFTMAX(log_softmax, 1, SUF, T, CT)
PD_FOR_FLOAT(DEF_SM)
PD_FOR_FLOAT(DEF_LSM)
