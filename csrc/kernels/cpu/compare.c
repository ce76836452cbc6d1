/* Comparisons (equal, not_equal, less_than, ...) and logical ops (logical_and/or/xor/not):
 * inputs of one dtype with numpy broadcasting, bool output. One kernel per input dtype; the
 * inner loop has a contiguous fast path, a scalar-y path and a generic strided path. */
#include "pd_kernel_util.h"

typedef struct { pd_tensor *x, *y; } cmp_args;

#define CMP_LOOP(NAME, SUF, T, CT, EXPR)                                                    \
  static void NAME##_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {       \
    (void)ctx;                                                                             \
    uint8_t *o = (uint8_t *)d[0];                                                          \
    const char *px = d[1], *py = d[2];                                                     \
    const int64_t s = (int64_t)sizeof(T);                                                  \
    if (st[0] == 1 && st[1] == s && st[2] == s) {                                          \
      for (int64_t i = 0; i < n; i++) {                                                    \
        CT a = PD_LD_##SUF(px + i * s), b = PD_LD_##SUF(py + i * s);                       \
        o[i] = (uint8_t)(EXPR);                                                            \
      }                                                                                    \
    } else if (st[0] == 1 && st[1] == s && st[2] == 0) {                                   \
      CT b = PD_LD_##SUF(py);                                                              \
      for (int64_t i = 0; i < n; i++) {                                                    \
        CT a = PD_LD_##SUF(px + i * s);                                                    \
        o[i] = (uint8_t)(EXPR);                                                            \
      }                                                                                    \
    } else {                                                                               \
      for (int64_t i = 0; i < n; i++, px += st[1], py += st[2]) {                          \
        CT a = PD_LD_##SUF(px), b = PD_LD_##SUF(py);                                       \
        o[i * st[0]] = (uint8_t)(EXPR);                                                    \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                           \
    const cmp_args *a = (const cmp_args *)args;                                            \
    return pd_run_binary(#NAME, out[0], a->x, a->y, NAME##_loop_##SUF, NULL);              \
  }

#define DEF_EQ(SUF, T, CT) CMP_LOOP(equal, SUF, T, CT, a == b)
#define DEF_NE(SUF, T, CT) CMP_LOOP(not_equal, SUF, T, CT, a != b)
#define DEF_LT(SUF, T, CT) CMP_LOOP(less_than, SUF, T, CT, a < b)
#define DEF_LE(SUF, T, CT) CMP_LOOP(less_equal, SUF, T, CT, a <= b)
#define DEF_GT(SUF, T, CT) CMP_LOOP(greater_than, SUF, T, CT, a > b)
#define DEF_GE(SUF, T, CT) CMP_LOOP(greater_equal, SUF, T, CT, a >= b)
PD_FOR_ALL(DEF_EQ)
PD_FOR_ALL(DEF_NE)
PD_FOR_BOOL(DEF_LT) PD_FOR_REAL(DEF_LT)
PD_FOR_BOOL(DEF_LE) PD_FOR_REAL(DEF_LE)
PD_FOR_BOOL(DEF_GT) PD_FOR_REAL(DEF_GT)
PD_FOR_BOOL(DEF_GE) PD_FOR_REAL(DEF_GE)

#define DEF_LAND(SUF, T, CT) CMP_LOOP(logical_and, SUF, T, CT, (a != 0) & (b != 0))
#define DEF_LOR(SUF, T, CT) CMP_LOOP(logical_or, SUF, T, CT, (a != 0) | (b != 0))
#define DEF_LXOR(SUF, T, CT) CMP_LOOP(logical_xor, SUF, T, CT, (a != 0) ^ (b != 0))
PD_FOR_ALL(DEF_LAND)
PD_FOR_ALL(DEF_LOR)
PD_FOR_ALL(DEF_LXOR)

/* logical_not: unary, any dtype -> bool */
#define DEF_LNOT(SUF, T, CT)                                                               \
  static void logical_not_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {  \
    (void)ctx;                                                                             \
    uint8_t *o = (uint8_t *)d[0];                                                          \
    const char *px = d[1];                                                                 \
    const int64_t s = (int64_t)sizeof(T);                                                  \
    if (st[0] == 1 && st[1] == s) {                                                        \
      for (int64_t i = 0; i < n; i++) o[i] = (uint8_t)(PD_LD_##SUF(px + i * s) == 0);      \
    } else {                                                                               \
      for (int64_t i = 0; i < n; i++, px += st[1])                                         \
        o[i * st[0]] = (uint8_t)(PD_LD_##SUF(px) == 0);                                    \
    }                                                                                      \
  }                                                                                        \
  pd_status pd_kernel_logical_not_##SUF(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                           \
    const pd_logical_not_args *a = (const pd_logical_not_args *)args;                      \
    return pd_run_unary("logical_not", out[0], a->x, logical_not_loop_##SUF, NULL);        \
  }
PD_FOR_ALL(DEF_LNOT)
