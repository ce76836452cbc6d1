/* paddle._dist: dtype and reduce-op tables for the MPI collectives. bfloat16 and float16 have no
 * MPI type: they travel as MPI_UINT16_T and reduce through user-defined MPI ops that widen to
 * float, combine and round back (round-to-nearest-even); AVG is SUM followed by a division
 * here, in the tensor's own dtype. */
#include "dist.h"
#include "../core/pd_dtype.h"

#include <math.h>
#include <string.h>

static const struct {
  const char *name;
  int code;
  size_t size;
} dtypes[] = {
    {"bool", PDD_BOOL, 1},       {"uint8", PDD_UINT8, 1},     {"int8", PDD_INT8, 1},
    {"int16", PDD_INT16, 2},     {"int32", PDD_INT32, 4},     {"int64", PDD_INT64, 8},
    {"float16", PDD_FLOAT16, 2}, {"bfloat16", PDD_BF16, 2},   {"float32", PDD_FLOAT32, 4},
    {"float64", PDD_FLOAT64, 8}, {"complex64", PDD_C64, 8},   {"complex128", PDD_C128, 16},
};

int pdd_dtype_code(const char *name, size_t *size) {
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (!strcmp(dtypes[i].name, name)) {
      *size = dtypes[i].size;
      return dtypes[i].code;
    }
  return -1;
}

MPI_Datatype pdd_mpi_type(int code) {
  switch (code) {
    case PDD_BOOL: return MPI_C_BOOL;
    case PDD_UINT8: return MPI_UINT8_T;
    case PDD_INT8: return MPI_INT8_T;
    case PDD_INT16: return MPI_INT16_T;
    case PDD_INT32: return MPI_INT32_T;
    case PDD_INT64: return MPI_INT64_T;
    case PDD_FLOAT16:
    case PDD_BF16: return MPI_UINT16_T;
    case PDD_FLOAT32: return MPI_FLOAT;
    case PDD_FLOAT64: return MPI_DOUBLE;
    case PDD_C64: return MPI_C_FLOAT_COMPLEX;
    case PDD_C128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
  }
}

/* ---- 16-bit float conversions ---- */
static inline float f16_to_f(uint16_t h) {
  _Float16 x;
  memcpy(&x, &h, 2);
  return (float)x;
}
static inline uint16_t f_to_f16(float f) {
  _Float16 x = (_Float16)f;
  uint16_t h;
  memcpy(&h, &x, 2);
  return h;
}

#define PDD_USER_OP(NAME, TOF, FROMF, EXPR)                                                 \
  static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt) {                     \
    (void)dt;                                                                               \
    const uint16_t *a = (const uint16_t *)in;                                               \
    uint16_t *b = (uint16_t *)inout;                                                        \
    for (int i = 0; i < *len; i++) {                                                        \
      float x = TOF(a[i]), y = TOF(b[i]);                                                   \
      b[i] = FROMF(EXPR);                                                                   \
    }                                                                                       \
  }
PDD_USER_OP(bf16_sum, pd_bf16_bits_to_f32, pd_f32_to_bf16_bits, x + y)
PDD_USER_OP(bf16_prod, pd_bf16_bits_to_f32, pd_f32_to_bf16_bits, x * y)
PDD_USER_OP(bf16_max, pd_bf16_bits_to_f32, pd_f32_to_bf16_bits, (x > y || isnan(x)) ? x : y)
PDD_USER_OP(bf16_min, pd_bf16_bits_to_f32, pd_f32_to_bf16_bits, (x < y || isnan(x)) ? x : y)
PDD_USER_OP(f16_sum, f16_to_f, f_to_f16, x + y)
PDD_USER_OP(f16_prod, f16_to_f, f_to_f16, x * y)
PDD_USER_OP(f16_max, f16_to_f, f_to_f16, (x > y || isnan(x)) ? x : y)
PDD_USER_OP(f16_min, f16_to_f, f_to_f16, (x < y || isnan(x)) ? x : y)

static MPI_Op user_ops[2][4];
static int user_ops_made;

static int make_user_ops(void) {
  MPI_User_function *fns[2][4] = {{bf16_sum, bf16_max, bf16_min, bf16_prod},
                                  {f16_sum, f16_max, f16_min, f16_prod}};
  for (int d = 0; d < 2; d++)
    for (int o = 0; o < 4; o++)
      if (MPI_Op_create(fns[d][o], 1, &user_ops[d][o]) != MPI_SUCCESS) return -1;
  user_ops_made = 1;
  return 0;
}

int pdd_mpi_op(int dtype, int op, MPI_Op *out) {
  int o = op == PDD_AVG ? PDD_SUM : op;
  if (o < PDD_SUM || o > PDD_PROD) return -1;
  if (dtype == PDD_BF16 || dtype == PDD_FLOAT16) {
    if (!user_ops_made && make_user_ops()) return -1;
    *out = user_ops[dtype == PDD_FLOAT16][o];
    return 0;
  }
  if (dtype == PDD_BOOL) { /* Paddle: sum/max of bools is "any", min/prod is "all" */
    *out = (o == PDD_SUM || o == PDD_MAX) ? MPI_LOR : MPI_LAND;
    return 0;
  }
  if ((dtype == PDD_C64 || dtype == PDD_C128) && (o == PDD_MAX || o == PDD_MIN)) return -1;
  *out = o == PDD_SUM ? MPI_SUM : o == PDD_MAX ? MPI_MAX : o == PDD_MIN ? MPI_MIN : MPI_PROD;
  return 0;
}

void pdd_free_user_ops(void) {
  if (!user_ops_made) return;
  for (int d = 0; d < 2; d++)
    for (int o = 0; o < 4; o++) MPI_Op_free(&user_ops[d][o]);
  user_ops_made = 0;
}

/* buf /= n in place (AVG). Integers divide with truncation (C's rule). */
void pdd_divide(void *buf, int64_t count, int dtype, int n) {
  switch (dtype) {
    case PDD_FLOAT32: {
      float *p = (float *)buf, s = 1.0f / (float)n;
      for (int64_t i = 0; i < count; i++) p[i] *= s;
      break;
    }
    case PDD_FLOAT64: {
      double *p = (double *)buf, s = 1.0 / (double)n;
      for (int64_t i = 0; i < count; i++) p[i] *= s;
      break;
    }
    case PDD_BF16: {
      uint16_t *p = (uint16_t *)buf;
      for (int64_t i = 0; i < count; i++) p[i] = pd_f32_to_bf16_bits(pd_bf16_bits_to_f32(p[i]) / (float)n);
      break;
    }
    case PDD_FLOAT16: {
      uint16_t *p = (uint16_t *)buf;
      for (int64_t i = 0; i < count; i++) p[i] = f_to_f16(f16_to_f(p[i]) / (float)n);
      break;
    }
    case PDD_C64: {
      float *p = (float *)buf, s = 1.0f / (float)n;
      for (int64_t i = 0; i < 2 * count; i++) p[i] *= s;
      break;
    }
    case PDD_C128: {
      double *p = (double *)buf, s = 1.0 / (double)n;
      for (int64_t i = 0; i < 2 * count; i++) p[i] *= s;
      break;
    }
#define PDD_DIV_INT(CODE, T)                                        \
  case CODE: {                                                      \
    T *p = (T *)buf;                                                \
    for (int64_t i = 0; i < count; i++) p[i] = (T)(p[i] / (T)n);    \
    break;                                                          \
  }
      PDD_DIV_INT(PDD_UINT8, uint8_t)
      PDD_DIV_INT(PDD_INT8, int8_t)
      PDD_DIV_INT(PDD_INT16, int16_t)
      PDD_DIV_INT(PDD_INT32, int32_t)
      PDD_DIV_INT(PDD_INT64, int64_t)
#undef PDD_DIV_INT
    default: break; /* bool: any */
  }
}
