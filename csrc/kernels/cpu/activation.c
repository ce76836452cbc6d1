/* Activation kernels: relu and its fused gradient relu_grad (dout where out > 0). */
#include "pd_kernel_util.h"
#include "pd_vmath.h"

/* branch-free select (keeps the loops vectorised; see pd_vmath.h) */
#define SEL(c, a, b) _Generic((a), float: pd_vm_self, double: pd_vm_seld)((c), (a), (b))

typedef struct { pd_tensor *x; } x_args;
typedef struct { pd_tensor *out, *dout; } rg_args;

#define DEF_RELU(SUF, T, CT)                                                            \
  static void relu_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) {     \
    (void)ctx;                                                                          \
    char *const d[2] = {dd[0], dd[1]}; /* locals: stores cannot alias them */           \
    const int64_t s = (int64_t)sizeof(T);                                               \
    if (st[0] == s && st[1] == s) {                                                     \
      for (int64_t i = 0; i < n; i++) {                                                 \
        CT v = PD_LD_##SUF(d[1] + i * s);                                               \
        PD_ST_##SUF(d[0] + i * s, SEL(v < 0, (CT)0, v)); /* NaN stays NaN */                    \
      }                                                                                 \
    } else {                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                 \
        CT v = PD_LD_##SUF(d[1] + i * st[1]);                                           \
        PD_ST_##SUF(d[0] + i * st[0], SEL(v < 0, (CT)0, v));                \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
  pd_status pd_kernel_relu_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                        \
    return pd_run_unary("relu", out[0], ((const x_args *)args)->x, relu_loop_##SUF, NULL); \
  }                                                                                     \
  static void relu_grad_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) { \
    (void)ctx;                                                                          \
    char *const d[3] = {dd[0], dd[1], dd[2]};                                           \
    const int64_t s = (int64_t)sizeof(T);                                               \
    if (st[0] == s && st[1] == s && st[2] == s) {                                       \
      for (int64_t i = 0; i < n; i++) {                                                 \
        CT o = PD_LD_##SUF(d[1] + i * s), g = PD_LD_##SUF(d[2] + i * s);                \
        PD_ST_##SUF(d[0] + i * s, SEL(o > 0, g, (CT)0));                                   \
      }                                                                                 \
    } else {                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                 \
        CT o = PD_LD_##SUF(d[1] + i * st[1]), g = PD_LD_##SUF(d[2] + i * st[2]);        \
        PD_ST_##SUF(d[0] + i * st[0], SEL(o > 0, g, (CT)0));                               \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
  pd_status pd_kernel_relu_grad_##SUF(const void *args, pd_tensor **out, int n_out) {   \
    (void)n_out;                                                                        \
    const rg_args *a = (const rg_args *)args;                                           \
    return pd_run_binary("relu_grad", out[0], a->out, a->dout, relu_grad_loop_##SUF, NULL); \
  }
PD_FOR_FLOAT(DEF_RELU)
