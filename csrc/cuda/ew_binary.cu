// Binary elementwise ops (pd_cuda_elementwise.h's PD_CU_BIN_*): arithmetic, comparisons,
// logical ops and the fused activation gradients, through the arity-2 template.
#include "ew_math.cuh"

namespace pdew {

#define MB(t) (1u << (t))
static const unsigned kF = MB(PD_CU_FLOAT16) | MB(PD_CU_BFLOAT16) | MB(PD_CU_FLOAT32) | MB(PD_CU_FLOAT64);
static const unsigned kI = MB(PD_CU_UINT8) | MB(PD_CU_INT8) | MB(PD_CU_INT16) | MB(PD_CU_INT32) | MB(PD_CU_INT64);
static const unsigned kB = MB(PD_CU_BOOL);
#undef MB

static const char *const bin_names[PD_CU_BIN_NUM_OPS] = {
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "elementwise_pow", "maximum",
    "minimum", "fmax", "fmin", "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "equal", "not_equal",
    "less_than", "less_equal", "greater_than", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "relu_grad", "leaky_relu_grad", "elu_grad", "hardsigmoid_grad", "hardswish_grad", "softplus_grad",
    "silu_grad", "mish_grad", "gelu_grad"};

static unsigned bin_mask(int op) {
  switch (op) {
    case PD_CU_BIN_ADD: case PD_CU_BIN_SUBTRACT: case PD_CU_BIN_MULTIPLY: return kB | kI | kF;
    case PD_CU_BIN_DIVIDE: case PD_CU_BIN_FLOOR_DIVIDE: case PD_CU_BIN_REMAINDER: case PD_CU_BIN_POW:
    case PD_CU_BIN_MAXIMUM: case PD_CU_BIN_MINIMUM: case PD_CU_BIN_FMAX: case PD_CU_BIN_FMIN:
    case PD_CU_BIN_ATAN2:
      return kI | kF;
    case PD_CU_BIN_BITWISE_AND: case PD_CU_BIN_BITWISE_OR: case PD_CU_BIN_BITWISE_XOR: return kB | kI;
    case PD_CU_BIN_EQUAL: case PD_CU_BIN_NOT_EQUAL: case PD_CU_BIN_LESS_THAN: case PD_CU_BIN_LESS_EQUAL:
    case PD_CU_BIN_GREATER_THAN: case PD_CU_BIN_GREATER_EQUAL: case PD_CU_BIN_LOGICAL_AND:
    case PD_CU_BIN_LOGICAL_OR: case PD_CU_BIN_LOGICAL_XOR:
      return kB | kI | kF;
    default: return op >= 0 && op < PD_CU_BIN_NUM_OPS ? kF : 0;
  }
}

static bool bin_to_bool(int op) { return op >= PD_CU_BIN_EQUAL && op <= PD_CU_BIN_LOGICAL_XOR; }

// The integer-division-by-zero flag: one int per device, cleared before and read after the
// launch (a stream sync: integer division only).
__device__ int g_div_zero;

struct BinBody {
  int op;
  const pd_cuda_tensor *o, *x, *y;
  const pd_cuda_ew_params *p;
  const char *name;
  int *zero;

  template <class T, class F> int same(F f) const { return launch2<T, T, T>(o, x, y, f, name); }
  template <class T, class F> int tobool(F f) const { return launch2<pbool, T, T>(o, x, y, f, name); }

  template <class T> int operator()() const {
    using C = typename Tr<T>::C;
    const double f0 = p ? p->f[0] : 0, f1 = p ? p->f[1] : 0;
    const int flag = p ? p->flag : 0;
    (void)f0, (void)f1, (void)flag;
    switch (op) {
      case PD_CU_BIN_EQUAL: return tobool<T>(Eq{});
      case PD_CU_BIN_NOT_EQUAL: return tobool<T>(Ne{});
      case PD_CU_BIN_LESS_THAN: return tobool<T>(Lt{});
      case PD_CU_BIN_LESS_EQUAL: return tobool<T>(Le{});
      case PD_CU_BIN_GREATER_THAN: return tobool<T>(Gt{});
      case PD_CU_BIN_GREATER_EQUAL: return tobool<T>(Ge{});
      case PD_CU_BIN_LOGICAL_AND: return tobool<T>(LAnd{});
      case PD_CU_BIN_LOGICAL_OR: return tobool<T>(LOr{});
      case PD_CU_BIN_LOGICAL_XOR: return tobool<T>(LXor{});
      case PD_CU_BIN_ADD: return same<T>(Add{});
      case PD_CU_BIN_SUBTRACT: return same<T>(Sub{});
      case PD_CU_BIN_MULTIPLY: return same<T>(Mul{});
      default: break;
    }
    if constexpr (is_fp<T>) {
      switch (op) {
        case PD_CU_BIN_DIVIDE: return same<T>(Div{});
        case PD_CU_BIN_FLOOR_DIVIDE: return same<T>(FFloorDiv{});
        case PD_CU_BIN_REMAINDER: return same<T>(FRemainder{});
        case PD_CU_BIN_POW: return same<T>(FPow{});
        case PD_CU_BIN_MAXIMUM: return same<T>(Max{});
        case PD_CU_BIN_MINIMUM: return same<T>(Min{});
        case PD_CU_BIN_FMAX: return same<T>(FMax{});
        case PD_CU_BIN_FMIN: return same<T>(FMin{});
        case PD_CU_BIN_ATAN2: return same<T>(FAtan2{});
        case PD_CU_BIN_RELU_GRAD: return same<T>(FReluGrad{});
        case PD_CU_BIN_LEAKY_RELU_GRAD: return same<T>(LeakyReluGrad<C>{(C)f0});
        case PD_CU_BIN_ELU_GRAD: return same<T>(EluGrad<C>{(C)f0});
        case PD_CU_BIN_HARDSIGMOID_GRAD: return same<T>(HardSigmoidGrad<C>{(C)f0});
        case PD_CU_BIN_HARDSWISH_GRAD: return same<T>(FHardswishGrad{});
        case PD_CU_BIN_SOFTPLUS_GRAD: return same<T>(SoftplusGrad<C>{(C)f0, (C)f1});
        case PD_CU_BIN_SILU_GRAD: return same<T>(SiluGrad{});
        case PD_CU_BIN_MISH_GRAD: return same<T>(MishGrad<C>{(C)f0});
        case PD_CU_BIN_GELU_GRAD: return same<T>(GeluGrad<C>{flag});
        default: break;
      }
    } else if constexpr (is_int<T>) {
      switch (op) {
        case PD_CU_BIN_DIVIDE: return same<T>(IDiv{zero});
        case PD_CU_BIN_FLOOR_DIVIDE: return same<T>(IFloorDiv{zero});
        case PD_CU_BIN_REMAINDER: return same<T>(IMod{zero});
        case PD_CU_BIN_POW: return same<T>(IPow{});
        case PD_CU_BIN_MAXIMUM: return same<T>(Max{});
        case PD_CU_BIN_MINIMUM: return same<T>(Min{});
        case PD_CU_BIN_FMAX: return same<T>(FMax{});
        case PD_CU_BIN_FMIN: return same<T>(FMin{});
        case PD_CU_BIN_ATAN2: return launch2<double, T, T>(o, x, y, IAtan2{}, name);
        case PD_CU_BIN_BITWISE_AND: return same<T>(BAnd{});
        case PD_CU_BIN_BITWISE_OR: return same<T>(BOr{});
        case PD_CU_BIN_BITWISE_XOR: return same<T>(BXor{});
        default: break;
      }
    } else if constexpr (is_bool<T>) {
      switch (op) {
        case PD_CU_BIN_BITWISE_AND: return same<T>(BAnd{});
        case PD_CU_BIN_BITWISE_OR: return same<T>(BOr{});
        case PD_CU_BIN_BITWISE_XOR: return same<T>(BXor{});
        default: break;
      }
    }
    (void)sizeof(C);
    return -2;
  }
};

int binary(int op, const pd_cuda_tensor *out, const pd_cuda_tensor *x, const pd_cuda_tensor *y,
           const pd_cuda_ew_params *p) {
  if (op < 0 || op >= PD_CU_BIN_NUM_OPS) return fail(PD_CU_ERR_INVALID, "elementwise binary: bad op code %d", op);
  const char *name = bin_names[op];
  if (x->dtype < 0 || x->dtype >= PD_CU_NUM_DTYPES || !(bin_mask(op) & (1u << x->dtype)))
    return fail(PD_CU_ERR_UNSUPPORTED, "%s: dtype %s is not implemented on GPU", name, dtype_name(x->dtype));
  if (y->dtype != x->dtype)
    return fail(PD_CU_ERR_INVALID, "%s: x is %s but y is %s", name, dtype_name(x->dtype), dtype_name(y->dtype));
  int want = bin_to_bool(op) ? PD_CU_BOOL : x->dtype;
  const bool int_in = x->dtype >= PD_CU_UINT8 && x->dtype <= PD_CU_INT64;
  if (op == PD_CU_BIN_ATAN2 && int_in) want = PD_CU_FLOAT64;
  if (out->dtype != want)
    return fail(PD_CU_ERR_INVALID, "%s: output dtype %s, expected %s", name, dtype_name(out->dtype), dtype_name(want));
  const bool check_zero =
      int_in && (op == PD_CU_BIN_DIVIDE || op == PD_CU_BIN_FLOOR_DIVIDE || op == PD_CU_BIN_REMAINDER);
  int *zero = nullptr;
  cudaStream_t s = stream();
  if (check_zero && out->numel > 0) {
    if (cudaGetSymbolAddress((void **)&zero, g_div_zero) != cudaSuccess ||
        cudaMemsetAsync(zero, 0, sizeof(int), s) != cudaSuccess)
      return check_launch(name) ? -1 : fail(PD_CU_ERR_LAUNCH, "%s: cannot clear the division flag", name);
  }
  const int rc = dispatch_dtype(x->dtype, BinBody{op, out, x, y, p, name, zero});
  if (rc == -2)
    return fail(PD_CU_ERR_UNSUPPORTED, "%s: dtype %s is not implemented on GPU", name, dtype_name(x->dtype));
  if (rc != 0 || !zero) return rc;
  int h = 0;
  if (cudaMemcpyAsync(&h, zero, sizeof(int), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess) {
    const cudaError_t e = cudaGetLastError();
    return fail(PD_CU_ERR_LAUNCH, "%s: %s", name, cudaGetErrorString(e));
  }
  if (h) return fail(PD_CU_ERR_INVALID, "integer division by zero: y contains 0");
  return 0;
}

int has_binary(int op, int dtype) {
  return dtype >= 0 && dtype < PD_CU_NUM_DTYPES && (bin_mask(op) & (1u << dtype)) != 0;
}

} // namespace pdew
