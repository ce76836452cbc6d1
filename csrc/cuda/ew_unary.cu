// Unary elementwise ops (pd_cuda_elementwise.h's PD_CU_UN_*): functors of ew_math.cuh through
// the arity-1 template of ew_common.cuh, instantiated for the dtypes the CPU kernel has.
#include "ew_math.cuh"

namespace pdew {

#define MB(t) (1u << (t))
static const unsigned kF = MB(PD_CU_FLOAT16) | MB(PD_CU_BFLOAT16) | MB(PD_CU_FLOAT32) | MB(PD_CU_FLOAT64);
static const unsigned kI = MB(PD_CU_UINT8) | MB(PD_CU_INT8) | MB(PD_CU_INT16) | MB(PD_CU_INT32) | MB(PD_CU_INT64);
static const unsigned kB = MB(PD_CU_BOOL);
#undef MB

static const char *const un_names[PD_CU_UN_NUM_OPS] = {
    "exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfinv", "sigmoid",
    "floor", "ceil", "round", "trunc", "neg", "square", "sign", "abs", "bitwise_not", "isnan", "isinf",
    "isfinite", "logical_not", "pow", "logit", "clip", "scale", "relu", "leaky_relu", "elu", "hardsigmoid",
    "hardswish", "softplus", "silu", "mish", "gelu"};

static unsigned un_mask(int op) {
  switch (op) {
    case PD_CU_UN_TRUNC: case PD_CU_UN_NEG: case PD_CU_UN_SQUARE: case PD_CU_UN_SIGN: case PD_CU_UN_ABS:
    case PD_CU_UN_POW: case PD_CU_UN_CLIP: case PD_CU_UN_SCALE:
      return kF | kI;
    case PD_CU_UN_BITWISE_NOT: return kB | kI;
    case PD_CU_UN_ISNAN: case PD_CU_UN_ISINF: case PD_CU_UN_ISFINITE: return kF | kI;
    case PD_CU_UN_LOGICAL_NOT: return kF | kI | kB;
    default: return op >= 0 && op < PD_CU_UN_NUM_OPS ? kF : 0;
  }
}

struct UnBody {
  int op;
  const pd_cuda_tensor *o, *x;
  const pd_cuda_ew_params *p;
  const char *name;

  template <class T, class F> int same(F f) const { return launch1<T, T>(o, x, f, name); }
  template <class T, class F> int tobool(F f) const { return launch1<pbool, T>(o, x, f, name); }

  template <class T> int operator()() const {
    using C = typename Tr<T>::C;
    const double f0 = p ? p->f[0] : 0, f1 = p ? p->f[1] : 0, f2 = p ? p->f[2] : 0;
    const int64_t i0 = p ? p->i[0] : 0, i1 = p ? p->i[1] : 0;
    const int flag = p ? p->flag : 0;
    (void)f1, (void)f2, (void)i0, (void)i1, (void)flag;
    switch (op) {
      case PD_CU_UN_ISNAN: case PD_CU_UN_ISINF: case PD_CU_UN_ISFINITE:
        if constexpr (is_fp<T>) {
          if (op == PD_CU_UN_ISNAN) return tobool<T>(FIsnan{});
          if (op == PD_CU_UN_ISINF) return tobool<T>(FIsinf{});
          return tobool<T>(FIsfinite{});
        } else if constexpr (is_int<T>) {
          return tobool<T>(IConst{op == PD_CU_UN_ISFINITE ? 1 : 0});
        }
        break;
      case PD_CU_UN_LOGICAL_NOT: return tobool<T>(LNot{});
      default: break;
    }
    if constexpr (is_fp<T>) {
      switch (op) {
        case PD_CU_UN_EXP: return same<T>(FExp{});
        case PD_CU_UN_EXPM1: return same<T>(FExpm1{});
        case PD_CU_UN_LOG: return same<T>(FLog{});
        case PD_CU_UN_LOG2: return same<T>(FLog2{});
        case PD_CU_UN_LOG10: return same<T>(FLog10{});
        case PD_CU_UN_LOG1P: return same<T>(FLog1p{});
        case PD_CU_UN_SQRT: return same<T>(FSqrt{});
        case PD_CU_UN_RSQRT: return same<T>(FRsqrt{});
        case PD_CU_UN_RECIPROCAL: return same<T>(FReciprocal{});
        case PD_CU_UN_SIN: return same<T>(FSin{});
        case PD_CU_UN_COS: return same<T>(FCos{});
        case PD_CU_UN_TAN: return same<T>(FTan{});
        case PD_CU_UN_ASIN: return same<T>(FAsin{});
        case PD_CU_UN_ACOS: return same<T>(FAcos{});
        case PD_CU_UN_ATAN: return same<T>(FAtan{});
        case PD_CU_UN_SINH: return same<T>(FSinh{});
        case PD_CU_UN_COSH: return same<T>(FCosh{});
        case PD_CU_UN_TANH: return same<T>(FTanh{});
        case PD_CU_UN_ASINH: return same<T>(FAsinh{});
        case PD_CU_UN_ACOSH: return same<T>(FAcosh{});
        case PD_CU_UN_ATANH: return same<T>(FAtanh{});
        case PD_CU_UN_ERF: return same<T>(FErf{});
        case PD_CU_UN_ERFINV: return same<T>(FErfinv{});
        case PD_CU_UN_SIGMOID: return same<T>(FSigmoid{});
        case PD_CU_UN_FLOOR: return same<T>(FFloor{});
        case PD_CU_UN_CEIL: return same<T>(FCeil{});
        case PD_CU_UN_ROUND: return same<T>(FRound{});
        case PD_CU_UN_TRUNC: return same<T>(FTrunc{});
        case PD_CU_UN_NEG: return same<T>(FNeg{});
        case PD_CU_UN_SQUARE: return same<T>(Square{});
        case PD_CU_UN_SIGN: return same<T>(FSign{});
        case PD_CU_UN_ABS: return same<T>(FAbs{});
        case PD_CU_UN_POW: return same<T>(FPowS{f0});
        case PD_CU_UN_LOGIT: return same<T>(FLogit{f0});
        case PD_CU_UN_CLIP: return same<T>(Clip<C>{(C)f0, (C)f1});
        case PD_CU_UN_SCALE: return same<T>(Scale<C>{(C)f0, (C)f1, flag});
        case PD_CU_UN_RELU: return same<T>(FRelu{});
        case PD_CU_UN_LEAKY_RELU: return same<T>(LeakyRelu<C>{(C)f0});
        case PD_CU_UN_ELU: return same<T>(Elu<C>{(C)f0});
        case PD_CU_UN_HARDSIGMOID: return same<T>(HardSigmoid<C>{(C)f0, (C)f1});
        case PD_CU_UN_HARDSWISH: return same<T>(FHardswish{});
        case PD_CU_UN_SOFTPLUS: return same<T>(Softplus<C>{(C)f0, (C)f1, (C)f2});
        case PD_CU_UN_SILU: return same<T>(FSilu{});
        case PD_CU_UN_MISH: return same<T>(Mish<C>{(C)f0});
        case PD_CU_UN_GELU: return same<T>(Gelu<C>{flag});
        default: break;
      }
    } else if constexpr (is_int<T>) {
      switch (op) {
        case PD_CU_UN_TRUNC: return same<T>(Ident{});
        case PD_CU_UN_NEG: return same<T>(INeg{});
        case PD_CU_UN_SQUARE: return same<T>(Square{});
        case PD_CU_UN_SIGN: return same<T>(ISign{});
        case PD_CU_UN_ABS: return same<T>(IAbs{});
        case PD_CU_UN_BITWISE_NOT: return same<T>(INot{});
        case PD_CU_UN_POW: return same<T>(IPowS{f0});
        case PD_CU_UN_CLIP: return same<T>(Clip<C>{(C)i0, (C)i1});
        case PD_CU_UN_SCALE: return same<T>(Scale<C>{(C)i0, (C)i1, flag});
        default: break;
      }
    } else if constexpr (is_bool<T>) {
      if (op == PD_CU_UN_BITWISE_NOT) return same<T>(BNot{});
    }
    return -2;
  }
};

int unary(int op, const pd_cuda_tensor *out, const pd_cuda_tensor *x, const pd_cuda_ew_params *p) {
  if (op < 0 || op >= PD_CU_UN_NUM_OPS) return fail(PD_CU_ERR_INVALID, "elementwise unary: bad op code %d", op);
  const char *name = un_names[op];
  if (x->dtype < 0 || x->dtype >= PD_CU_NUM_DTYPES || !(un_mask(op) & (1u << x->dtype)))
    return fail(PD_CU_ERR_UNSUPPORTED, "%s: dtype %s is not implemented on GPU", name, dtype_name(x->dtype));
  const bool to_bool = op == PD_CU_UN_ISNAN || op == PD_CU_UN_ISINF || op == PD_CU_UN_ISFINITE ||
                       op == PD_CU_UN_LOGICAL_NOT;
  const int want = to_bool ? PD_CU_BOOL : x->dtype;
  if (out->dtype != want)
    return fail(PD_CU_ERR_INVALID, "%s: output dtype %s, expected %s", name, dtype_name(out->dtype), dtype_name(want));
  const int rc = dispatch_dtype(x->dtype, UnBody{op, out, x, p, name});
  if (rc == -2)
    return fail(PD_CU_ERR_UNSUPPORTED, "%s: dtype %s is not implemented on GPU", name, dtype_name(x->dtype));
  return rc;
}

int has_unary(int op, int dtype) {
  return dtype >= 0 && dtype < PD_CU_NUM_DTYPES && (un_mask(op) & (1u << dtype)) != 0;
}

} // namespace pdew
