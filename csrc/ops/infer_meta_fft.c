/* Shape and dtype rules of ops/fft.yaml (fft_c2c, fft_r2c, fft_c2r and their grad ops). */
#include <math.h>
#include <string.h>
#include "infer_meta_fft.h"

pd_status pd_fft_axes(const char *op, pd_int_array axes, int ndim, int *ax, int *nax) {
  if (axes.n < 1 || axes.n > ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected 1 to %d axes for an input of %d dims, received %lld",
                        op, ndim, ndim, (long long)axes.n);
  for (int64_t i = 0; i < axes.n; i++) {
    PD_TRY(pd_norm_axis(op, axes.data[i], ndim, &ax[i]));
    for (int64_t j = 0; j < i; j++)
      if (ax[j] == ax[i])
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected distinct axes, axis %d is repeated", op, ax[i]);
  }
  *nax = (int)axes.n;
  return PD_OK;
}

pd_status pd_fft_norm_mode(const char *op, const char *norm, int forward, int *mode) {
  if (!norm || !norm[0] || !strcmp(norm, "backward"))
    *mode = forward ? 0 : 2;
  else if (!strcmp(norm, "forward"))
    *mode = forward ? 2 : 0;
  else if (!strcmp(norm, "ortho"))
    *mode = 1;
  else
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected normalization 'forward', 'backward' or 'ortho', received '%s'", op, norm);
  return PD_OK;
}

double pd_fft_scale(int mode, double n) { return mode == 0 ? 1.0 : mode == 1 ? 1.0 / sqrt(n) : 1.0 / n; }

static int is_complex(pd_dtype t) { return t == PD_COMPLEX64 || t == PD_COMPLEX128; }
static int is_real(pd_dtype t) { return t == PD_FLOAT32 || t == PD_FLOAT64; }
static pd_dtype to_complex(pd_dtype t) { return t == PD_FLOAT32 ? PD_COMPLEX64 : PD_COMPLEX128; }
static pd_dtype to_real(pd_dtype t) { return t == PD_COMPLEX64 ? PD_FLOAT32 : PD_FLOAT64; }

static pd_status want(const char *op, const char *name, const pd_tensor *t, int cplx) {
  if (cplx ? is_complex(t->dtype) : is_real(t->dtype)) return PD_OK;
  return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be %s, received %s", op, name,
                      cplx ? "complex64 or complex128" : "float32 or float64", pd_dtype_name(t->dtype));
}

/* common checks: axes, norm string, no empty transform axis */
static pd_status check(const char *op, const pd_tensor *x, pd_int_array axes, const char *norm, int forward,
                       int *ax, int *nax) {
  int mode;
  PD_TRY(pd_fft_norm_mode(op, norm, forward, &mode));
  PD_TRY(pd_fft_axes(op, axes, x->ndim, ax, nax));
  for (int i = 0; i < *nax; i++)
    if (x->shape[ax[i]] == 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] (InvalidArgument) Invalid fft n-point (0).", op);
  return PD_OK;
}

pd_status pd_infer_fft_c2c(const void *args, pd_meta_list *out) {
  const pd_fft_c2c_args *a = (const pd_fft_c2c_args *)args;
  int ax[PD_MAX_DIMS], nax;
  PD_TRY(want("fft_c2c", "x", a->x, 1));
  PD_TRY(check("fft_c2c", a->x, a->axes, a->normalization, a->forward, ax, &nax));
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_fft_c2c_grad(const void *args, pd_meta_list *out) {
  const pd_fft_c2c_grad_args *a = (const pd_fft_c2c_grad_args *)args;
  int ax[PD_MAX_DIMS], nax;
  PD_TRY(want("fft_c2c_grad", "out_grad", a->out_grad, 1));
  PD_TRY(check("fft_c2c_grad", a->out_grad, a->axes, a->normalization, a->forward, ax, &nax));
  pd_meta_like(pd_meta_list_resize(out, 1), a->out_grad);
  return PD_OK;
}

pd_status pd_infer_fft_r2c(const void *args, pd_meta_list *out) {
  const pd_fft_r2c_args *a = (const pd_fft_r2c_args *)args;
  int ax[PD_MAX_DIMS], nax;
  PD_TRY(want("fft_r2c", "x", a->x, 0));
  PD_TRY(check("fft_r2c", a->x, a->axes, a->normalization, a->forward, ax, &nax));
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, to_complex(a->x->dtype), a->x->ndim, a->x->shape);
  if (a->onesided && m->shape[ax[nax - 1]] >= 0) m->shape[ax[nax - 1]] = m->shape[ax[nax - 1]] / 2 + 1;
  return PD_OK;
}

pd_status pd_infer_fft_r2c_grad(const void *args, pd_meta_list *out) {
  const pd_fft_r2c_grad_args *a = (const pd_fft_r2c_grad_args *)args;
  int ax[PD_MAX_DIMS], nax;
  PD_TRY(want("fft_r2c_grad", "out_grad", a->out_grad, 1));
  PD_TRY(check("fft_r2c_grad", a->x, a->axes, a->normalization, a->forward, ax, &nax));
  if (a->x->ndim != a->out_grad->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fft_r2c_grad] expected x and out_grad of the same rank");
  pd_meta_set(pd_meta_list_resize(out, 1), to_real(a->out_grad->dtype), a->x->ndim, a->x->shape);
  return PD_OK;
}

static pd_status c2r_len(const char *op, const pd_tensor *x, int last, int64_t last_dim_size, int64_t *n) {
  int64_t m = x->shape[last];
  *n = last_dim_size > 0 ? last_dim_size : (m < 0 ? -1 : 2 * (m - 1));
  if (*n == 0 || (*n < 0 && m >= 0))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] (InvalidArgument) Invalid fft n-point (%lld).", op,
                        (long long)*n);
  return PD_OK;
}

pd_status pd_infer_fft_c2r(const void *args, pd_meta_list *out) {
  const pd_fft_c2r_args *a = (const pd_fft_c2r_args *)args;
  int ax[PD_MAX_DIMS], nax;
  PD_TRY(want("fft_c2r", "x", a->x, 1));
  PD_TRY(check("fft_c2r", a->x, a->axes, a->normalization, a->forward, ax, &nax));
  int64_t n;
  PD_TRY(c2r_len("fft_c2r", a->x, ax[nax - 1], a->last_dim_size, &n));
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, to_real(a->x->dtype), a->x->ndim, a->x->shape);
  m->shape[ax[nax - 1]] = n;
  return PD_OK;
}

pd_status pd_infer_fft_c2r_grad(const void *args, pd_meta_list *out) {
  const pd_fft_c2r_grad_args *a = (const pd_fft_c2r_grad_args *)args;
  int ax[PD_MAX_DIMS], nax;
  PD_TRY(want("fft_c2r_grad", "out_grad", a->out_grad, 0));
  PD_TRY(check("fft_c2r_grad", a->x, a->axes, a->normalization, a->forward, ax, &nax));
  if (a->x->ndim != a->out_grad->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fft_c2r_grad] expected x and out_grad of the same rank");
  pd_meta_set(pd_meta_list_resize(out, 1), to_complex(a->out_grad->dtype), a->x->ndim, a->x->shape);
  return PD_OK;
}
