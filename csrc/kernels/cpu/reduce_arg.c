/* argmax/argmin along one axis (or over all elements when flatten is set): the first index of
 * the largest/smallest value; a NaN counts as the extreme (numpy's rule). Works on the
 * contiguous [outer, n, inner] layout, OpenMP over outer rows and inner column blocks. */
#include "pd_kernel_util.h"
#include "reduce_common.h"

#define ARG_CH 128

#define GT_MAX(v, b) ((v) > (b) || ((v) != (v) && (b) == (b)))
#define GT_MIN(v, b) ((v) < (b) || ((v) != (v) && (b) == (b)))

#define DEF_ARG(NAME, CMP, SUF, T, CT)                                                        \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                              \
    const pd_argmax_args *a = (const pd_argmax_args *)args;                                   \
    pd_tensor *xc;                                                                            \
    pd_rshape rs;                                                                             \
    if (a->flatten) {                                                                         \
      PD_TRY(pd_tensor_contiguous(a->x, &xc));                                                \
      rs.outer = 1;                                                                           \
      rs.red = a->x->numel;                                                                   \
      rs.inner = 1;                                                                           \
    } else {                                                                                  \
      int ax;                                                                                 \
      PD_TRY(pd_norm_axis(#NAME, a->axis, a->x->ndim, &ax));                                  \
      PD_TRY(pd_axis_prepare(a->x, ax, &xc, &rs));                                            \
    }                                                                                         \
    const T *x = (const T *)pd_tensor_data(xc);                                               \
    const int64_t no = rs.outer, nr = rs.red, ni = rs.inner;                                  \
    const int is64 = out[0]->dtype == PD_INT64;                                               \
    int64_t *o64 = (int64_t *)pd_tensor_data(out[0]);                                         \
    int32_t *o32 = (int32_t *)pd_tensor_data(out[0]);                                         \
    const int64_t ch = ni < ARG_CH ? ni : ARG_CH, nch = (ni + ch - 1) / ch, tasks = no * nch;  \
    _Pragma("omp parallel for if (no * nr * ni >= 65536 && tasks > 1) schedule(static)")      \
    for (int64_t t = 0; t < tasks; t++) {                                                     \
      int64_t o = t / nch, j0 = (t % nch) * ch, w = ni - j0 < ch ? ni - j0 : ch;              \
      const T *base = x + o * nr * ni + j0;                                                   \
      CT best[ARG_CH];                                                                        \
      int64_t bi[ARG_CH];                                                                     \
      for (int64_t j = 0; j < w; j++) {                                                       \
        best[j] = PD_LD_##SUF(base + j);                                                      \
        bi[j] = 0;                                                                            \
      }                                                                                       \
      for (int64_t r = 1; r < nr; r++) {                                                      \
        const T *p = base + r * ni;                                                           \
        for (int64_t j = 0; j < w; j++) {                                                     \
          CT v = PD_LD_##SUF(p + j);                                                          \
          if (CMP(v, best[j])) {                                                              \
            best[j] = v;                                                                      \
            bi[j] = r;                                                                        \
          }                                                                                   \
        }                                                                                     \
      }                                                                                       \
      for (int64_t j = 0; j < w; j++) {                                                       \
        if (is64) o64[o * ni + j0 + j] = bi[j];                                               \
        else o32[o * ni + j0 + j] = (int32_t)bi[j];                                           \
      }                                                                                       \
    }                                                                                         \
    pd_tensor_release(xc);                                                                    \
    return PD_OK;                                                                             \
  }
#define DEF_ARGMAX(SUF, T, CT) DEF_ARG(argmax, GT_MAX, SUF, T, CT)
#define DEF_ARGMIN(SUF, T, CT) DEF_ARG(argmin, GT_MIN, SUF, T, CT)
PD_FOR_REAL(DEF_ARGMAX)
PD_FOR_REAL(DEF_ARGMIN)
