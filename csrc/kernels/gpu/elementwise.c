/* GPU kernels of the 'elementwise' family: the glue between the op table's args structs and the
 * launchers of libpaddle_c_cuda.so (csrc/cuda/pd_cuda_elementwise.h). Each kernel reads its
 * op's args exactly as the CPU kernel does (csrc/kernels/cpu/{unary,binary,compare,activation,
 * creation,manip,program_ops}.c: the reference semantics), builds views of the already
 * allocated output and of the inputs broadcast to it, and calls one launcher. No allocation,
 * no synchronisation (integer division checks y == 0 with one sync, as documented there).
 * A dtype is registered only where the CPU kernel exists and the launcher implements it. */
#include <string.h>
#include "../../core/pd_device.h"
#include "../../ops/pd_op.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../../cuda/pd_cuda_elementwise.h"
#include "../pd_kernel_shared.h"

#define EW (pd_cuda->ew)

static pd_status run_un(const char *name, int op, const pd_tensor *x, pd_tensor *out, const pd_cuda_ew_params *p) {
  pd_cuda_tensor o = pd_cu_view(out), v = pd_cu_bcast(x, out->ndim, out->shape);
  return pd_cu_status(EW->unary(op, &o, &v, p), name);
}

static pd_status run_bin(const char *name, int op, const pd_tensor *x, const pd_tensor *y, pd_tensor *out,
                         const pd_cuda_ew_params *p) {
  pd_cuda_tensor o = pd_cu_view(out), a = pd_cu_bcast(x, out->ndim, out->shape),
                 b = pd_cu_bcast(y, out->ndim, out->shape);
  return pd_cu_status(EW->binary(op, &o, &a, &b, p), name);
}

/* ---- plain unary / binary ops: one kernel function per op ---- */
#define G_UN(NAME, CODE)                                                                  \
  static pd_status g_##NAME(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                          \
    return run_un(#NAME, CODE, ((const pd_##NAME##_args *)args)->x, out[0], NULL);        \
  }
#define G_BIN(NAME, CODE)                                                                 \
  static pd_status g_##NAME(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                          \
    const pd_##NAME##_args *a = (const pd_##NAME##_args *)args;                           \
    return run_bin(#NAME, CODE, a->x, a->y, out[0], NULL);                                \
  }

G_UN(exp, PD_CU_UN_EXP)
G_UN(expm1, PD_CU_UN_EXPM1)
G_UN(log, PD_CU_UN_LOG)
G_UN(log2, PD_CU_UN_LOG2)
G_UN(log10, PD_CU_UN_LOG10)
G_UN(log1p, PD_CU_UN_LOG1P)
G_UN(sqrt, PD_CU_UN_SQRT)
G_UN(rsqrt, PD_CU_UN_RSQRT)
G_UN(reciprocal, PD_CU_UN_RECIPROCAL)
G_UN(sin, PD_CU_UN_SIN)
G_UN(cos, PD_CU_UN_COS)
G_UN(tan, PD_CU_UN_TAN)
G_UN(asin, PD_CU_UN_ASIN)
G_UN(acos, PD_CU_UN_ACOS)
G_UN(atan, PD_CU_UN_ATAN)
G_UN(sinh, PD_CU_UN_SINH)
G_UN(cosh, PD_CU_UN_COSH)
G_UN(tanh, PD_CU_UN_TANH)
G_UN(asinh, PD_CU_UN_ASINH)
G_UN(acosh, PD_CU_UN_ACOSH)
G_UN(atanh, PD_CU_UN_ATANH)
G_UN(erf, PD_CU_UN_ERF)
G_UN(erfinv, PD_CU_UN_ERFINV)
G_UN(sigmoid, PD_CU_UN_SIGMOID)
G_UN(floor, PD_CU_UN_FLOOR)
G_UN(ceil, PD_CU_UN_CEIL)
G_UN(round, PD_CU_UN_ROUND)
G_UN(trunc, PD_CU_UN_TRUNC)
G_UN(neg, PD_CU_UN_NEG)
G_UN(square, PD_CU_UN_SQUARE)
G_UN(sign, PD_CU_UN_SIGN)
G_UN(abs, PD_CU_UN_ABS)
G_UN(bitwise_not, PD_CU_UN_BITWISE_NOT)
G_UN(isnan, PD_CU_UN_ISNAN)
G_UN(isinf, PD_CU_UN_ISINF)
G_UN(isfinite, PD_CU_UN_ISFINITE)
G_UN(logical_not, PD_CU_UN_LOGICAL_NOT)
G_UN(relu, PD_CU_UN_RELU)
G_UN(hardswish, PD_CU_UN_HARDSWISH)
G_UN(silu, PD_CU_UN_SILU)

G_BIN(add, PD_CU_BIN_ADD)
G_BIN(subtract, PD_CU_BIN_SUBTRACT)
G_BIN(multiply, PD_CU_BIN_MULTIPLY)
G_BIN(divide, PD_CU_BIN_DIVIDE)
G_BIN(floor_divide, PD_CU_BIN_FLOOR_DIVIDE)
G_BIN(remainder, PD_CU_BIN_REMAINDER)
G_BIN(elementwise_pow, PD_CU_BIN_POW)
G_BIN(maximum, PD_CU_BIN_MAXIMUM)
G_BIN(minimum, PD_CU_BIN_MINIMUM)
G_BIN(fmax, PD_CU_BIN_FMAX)
G_BIN(fmin, PD_CU_BIN_FMIN)
G_BIN(atan2, PD_CU_BIN_ATAN2)
G_BIN(bitwise_and, PD_CU_BIN_BITWISE_AND)
G_BIN(bitwise_or, PD_CU_BIN_BITWISE_OR)
G_BIN(bitwise_xor, PD_CU_BIN_BITWISE_XOR)
G_BIN(equal, PD_CU_BIN_EQUAL)
G_BIN(not_equal, PD_CU_BIN_NOT_EQUAL)
G_BIN(less_than, PD_CU_BIN_LESS_THAN)
G_BIN(less_equal, PD_CU_BIN_LESS_EQUAL)
G_BIN(greater_than, PD_CU_BIN_GREATER_THAN)
G_BIN(greater_equal, PD_CU_BIN_GREATER_EQUAL)
G_BIN(logical_and, PD_CU_BIN_LOGICAL_AND)
G_BIN(logical_or, PD_CU_BIN_LOGICAL_OR)
G_BIN(logical_xor, PD_CU_BIN_LOGICAL_XOR)

/* ---- parameterised unary ops ---- */
static pd_status g_pow(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_pow_args *a = (const pd_pow_args *)args;
  pd_cuda_ew_params p;
  memset(&p, 0, sizeof p);
  p.f[0] = a->factor.f;
  return run_un("pow", PD_CU_UN_POW, a->x, out[0], &p);
}

static pd_status g_logit(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_logit_args *a = (const pd_logit_args *)args;
  pd_cuda_ew_params p;
  memset(&p, 0, sizeof p);
  p.f[0] = a->eps;
  return run_un("logit", PD_CU_UN_LOGIT, a->x, out[0], &p);
}

/* unary.c's set_param: the Scalar as a double (float dtypes) and as an integer saturated to
 * dtype's range (integer dtypes; NaN -> 0). */
static void set_param(pd_cuda_ew_params *P, int k, pd_scalar s, pd_dtype dt) {
  int64_t v = pd_scalar_saturate(s, dt);
  P->f[k] = s.f;
  P->i[k] = v;
}

static pd_status g_clip(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_clip_args *a = (const pd_clip_args *)args;
  if (a->min.f > a->max.f)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[clip] expected min <= max, received min = %g and max = %g",
                        a->min.f, a->max.f);
  pd_cuda_ew_params p;
  memset(&p, 0, sizeof p);
  set_param(&p, 0, a->min, a->x->dtype);
  set_param(&p, 1, a->max, a->x->dtype);
  return run_un("clip", PD_CU_UN_CLIP, a->x, out[0], &p);
}

static pd_status g_scale(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_scale_args *a = (const pd_scale_args *)args;
  pd_cuda_ew_params p;
  memset(&p, 0, sizeof p);
  set_param(&p, 0, a->scale, a->x->dtype);
  set_param(&p, 1, a->bias, a->x->dtype);
  p.flag = a->bias_after_scale;
  return run_un("scale", PD_CU_UN_SCALE, a->x, out[0], &p);
}

/* ---- activations and their fused gradients ---- */
#define G_ACT(NAME, CODE, SETUP)                                                          \
  static pd_status g_##NAME(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                          \
    const pd_##NAME##_args *A = (const pd_##NAME##_args *)args;                           \
    pd_cuda_ew_params p;                                                                  \
    memset(&p, 0, sizeof p);                                                              \
    SETUP;                                                                                \
    return run_un(#NAME, CODE, A->x, out[0], &p);                                         \
  }
#define G_ACT_GRAD(NAME, FIRST, CODE, SETUP)                                              \
  static pd_status g_##NAME(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                          \
    const pd_##NAME##_args *A = (const pd_##NAME##_args *)args;                           \
    pd_cuda_ew_params p;                                                                  \
    memset(&p, 0, sizeof p);                                                              \
    SETUP;                                                                                \
    return run_bin(#NAME, CODE, A->FIRST, A->dout, out[0], &p);                           \
  }
G_ACT(leaky_relu, PD_CU_UN_LEAKY_RELU, p.f[0] = A->alpha)
G_ACT(elu, PD_CU_UN_ELU, p.f[0] = A->alpha)
G_ACT(hardsigmoid, PD_CU_UN_HARDSIGMOID, (p.f[0] = A->slope, p.f[1] = A->offset))
G_ACT(softplus, PD_CU_UN_SOFTPLUS, (p.f[0] = A->beta, p.f[1] = A->threshold, p.f[2] = 1.0 / A->beta))
G_ACT(mish, PD_CU_UN_MISH, p.f[0] = A->threshold)
G_ACT(gelu, PD_CU_UN_GELU, p.flag = A->approximate != 0)
G_ACT_GRAD(relu_grad, out, PD_CU_BIN_RELU_GRAD, (void)A)
G_ACT_GRAD(leaky_relu_grad, x, PD_CU_BIN_LEAKY_RELU_GRAD, p.f[0] = A->alpha)
G_ACT_GRAD(elu_grad, x, PD_CU_BIN_ELU_GRAD, p.f[0] = A->alpha)
G_ACT_GRAD(hardsigmoid_grad, out, PD_CU_BIN_HARDSIGMOID_GRAD, p.f[0] = A->slope)
G_ACT_GRAD(hardswish_grad, x, PD_CU_BIN_HARDSWISH_GRAD, (void)A)
G_ACT_GRAD(softplus_grad, x, PD_CU_BIN_SOFTPLUS_GRAD, (p.f[0] = A->beta, p.f[1] = A->threshold))
G_ACT_GRAD(silu_grad, x, PD_CU_BIN_SILU_GRAD, (void)A)
G_ACT_GRAD(mish_grad, x, PD_CU_BIN_MISH_GRAD, p.f[0] = A->threshold)
G_ACT_GRAD(gelu_grad, x, PD_CU_BIN_GELU_GRAD, p.flag = A->approximate != 0)

/* ---- copies: cast / assign / expand / expand_as (src broadcast to out) ---- */
static pd_status copy_to(const char *name, pd_tensor *out, const pd_tensor *x) {
  if (out->numel == 0) return PD_OK;
  pd_cuda_tensor o = pd_cu_view(out), v = pd_cu_bcast(x, out->ndim, out->shape);
  return pd_cu_status(EW->copy(&o, &v), name);
}
#define G_COPY(NAME)                                                                      \
  static pd_status g_##NAME(const void *args, pd_tensor **out, int n_out) {               \
    (void)n_out;                                                                          \
    return copy_to(#NAME, out[0], ((const pd_##NAME##_args *)args)->x);                   \
  }
G_COPY(cast)
G_COPY(assign)
G_COPY(expand)
G_COPY(expand_as)

/* tile: out viewed as [r0, s0, r1, s1, ...] (r = repeats, s = x's dims, size-1 entries
 * dropped) and x as [1, s0, 1, s1, ...] broadcast over the r dims: one strided copy when that
 * fits in PD_CUDA_MAX_DIMS dims. */
static pd_status g_tile(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_tile_args *a = (const pd_tile_args *)args;
  pd_tensor *o = out[0];
  const pd_tensor *x = a->x;
  if (o->numel == 0) return PD_OK;
  const int nd = o->ndim, lead = nd - x->ndim;
  pd_cuda_tensor ov = pd_cu_view(o), xv = pd_cu_view(x), dv = ov, sv = xv;
  int k = 0;
  int64_t ost = 1; /* o is contiguous: strides from the back */
  int64_t sh[2 * PD_MAX_DIMS], so[2 * PD_MAX_DIMS], sx[2 * PD_MAX_DIMS];
  for (int d = nd - 1; d >= 0; d--) {
    const int64_t s = d < lead ? 1 : x->shape[d - lead], xs = d < lead ? 0 : xv.strides[d - lead];
    const int64_t r = s ? o->shape[d] / s : 0;
    if (s != 1) {
      sh[k] = s, so[k] = ost, sx[k] = xs;
      k++;
    }
    if (r != 1) {
      sh[k] = r, so[k] = ost * s, sx[k] = 0;
      k++;
    }
    ost *= o->shape[d];
  }
  if (k > PD_CUDA_MAX_DIMS || ov.ndim != nd) return pd_cu_unsupported("tile", o->dtype);
  for (int i = 0; i < k; i++) { /* back to outer-first order */
    dv.shape[i] = sv.shape[i] = sh[k - 1 - i];
    dv.strides[i] = so[k - 1 - i];
    sv.strides[i] = sx[k - 1 - i];
  }
  dv.ndim = sv.ndim = k;
  sv.numel = dv.numel;
  return pd_cu_status(EW->copy(&dv, &sv), "tile");
}

/* ---- fills: full / full_like write creation.c's scalar_store bytes ---- */
static pd_status fill_scalar(const char *name, pd_tensor *t, const pd_scalar *s) {
  unsigned char elem[16];
  memset(elem, 0, sizeof elem);
  if ((pd_dtype_is_int(t->dtype) || t->dtype == PD_BOOL) && (s->kind == PD_SCALAR_INT || s->kind == PD_SCALAR_BOOL))
    pd_store_from_int64(elem, t->dtype, s->i);
  else
    pd_store_from_double(elem, t->dtype, s->f);
  if (t->numel == 0) return PD_OK;
  pd_cuda_tensor o = pd_cu_view(t);
  return pd_cu_status(EW->fill_bytes(&o, elem), name);
}
static pd_status g_full(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return fill_scalar("full", out[0], &((const pd_full_args *)args)->value);
}
static pd_status g_full_like(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return fill_scalar("full_like", out[0], &((const pd_full_like_args *)args)->value);
}

/* ---- where ---- */
static pd_status g_where(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_where_args *a = (const pd_where_args *)args;
  pd_tensor *o = out[0];
  if (o->numel == 0) return PD_OK;
  pd_cuda_tensor ov = pd_cu_view(o), c = pd_cu_bcast(a->condition, o->ndim, o->shape),
                 x = pd_cu_bcast(a->x, o->ndim, o->shape), y = pd_cu_bcast(a->y, o->ndim, o->shape);
  return pd_cu_status(EW->where(&ov, &c, &x, &y), "where");
}

/* ---- registration ---- */
#define REALB (PD_DT_REALS | PD_DT_BIT(PD_BOOL))
enum { K_NONE = 0, K_UN = 1, K_BIN = 2 };

/* Registers fn for each dtype in mask that the CPU kernel has and (for launcher ops) the
 * launcher implements. */
static void reg(const char *name, pd_kernel_fn fn, int kind, int code, unsigned mask) {
  const int op = pd_op_lookup(name);
  if (op < 0) return;
  for (int dt = 0; dt < PD_NUM_DTYPES; dt++) {
    if (!(mask & PD_DT_BIT(dt)) || !pd_op_defs[op].kernels[dt]) continue;
    if (kind == K_UN && !EW->has_unary(code, dt)) continue;
    if (kind == K_BIN && !EW->has_binary(code, dt)) continue;
    pd_gpu_register(name, (pd_dtype)dt, fn);
  }
}

#define R_UN(NAME, CODE) reg(#NAME, g_##NAME, K_UN, CODE, REALB)
#define R_BIN(NAME, CODE) reg(#NAME, g_##NAME, K_BIN, CODE, REALB)

void pd_gpu_register_elementwise(void) {
  if (!pd_cuda || !pd_cuda->ew || !EW->unary || !EW->binary || !EW->copy || !EW->fill_bytes || !EW->where)
    return;
  R_UN(exp, PD_CU_UN_EXP);
  R_UN(expm1, PD_CU_UN_EXPM1);
  R_UN(log, PD_CU_UN_LOG);
  R_UN(log2, PD_CU_UN_LOG2);
  R_UN(log10, PD_CU_UN_LOG10);
  R_UN(log1p, PD_CU_UN_LOG1P);
  R_UN(sqrt, PD_CU_UN_SQRT);
  R_UN(rsqrt, PD_CU_UN_RSQRT);
  R_UN(reciprocal, PD_CU_UN_RECIPROCAL);
  R_UN(sin, PD_CU_UN_SIN);
  R_UN(cos, PD_CU_UN_COS);
  R_UN(tan, PD_CU_UN_TAN);
  R_UN(asin, PD_CU_UN_ASIN);
  R_UN(acos, PD_CU_UN_ACOS);
  R_UN(atan, PD_CU_UN_ATAN);
  R_UN(sinh, PD_CU_UN_SINH);
  R_UN(cosh, PD_CU_UN_COSH);
  R_UN(tanh, PD_CU_UN_TANH);
  R_UN(asinh, PD_CU_UN_ASINH);
  R_UN(acosh, PD_CU_UN_ACOSH);
  R_UN(atanh, PD_CU_UN_ATANH);
  R_UN(erf, PD_CU_UN_ERF);
  R_UN(erfinv, PD_CU_UN_ERFINV);
  R_UN(sigmoid, PD_CU_UN_SIGMOID);
  R_UN(floor, PD_CU_UN_FLOOR);
  R_UN(ceil, PD_CU_UN_CEIL);
  R_UN(round, PD_CU_UN_ROUND);
  R_UN(trunc, PD_CU_UN_TRUNC);
  R_UN(neg, PD_CU_UN_NEG);
  R_UN(square, PD_CU_UN_SQUARE);
  R_UN(sign, PD_CU_UN_SIGN);
  R_UN(abs, PD_CU_UN_ABS);
  R_UN(bitwise_not, PD_CU_UN_BITWISE_NOT);
  R_UN(isnan, PD_CU_UN_ISNAN);
  R_UN(isinf, PD_CU_UN_ISINF);
  R_UN(isfinite, PD_CU_UN_ISFINITE);
  R_UN(logical_not, PD_CU_UN_LOGICAL_NOT);
  R_UN(pow, PD_CU_UN_POW);
  R_UN(logit, PD_CU_UN_LOGIT);
  R_UN(clip, PD_CU_UN_CLIP);
  R_UN(scale, PD_CU_UN_SCALE);
  R_UN(relu, PD_CU_UN_RELU);
  R_UN(leaky_relu, PD_CU_UN_LEAKY_RELU);
  R_UN(elu, PD_CU_UN_ELU);
  R_UN(hardsigmoid, PD_CU_UN_HARDSIGMOID);
  R_UN(hardswish, PD_CU_UN_HARDSWISH);
  R_UN(softplus, PD_CU_UN_SOFTPLUS);
  R_UN(silu, PD_CU_UN_SILU);
  R_UN(mish, PD_CU_UN_MISH);
  R_UN(gelu, PD_CU_UN_GELU);

  R_BIN(add, PD_CU_BIN_ADD);
  R_BIN(subtract, PD_CU_BIN_SUBTRACT);
  R_BIN(multiply, PD_CU_BIN_MULTIPLY);
  R_BIN(divide, PD_CU_BIN_DIVIDE);
  R_BIN(floor_divide, PD_CU_BIN_FLOOR_DIVIDE);
  R_BIN(remainder, PD_CU_BIN_REMAINDER);
  R_BIN(elementwise_pow, PD_CU_BIN_POW);
  R_BIN(maximum, PD_CU_BIN_MAXIMUM);
  R_BIN(minimum, PD_CU_BIN_MINIMUM);
  R_BIN(fmax, PD_CU_BIN_FMAX);
  R_BIN(fmin, PD_CU_BIN_FMIN);
  R_BIN(atan2, PD_CU_BIN_ATAN2);
  R_BIN(bitwise_and, PD_CU_BIN_BITWISE_AND);
  R_BIN(bitwise_or, PD_CU_BIN_BITWISE_OR);
  R_BIN(bitwise_xor, PD_CU_BIN_BITWISE_XOR);
  R_BIN(equal, PD_CU_BIN_EQUAL);
  R_BIN(not_equal, PD_CU_BIN_NOT_EQUAL);
  R_BIN(less_than, PD_CU_BIN_LESS_THAN);
  R_BIN(less_equal, PD_CU_BIN_LESS_EQUAL);
  R_BIN(greater_than, PD_CU_BIN_GREATER_THAN);
  R_BIN(greater_equal, PD_CU_BIN_GREATER_EQUAL);
  R_BIN(logical_and, PD_CU_BIN_LOGICAL_AND);
  R_BIN(logical_or, PD_CU_BIN_LOGICAL_OR);
  R_BIN(logical_xor, PD_CU_BIN_LOGICAL_XOR);
  R_BIN(relu_grad, PD_CU_BIN_RELU_GRAD);
  R_BIN(leaky_relu_grad, PD_CU_BIN_LEAKY_RELU_GRAD);
  R_BIN(elu_grad, PD_CU_BIN_ELU_GRAD);
  R_BIN(hardsigmoid_grad, PD_CU_BIN_HARDSIGMOID_GRAD);
  R_BIN(hardswish_grad, PD_CU_BIN_HARDSWISH_GRAD);
  R_BIN(softplus_grad, PD_CU_BIN_SOFTPLUS_GRAD);
  R_BIN(silu_grad, PD_CU_BIN_SILU_GRAD);
  R_BIN(mish_grad, PD_CU_BIN_MISH_GRAD);
  R_BIN(gelu_grad, PD_CU_BIN_GELU_GRAD);

  /* copies and fills: bool and real dtypes (complex: NotImplementedError) */
  reg("cast", g_cast, K_NONE, 0, REALB);
  reg("assign", g_assign, K_NONE, 0, REALB);
  reg("expand", g_expand, K_NONE, 0, REALB);
  reg("expand_as", g_expand_as, K_NONE, 0, REALB);
  reg("tile", g_tile, K_NONE, 0, REALB);
  reg("full", g_full, K_NONE, 0, REALB);
  reg("full_like", g_full_like, K_NONE, 0, REALB);
  reg("where", g_where, K_NONE, 0, REALB);
}
