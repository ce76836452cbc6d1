/* Activation kernels: relu and the hot activations (leaky_relu, elu, hardsigmoid, hardswish,
 * softplus, silu, mish, gelu), each with its fused gradient kernel (*_grad: dx from x or out and
 * dout). Elementwise loops with loop-invariant parameters; transcendentals from pd_vmath.h. */
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

/* ---- parameterised unary activations and their fused gradients ---- */
typedef struct { double a, b, c; } act_params;
#define VEXP(v) _Generic((v), float: pd_vexpf, double: pd_vexp)(v)
#define VEXPM1(v) _Generic((v), float: pd_vexpm1f, double: pd_vexpm1)(v)
#define VLOG1P(v) _Generic((v), float: pd_vlog1pf, double: pd_vlog1p)(v)
#define VTANH(v) _Generic((v), float: pd_vtanhf, double: pd_vtanh)(v)
#define VSIGM(v) _Generic((v), float: pd_vsigmoidf, double: pd_vsigmoid)(v)
#define VERF(v) _Generic((v), float: act_erff, double: erf)(v)
/* float erf (Abramowitz-Stegun 7.1.26, |error| < 1.5e-7): vectorises where libm's erff does not */
static inline __attribute__((always_inline)) float act_erff(float x) {
  const float a = SEL(x < 0, -x, x), t = 1.0f / (1.0f + 0.3275911f * a);
  const float p = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  const float r = 1.0f - p * pd_vexpf(-a * a);
  return SEL(x < 0, -r, r);
}
/* softplus with beta folded in: max(b, 0) + log1p(exp(-|b|)) never overflows */
#define SOFTPLUS0(b) (SEL((b) > 0, (b), (__typeof__(b))0) + VLOG1P(VEXP(SEL((b) > 0, -(b), (b)))))

/* NAME(x) -> out; EXPR over v (x), p0..p2 (parameters in the compute type) */
#define ACT_UN(NAME, SUF, T, CT, SETUP, EXPR)                                            \
  static void NAME##_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) {    \
    typedef CT ct_t; (void)(ct_t)0;                                                     \
    const act_params *P = (const act_params *)ctx;                                      \
    const CT p0 = (CT)P->a, p1 = (CT)P->b, p2 = (CT)P->c;                                \
    (void)p0; (void)p1; (void)p2;                                                       \
    char *const d[2] = {dd[0], dd[1]};                                                  \
    const int64_t s = (int64_t)sizeof(T);                                               \
    if (st[0] == s && st[1] == s) {                                                     \
      for (int64_t i = 0; i < n; i++) {                                                 \
        const CT v = PD_LD_##SUF(d[1] + i * s);                                         \
        PD_ST_##SUF(d[0] + i * s, (EXPR));                                              \
      }                                                                                 \
    } else {                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                 \
        const CT v = PD_LD_##SUF(d[1] + i * st[1]);                                     \
        PD_ST_##SUF(d[0] + i * st[0], (EXPR));                                          \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                        \
    const pd_##NAME##_args *A = (const pd_##NAME##_args *)args;                         \
    act_params P = {0, 0, 0};                                                           \
    SETUP;                                                                              \
    return pd_run_unary(#NAME, out[0], A->x, NAME##_loop_##SUF, &P);                    \
  }

/* NAME(x_or_out, dout) -> dx; EXPR over v (first input), g (dout), p0..p2 */
#define ACT_BIN(NAME, FIRST, SUF, T, CT, SETUP, EXPR)                                    \
  static void NAME##_loop_##SUF(char **dd, const int64_t *st, int64_t n, void *ctx) {    \
    typedef CT ct_t; (void)(ct_t)0;                                                     \
    const act_params *P = (const act_params *)ctx;                                      \
    const CT p0 = (CT)P->a, p1 = (CT)P->b, p2 = (CT)P->c;                                \
    (void)p0; (void)p1; (void)p2;                                                       \
    char *const d[3] = {dd[0], dd[1], dd[2]};                                           \
    const int64_t s = (int64_t)sizeof(T);                                               \
    if (st[0] == s && st[1] == s && st[2] == s) {                                       \
      for (int64_t i = 0; i < n; i++) {                                                 \
        const CT v = PD_LD_##SUF(d[1] + i * s), g = PD_LD_##SUF(d[2] + i * s);          \
        PD_ST_##SUF(d[0] + i * s, (EXPR));                                              \
      }                                                                                 \
    } else {                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                 \
        const CT v = PD_LD_##SUF(d[1] + i * st[1]), g = PD_LD_##SUF(d[2] + i * st[2]);  \
        PD_ST_##SUF(d[0] + i * st[0], (EXPR));                                          \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {    \
    (void)n_out;                                                                        \
    const pd_##NAME##_args *A = (const pd_##NAME##_args *)args;                         \
    act_params P = {0, 0, 0};                                                           \
    SETUP;                                                                              \
    return pd_run_binary(#NAME, out[0], A->FIRST, A->dout, NAME##_loop_##SUF, &P);      \
  }

#define Z ((ct_t)0)
#define ONE ((ct_t)1)

/* leaky_relu: x > 0 ? x : alpha x */
#define K_LRELU(SUF, T, CT) ACT_UN(leaky_relu, SUF, T, CT, P.a = A->alpha, SEL(v > 0, v, v * p0))
#define K_LRELU_G(SUF, T, CT) ACT_BIN(leaky_relu_grad, x, SUF, T, CT, P.a = A->alpha, SEL(v > 0, g, g * p0))
PD_FOR_FLOAT(K_LRELU)
PD_FOR_FLOAT(K_LRELU_G)

/* elu: x > 0 ? x : alpha (exp(x) - 1) */
#define K_ELU(SUF, T, CT) ACT_UN(elu, SUF, T, CT, P.a = A->alpha, SEL(v > 0, v, p0 * VEXPM1(v)))
#define K_ELU_G(SUF, T, CT) ACT_BIN(elu_grad, x, SUF, T, CT, P.a = A->alpha, SEL(v > 0, g, g * p0 * VEXP(v)))
PD_FOR_FLOAT(K_ELU)
PD_FOR_FLOAT(K_ELU_G)

/* hardsigmoid: clip(slope x + offset, 0, 1); the gradient reads out */
#define HS_Y (v * p0 + p1)
#define K_HSIG(SUF, T, CT) \
  ACT_UN(hardsigmoid, SUF, T, CT, (P.a = A->slope, P.b = A->offset), SEL(HS_Y < 0, Z, SEL(HS_Y > 1, ONE, HS_Y)))
#define K_HSIG_G(SUF, T, CT) \
  ACT_BIN(hardsigmoid_grad, out, SUF, T, CT, P.a = A->slope, SEL((v > 0) & (v < 1), g * p0, Z))
PD_FOR_FLOAT(K_HSIG)
PD_FOR_FLOAT(K_HSIG_G)

/* hardswish: x min(max(x + 3, 0), 6) / 6 */
#define HW_R (SEL(v + 3 < 0, Z, SEL(v + 3 > 6, (ct_t)6, v + 3)))
#define K_HSW(SUF, T, CT) ACT_UN(hardswish, SUF, T, CT, (void)A, v * HW_R * ((CT)1 / 6))
#define K_HSW_G(SUF, T, CT) \
  ACT_BIN(hardswish_grad, x, SUF, T, CT, (void)A, g * SEL(v < -3, Z, SEL(v > 3, ONE, (2 * v + 3) * ((CT)1 / 6))))
PD_FOR_FLOAT(K_HSW)
PD_FOR_FLOAT(K_HSW_G)

/* softplus: beta x > threshold ? x : log(1 + exp(beta x)) / beta */
#define SP_SETUP (P.a = A->beta, P.b = A->threshold, P.c = 1.0 / A->beta)
#define K_SP(SUF, T, CT) ACT_UN(softplus, SUF, T, CT, SP_SETUP, SEL(v * p0 > p1, v, SOFTPLUS0(v * p0) * p2))
#define K_SP_G(SUF, T, CT) ACT_BIN(softplus_grad, x, SUF, T, CT, SP_SETUP, SEL(v * p0 > p1, g, g * VSIGM(v * p0)))
PD_FOR_FLOAT(K_SP)
PD_FOR_FLOAT(K_SP_G)

/* silu: x sigmoid(x) */
#define K_SILU(SUF, T, CT) ACT_UN(silu, SUF, T, CT, (void)A, v * VSIGM(v))
#define K_SILU_G(SUF, T, CT) \
  ACT_BIN(silu_grad, x, SUF, T, CT, (void)A, g * VSIGM(v) * (1 + v * (1 - VSIGM(v))))
PD_FOR_FLOAT(K_SILU)
PD_FOR_FLOAT(K_SILU_G)

/* mish: x tanh(softplus(x)), softplus(x) = x above threshold */
#define MI_SP SEL(v > p0, v, SOFTPLUS0(v))
#define K_MISH(SUF, T, CT) ACT_UN(mish, SUF, T, CT, P.a = A->threshold, v * VTANH(MI_SP))
#define K_MISH_G(SUF, T, CT)                                                             \
  ACT_BIN(mish_grad, x, SUF, T, CT, P.a = A->threshold,                                  \
          g * (VTANH(MI_SP) + v * (1 - VTANH(MI_SP) * VTANH(MI_SP)) * SEL(v > p0, ONE, VSIGM(v))))
PD_FOR_FLOAT(K_MISH)
PD_FOR_FLOAT(K_MISH_G)

/* gelu: exact x Phi(x) = x (1 + erf(x / sqrt 2)) / 2, or (approximate) the tanh form
 * x (1 + tanh(k (x + c x^3))) / 2 with k = sqrt(2 / pi), c = 0.044715 */
#define GK ((ct_t)0.7978845608028654)
#define GC ((ct_t)0.044715)
#define G_T VTANH(GK * (v + GC * v * v * v))
#define G_PHI (((ct_t)1 + VERF(v * (ct_t)0.7071067811865476)) * (ct_t)0.5)
#define K_GELU(SUF, T, CT) \
  ACT_UN(gelu, SUF, T, CT, P.a = A->approximate, p0 != 0 ? (CT)0.5 * v * (1 + G_T) : v * G_PHI)
#define K_GELU_G(SUF, T, CT)                                                             \
  ACT_BIN(gelu_grad, x, SUF, T, CT, P.a = A->approximate,                                \
          p0 != 0 ? g * ((CT)0.5 * (1 + G_T) +                                          \
                         (CT)0.5 * v * (1 - G_T * G_T) * GK * (1 + 3 * GC * v * v))      \
                  : g * (G_PHI + v * VEXP((CT)-0.5 * v * v) * (CT)0.3989422804014327))
PD_FOR_FLOAT(K_GELU)
PD_FOR_FLOAT(K_GELU_G)
