/* Fused loss kernels: cross_entropy_with_softmax (softmax + cross entropy from a stable
 * log-softmax, hard labels with ignore_index or soft labels) and its one-pass backward
 * cross_entropy_with_softmax_grad. Rows are [outer, n, inner] slices along the class axis;
 * inner == 1 (class axis last) runs unit-stride loops, rows split across OpenMP threads. */
#include "pd_kernel_util.h"
#include "pd_vmath.h"

typedef struct { int64_t outer, n, inner; } ce_dims;

static void ce_dims_of(const pd_tensor *x, int64_t axis, ce_dims *d) {
  int ax = (int)(axis < 0 ? axis + x->ndim : axis);
  d->outer = d->inner = 1;
  for (int i = 0; i < ax; i++) d->outer *= x->shape[i];
  d->n = x->shape[ax];
  for (int i = ax + 1; i < x->ndim; i++) d->inner *= x->shape[i];
}

/* label value of row r as int64 (hard labels) */
static inline int64_t ce_label(const void *lab, pd_dtype dt, int64_t r) {
  return dt == PD_INT64 ? ((const int64_t *)lab)[r] : (int64_t)((const int32_t *)lab)[r];
}

static pd_status ce_check_labels(const char *op, const pd_tensor *label, int64_t rows, int64_t n,
                                 int64_t ignore) {
  const void *lab = pd_tensor_data(label);
  for (int64_t r = 0; r < rows; r++) {
    int64_t v = ce_label(lab, label->dtype, r);
    if (v != ignore && (v < 0 || v >= n))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected label values in [0, %lld) or ignore_index %lld, received %lld",
                          op, (long long)n, (long long)ignore, (long long)v);
  }
  return PD_OK;
}

/* Contiguous versions of the inputs (retained; released by ce_release). */
static pd_status ce_contig(pd_tensor **in, pd_tensor **c, int k) {
  for (int i = 0; i < k; i++) c[i] = NULL;
  for (int i = 0; i < k; i++) {
    pd_status s = pd_tensor_contiguous(in[i], &c[i]);
    if (s != PD_OK) {
      for (int j = 0; j < i; j++) pd_tensor_release(c[j]);
      return s;
    }
  }
  return PD_OK;
}
static void ce_release(pd_tensor **c, int k) {
  for (int i = 0; i < k; i++) pd_tensor_release(c[i]);
}

#define CE_DEF(SUF, T, EXP, LOG)                                                                \
  /* one row: x, s (softmax out), lab (soft label row or NULL) at stride st; returns the loss */ \
  static inline __attribute__((always_inline)) T ce_row_##SUF(const T *restrict x, T *restrict s, \
                                                              const T *restrict lab, int64_t hard, \
                                                              int64_t ignore, int64_t n, int64_t st) { \
    T m = x[0];                                                                                 \
    for (int64_t j = 1; j < n; j++) m = x[j * st] > m ? x[j * st] : m;                          \
    T sum = 0;                                                                                  \
    for (int64_t j = 0; j < n; j++) {                                                           \
      T e = EXP(x[j * st] - m);                                                                 \
      s[j * st] = e;                                                                            \
      sum += e;                                                                                 \
    }                                                                                           \
    const T inv = (T)1 / sum, lse = m + LOG(sum);                                               \
    for (int64_t j = 0; j < n; j++) s[j * st] *= inv;                                           \
    if (!lab) return hard == ignore ? (T)0 : lse - x[hard * st];                                \
    T acc = 0;                                                                                  \
    for (int64_t j = 0; j < n; j++) acc += lab[j * st] * (lse - x[j * st]);                     \
    return acc;                                                                                 \
  }                                                                                             \
  pd_status pd_kernel_cross_entropy_with_softmax_##SUF(const void *args, pd_tensor **out, int n_out) { \
    (void)n_out;                                                                                \
    const pd_cross_entropy_with_softmax_args *A = (const pd_cross_entropy_with_softmax_args *)args; \
    ce_dims d;                                                                                  \
    ce_dims_of(A->logits, A->axis, &d);                                                         \
    const int64_t rows = d.outer * d.inner, n = d.n, inner = d.inner, ig = A->ignore_index;     \
    if (rows == 0 || n == 0) {                                                                  \
      if (rows) PD_TRY(pd_tensor_fill_(out[1], 0, 0));                                           \
      return PD_OK;                                                                             \
    }                                                                                           \
    pd_tensor *in[2] = {A->logits, A->label}, *c[2];                                            \
    PD_TRY(ce_contig(in, c, 2));                                                                \
    const int soft = A->soft_label;                                                             \
    if (!soft) {                                                                                \
      pd_status st_ = ce_check_labels("cross_entropy_with_softmax", c[1], rows, n, ig);         \
      if (st_ != PD_OK) { ce_release(c, 2); return st_; }                                       \
    }                                                                                           \
    const T *x = (const T *)pd_tensor_data(c[0]);                                               \
    const void *lab = pd_tensor_data(c[1]);                                                     \
    const pd_dtype ldt = c[1]->dtype;                                                           \
    T *s = (T *)pd_tensor_data(out[0]), *loss = (T *)pd_tensor_data(out[1]);                    \
    _Pragma("omp parallel for if (rows * n >= 32768) schedule(static)")                         \
    for (int64_t r = 0; r < rows; r++) {                                                        \
      const int64_t o = r / inner, i = r % inner, base = o * n * inner + i;                     \
      const T *sl = soft ? (const T *)lab + base : NULL;                                        \
      const int64_t h = soft ? 0 : ce_label(lab, ldt, r);                                       \
      loss[r] = inner == 1 ? ce_row_##SUF(x + base, s + base, sl, h, ig, n, 1)                  \
                           : ce_row_##SUF(x + base, s + base, sl, h, ig, n, inner);             \
    }                                                                                           \
    ce_release(c, 2);                                                                           \
    return PD_OK;                                                                               \
  }                                                                                             \
  /* dx = s * (c + q - sum(q s)) - t * dl */                                                    \
  static inline __attribute__((always_inline)) void ceg_row_##SUF(                              \
      T *restrict dx, const T *restrict s, const T *restrict q, const T *restrict lab, int64_t hard, \
      int64_t ignore, T dl, int64_t n, int64_t st) {                                            \
    T r = 0, c;                                                                                 \
    for (int64_t j = 0; j < n; j++) r += q[j * st] * s[j * st];                                 \
    if (lab) {                                                                                  \
      T sl = 0;                                                                                 \
      for (int64_t j = 0; j < n; j++) sl += lab[j * st];                                        \
      c = dl * sl - r;                                                                          \
      for (int64_t j = 0; j < n; j++) dx[j * st] = s[j * st] * (c + q[j * st]) - lab[j * st] * dl; \
    } else {                                                                                    \
      c = (hard == ignore ? (T)0 : dl) - r;                                                     \
      for (int64_t j = 0; j < n; j++) dx[j * st] = s[j * st] * (c + q[j * st]);                 \
      if (hard != ignore) dx[hard * st] -= dl;                                                  \
    }                                                                                           \
  }                                                                                             \
  pd_status pd_kernel_cross_entropy_with_softmax_grad_##SUF(const void *args, pd_tensor **out,  \
                                                            int n_out) {                        \
    (void)n_out;                                                                                \
    const pd_cross_entropy_with_softmax_grad_args *A =                                          \
        (const pd_cross_entropy_with_softmax_grad_args *)args;                                  \
    ce_dims d;                                                                                  \
    ce_dims_of(A->softmax, A->axis, &d);                                                        \
    const int64_t rows = d.outer * d.inner, n = d.n, inner = d.inner, ig = A->ignore_index;     \
    if (rows == 0 || n == 0) return PD_OK;                                                      \
    pd_tensor *in[4] = {A->label, A->softmax, A->dloss, A->dsoftmax}, *c[4];                    \
    PD_TRY(ce_contig(in, c, 4));                                                                \
    const int soft = A->soft_label;                                                             \
    if (!soft) {                                                                                \
      pd_status st_ = ce_check_labels("cross_entropy_with_softmax_grad", c[0], rows, n, ig);    \
      if (st_ != PD_OK) { ce_release(c, 4); return st_; }                                       \
    }                                                                                           \
    const void *lab = pd_tensor_data(c[0]);                                                     \
    const pd_dtype ldt = c[0]->dtype;                                                           \
    const T *s = (const T *)pd_tensor_data(c[1]), *dl = (const T *)pd_tensor_data(c[2]);        \
    const T *q = (const T *)pd_tensor_data(c[3]);                                               \
    T *dx = (T *)pd_tensor_data(out[0]);                                                        \
    _Pragma("omp parallel for if (rows * n >= 32768) schedule(static)")                         \
    for (int64_t r = 0; r < rows; r++) {                                                        \
      const int64_t o = r / inner, i = r % inner, base = o * n * inner + i;                     \
      const T *sl = soft ? (const T *)lab + base : NULL;                                        \
      const int64_t h = soft ? 0 : ce_label(lab, ldt, r);                                       \
      if (inner == 1)                                                                           \
        ceg_row_##SUF(dx + base, s + base, q + base, sl, h, ig, dl[r], n, 1);                   \
      else                                                                                      \
        ceg_row_##SUF(dx + base, s + base, q + base, sl, h, ig, dl[r], n, inner);               \
    }                                                                                           \
    ce_release(c, 4);                                                                           \
    return PD_OK;                                                                               \
  }

CE_DEF(f32, float, pd_vexpf, pd_vlogf)
CE_DEF(f64, double, pd_vexp, pd_vlog)
