/* Creation kernels: full/empty, arange, linspace, eye, diag, meshgrid, assign. Fills that do not
 * depend on the dtype's arithmetic (full, eye, diag, meshgrid) move raw element bytes, so one
 * implementation serves every dtype; arange and linspace compute per dtype. */
#include "pd_kernel_util.h"

#define PAR_MIN 65536 /* below this many elements, fills stay on one thread */

/* Writes scalar s as one element of dtype dt at p (int kinds exact through pd_scalar.i). */
static void scalar_store(void *p, pd_dtype dt, const pd_scalar *s) {
  if (pd_dtype_is_complex(dt))
    pd_store_from_complex(p, dt, s->f, s->kind == PD_SCALAR_COMPLEX ? s->imag : 0.0);
  else if ((pd_dtype_is_int(dt) || dt == PD_BOOL) &&
           (s->kind == PD_SCALAR_INT || s->kind == PD_SCALAR_BOOL))
    pd_store_from_int64(p, dt, s->i);
  else
    pd_store_from_double(p, dt, s->f);
}

/* Fills n elements of es bytes at dst with the element at elem. */
static void fill_bytes(void *dst, int64_t n, const void *elem, size_t es) {
  switch (es) {
    case 1: memset(dst, *(const unsigned char *)elem, (size_t)n); break;
    case 2: {
      uint16_t v;
      memcpy(&v, elem, 2);
      uint16_t *d = (uint16_t *)dst;
#pragma omp parallel for if (n >= PAR_MIN) schedule(static)
      for (int64_t i = 0; i < n; i++) d[i] = v;
      break;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, elem, 4);
      uint32_t *d = (uint32_t *)dst;
#pragma omp parallel for if (n >= PAR_MIN) schedule(static)
      for (int64_t i = 0; i < n; i++) d[i] = v;
      break;
    }
    case 8: {
      uint64_t v;
      memcpy(&v, elem, 8);
      uint64_t *d = (uint64_t *)dst;
#pragma omp parallel for if (n >= PAR_MIN) schedule(static)
      for (int64_t i = 0; i < n; i++) d[i] = v;
      break;
    }
    default: {
      uint64_t v[2];
      memcpy(v, elem, 16);
      uint64_t *d = (uint64_t *)dst;
#pragma omp parallel for if (n >= PAR_MIN) schedule(static)
      for (int64_t i = 0; i < n; i++) {
        d[2 * i] = v[0];
        d[2 * i + 1] = v[1];
      }
      break;
    }
  }
}

static pd_status fill_scalar(pd_tensor *t, const pd_scalar *s) {
  unsigned char elem[16];
  scalar_store(elem, t->dtype, s);
  fill_bytes(pd_tensor_data(t), t->numel, elem, pd_dtype_size(t->dtype));
  return PD_OK;
}

/* ---- full / empty ---- */
static pd_status full_impl(const void *args, pd_tensor **out) {
  const pd_full_args *a = (const pd_full_args *)args;
  return fill_scalar(out[0], &a->value);
}
static pd_status empty_impl(const void *args, pd_tensor **out) {
  (void)args;
  (void)out;
  return PD_OK;
}

/* ---- eye ---- */
static pd_status eye_impl(const void *args, pd_tensor **out) {
  (void)args;
  pd_tensor *t = out[0];
  size_t es = pd_dtype_size(t->dtype);
  char *d = (char *)pd_tensor_data(t);
  memset(d, 0, (size_t)t->numel * es);
  unsigned char one[16];
  pd_scalar s = pd_scalar_int(1);
  scalar_store(one, t->dtype, &s);
  int64_t r = t->shape[0], c = t->shape[1], n = r < c ? r : c;
  for (int64_t i = 0; i < n; i++) memcpy(d + (i * c + i) * (int64_t)es, one, es);
  return PD_OK;
}

/* ---- diag ---- */
static pd_status diag_impl(const void *args, pd_tensor **out) {
  const pd_diag_args *a = (const pd_diag_args *)args;
  pd_tensor *x = a->x, *o = out[0];
  size_t es = pd_dtype_size(x->dtype);
  const char *xd = (const char *)pd_tensor_data(x);
  char *od = (char *)pd_tensor_data(o);
  int64_t k = a->offset;
  if (x->ndim == 1) {
    int64_t n = o->shape[0], m = x->shape[0];
    if (o->numel > 0) {
      unsigned char pad[16];
      scalar_store(pad, o->dtype, &a->padding_value);
      fill_bytes(od, o->numel, pad, es);
    }
    for (int64_t i = 0; i < m; i++) {
      int64_t row = k >= 0 ? i : i - k, col = k >= 0 ? i + k : i;
      memcpy(od + (row * n + col) * (int64_t)es, xd + i * x->strides[0] * (int64_t)es, es);
    }
    return PD_OK;
  }
  int64_t len = o->shape[0];
  for (int64_t i = 0; i < len; i++) {
    int64_t row = k >= 0 ? i : i - k, col = k >= 0 ? i + k : i;
    memcpy(od + i * (int64_t)es, xd + (row * x->strides[0] + col * x->strides[1]) * (int64_t)es,
           es);
  }
  return PD_OK;
}

/* ---- meshgrid ---- */
static pd_status meshgrid_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_meshgrid_args *a = (const pd_meshgrid_args *)args;
  for (int i = 0; i < n_out; i++) {
    pd_tensor *x = a->x.data[i], *o = out[i];
    size_t es = pd_dtype_size(x->dtype);
    const char *xd = (const char *)pd_tensor_data(x);
    int64_t xs = x->ndim ? x->strides[0] : 0;
    char *od = (char *)pd_tensor_data(o);
    int64_t outer = 1, inner = 1, mid = o->shape[i];
    for (int d = 0; d < i; d++) outer *= o->shape[d];
    for (int d = i + 1; d < o->ndim; d++) inner *= o->shape[d];
    for (int64_t p = 0; p < outer; p++)
      for (int64_t m = 0; m < mid; m++)
        fill_bytes(od + ((p * mid + m) * inner) * (int64_t)es, inner, xd + m * xs * (int64_t)es,
                   es);
  }
  return PD_OK;
}

#define DEF_GENERIC(SUF, T, CT)                                                              \
  pd_status pd_kernel_full_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                            \
    return full_impl(args, out);                                                            \
  }                                                                                         \
  pd_status pd_kernel_empty_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                            \
    return empty_impl(args, out);                                                           \
  }                                                                                         \
  pd_status pd_kernel_eye_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                            \
    return eye_impl(args, out);                                                             \
  }                                                                                         \
  pd_status pd_kernel_diag_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                            \
    return diag_impl(args, out);                                                            \
  }                                                                                         \
  pd_status pd_kernel_meshgrid_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    return meshgrid_impl(args, out, n_out);                                                 \
  }                                                                                         \
  pd_status pd_kernel_assign_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                            \
    return pd_tensor_copy_(out[0], ((const pd_assign_args *)args)->x);                      \
  }
PD_FOR_ALL(DEF_GENERIC)

/* ---- arange / linspace (per real dtype) ---- */
#define DEF_RANGE(SUF, T, CT)                                                                \
  pd_status pd_kernel_arange_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                            \
    const pd_arange_args *a = (const pd_arange_args *)args;                                 \
    T *d = (T *)pd_tensor_data(out[0]);                                                     \
    int64_t n = out[0]->numel;                                                              \
    int ints = a->start.kind != PD_SCALAR_FLOAT && a->start.kind != PD_SCALAR_COMPLEX &&    \
               a->step.kind != PD_SCALAR_FLOAT && a->step.kind != PD_SCALAR_COMPLEX;        \
    if (ints && !pd_dtype_is_float(out[0]->dtype)) {                                        \
      int64_t s0 = a->start.i, st = a->step.i;                                              \
      _Pragma("omp parallel for if (n >= PAR_MIN) schedule(static)")                        \
      for (int64_t i = 0; i < n; i++) PD_ST_##SUF(&d[i], s0 + i * st);                      \
    } else {                                                                                \
      double s0 = a->start.f, st = a->step.f;                                               \
      _Pragma("omp parallel for if (n >= PAR_MIN) schedule(static)")                        \
      for (int64_t i = 0; i < n; i++) PD_ST_##SUF(&d[i], s0 + (double)i * st);              \
    }                                                                                       \
    return PD_OK;                                                                           \
  }                                                                                         \
  pd_status pd_kernel_linspace_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                            \
    const pd_linspace_args *a = (const pd_linspace_args *)args;                             \
    T *d = (T *)pd_tensor_data(out[0]);                                                     \
    int64_t n = out[0]->numel;                                                              \
    double s0 = a->start.f, s1 = a->stop.f;                                                 \
    if (n == 1) {                                                                           \
      PD_ST_##SUF(&d[0], s0);                                                               \
      return PD_OK;                                                                         \
    }                                                                                       \
    double st = (s1 - s0) / (double)(n - 1);                                                \
    int64_t half = n / 2;                                                                   \
    _Pragma("omp parallel for if (n >= PAR_MIN) schedule(static)")                          \
    for (int64_t i = 0; i < n; i++)                                                         \
      PD_ST_##SUF(&d[i], i < half ? s0 + st * (double)i : s1 - st * (double)(n - 1 - i));   \
    return PD_OK;                                                                           \
  }
PD_FOR_REAL(DEF_RANGE)
