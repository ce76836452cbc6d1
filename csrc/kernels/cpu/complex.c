/* Complex-number kernels: conj (the identity, as a copy, for real dtypes). */
#include "pd_kernel_util.h"

typedef struct { pd_tensor *x; } x_args;

#define DEF_CONJ_REAL(SUF, T, CT)                                                   \
  pd_status pd_kernel_conj_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                    \
    return pd_tensor_copy_(out[0], ((const x_args *)args)->x);                      \
  }
PD_FOR_BOOL(DEF_CONJ_REAL)
PD_FOR_REAL(DEF_CONJ_REAL)

#define DEF_CONJ_C(SUF, T, CT, CONJ)                                                \
  static void conj_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) { \
    char *const d[2] = {dd[0], dd[1]};                                              \
    (void)ctx;                                                                      \
    for (int64_t i = 0; i < n; i++)                                                 \
      *(T *)(d[0] + i * st[0]) = CONJ(*(const T *)(d[1] + i * st[1]));              \
  }                                                                                 \
  pd_status pd_kernel_conj_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                    \
    return pd_run_unary("conj", out[0], ((const x_args *)args)->x, conj_loop_##SUF, NULL); \
  }
DEF_CONJ_C(c64, pd_complex64, pd_complex64, conjf)
DEF_CONJ_C(c128, pd_complex128, pd_complex128, conj)
