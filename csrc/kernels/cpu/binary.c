/* Elementwise binary arithmetic with numpy broadcasting (add, subtract, multiply, divide ...).
 * Each op gets one kernel per dtype; the inner loop has a contiguous fast path the compiler
 * vectorises, a scalar-operand path, and a generic strided path. */
#include "pd_kernel_util.h"

typedef struct { pd_tensor *x, *y; } bin_args;

#define BIN_LOOP(NAME, SUF, T, CT, EXPR)                                                    \
  static void NAME##_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {       \
    (void)ctx;                                                                             \
    char *o = d[0];                                                                        \
    const char *px = d[1], *py = d[2];                                                     \
    const int64_t s = (int64_t)sizeof(T);                                                  \
    if (st[0] == s && st[1] == s && st[2] == s) {                                          \
      for (int64_t i = 0; i < n; i++) {                                                    \
        CT a = PD_LD_##SUF(px + i * s), b = PD_LD_##SUF(py + i * s);                       \
        PD_ST_##SUF(o + i * s, (EXPR));                                                    \
      }                                                                                    \
    } else if (st[0] == s && st[1] == s && st[2] == 0) {                                   \
      CT b = PD_LD_##SUF(py);                                                              \
      for (int64_t i = 0; i < n; i++) {                                                    \
        CT a = PD_LD_##SUF(px + i * s);                                                    \
        PD_ST_##SUF(o + i * s, (EXPR));                                                    \
      }                                                                                    \
    } else {                                                                               \
      for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2]) {              \
        CT a = PD_LD_##SUF(px), b = PD_LD_##SUF(py);                                       \
        PD_ST_##SUF(o, (EXPR));                                                            \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                           \
    const bin_args *a = (const bin_args *)args;                                            \
    return pd_run_binary(#NAME, out[0], a->x, a->y, NAME##_loop_##SUF, NULL);              \
  }

#define DEF_ADD(SUF, T, CT) BIN_LOOP(add, SUF, T, CT, a + b)
#define DEF_SUB(SUF, T, CT) BIN_LOOP(subtract, SUF, T, CT, a - b)
#define DEF_MUL(SUF, T, CT) BIN_LOOP(multiply, SUF, T, CT, a * b)
#define DEF_DIV(SUF, T, CT) BIN_LOOP(divide, SUF, T, CT, a / b)
PD_FOR_ALL(DEF_ADD)
PD_FOR_ALL(DEF_SUB)
PD_FOR_ALL(DEF_MUL)
PD_FOR_FLOAT(DEF_DIV)
PD_FOR_COMPLEX(DEF_DIV)

/* integer true division is defined on the float path by the Python layer (cast first), as
 * Paddle does; integer kernels here use C division with a zero check. */
#define DEF_IDIV(SUF, T, CT)                                                              \
  static void divide_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {     \
    int *zero = (int *)ctx;                                                              \
    char *o = d[0];                                                                      \
    const char *px = d[1], *py = d[2];                                                   \
    for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2]) {              \
      CT a = PD_LD_##SUF(px), b = PD_LD_##SUF(py);                                       \
      if (b == 0) {                                                                      \
        *zero = 1;                                                                       \
        PD_ST_##SUF(o, 0);                                                               \
      } else {                                                                           \
        PD_ST_##SUF(o, a / b);                                                           \
      }                                                                                  \
    }                                                                                    \
  }                                                                                      \
  pd_status pd_kernel_divide_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                         \
    const bin_args *a = (const bin_args *)args;                                          \
    int zero = 0;                                                                        \
    PD_TRY(pd_run_binary("divide", out[0], a->x, a->y, divide_loop_##SUF, &zero));       \
    if (zero)                                                                            \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,                                       \
                          "[divide] integer division by zero: y contains 0");            \
    return PD_OK;                                                                        \
  }
PD_FOR_INT(DEF_IDIV)
