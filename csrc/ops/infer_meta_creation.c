/* Shape/dtype rules of the creation and random ops (ops/creation.yaml, ops/random.yaml):
 * shapes given as int[] attributes, range lengths (arange, linspace), eye/diag/meshgrid
 * geometry, and the argument checks these ops make before any kernel runs. */
#include <math.h>
#include "generated/pd_ops_gen.h"

static pd_status dtype_or(const char *op, int dt, pd_dtype deflt, pd_dtype *out) {
  if (dt < 0) {
    *out = deflt;
    return PD_OK;
  }
  if (!pd_dtype_is_valid(dt))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected a valid dtype, received code %d",
                        op, dt);
  *out = (pd_dtype)dt;
  return PD_OK;
}

/* An int[] shape attribute -> meta (checks rank and non-negative sizes). */
static pd_status shape_meta(const char *op, const pd_int_array *shape, pd_dtype dt, pd_meta *m) {
  if (shape->n > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected shape to have at most %d dims, "
                        "received %lld", op, PD_MAX_DIMS, (long long)shape->n);
  for (int64_t i = 0; i < shape->n; i++)
    if (shape->data[i] < 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected shape[%lld] >= 0, received %lld",
                          op, (long long)i, (long long)shape->data[i]);
  pd_meta_set(m, dt, (int)shape->n, shape->data);
  return PD_OK;
}

static pd_status shape_out(const char *op, const pd_int_array *shape, int dt, pd_dtype deflt,
                           pd_meta_list *out) {
  pd_dtype d = PD_FLOAT32;
  PD_TRY(dtype_or(op, dt, deflt, &d));
  pd_meta *m = pd_meta_list_resize(out, 1);
  return shape_meta(op, shape, d, m);
}

pd_status pd_infer_full(const void *args, pd_meta_list *out) {
  const pd_full_args *a = (const pd_full_args *)args;
  return shape_out("full", &a->shape, a->dtype, PD_FLOAT32, out);
}

pd_status pd_infer_empty(const void *args, pd_meta_list *out) {
  const pd_empty_args *a = (const pd_empty_args *)args;
  return shape_out("empty", &a->shape, a->dtype, PD_FLOAT32, out);
}

static int scalar_is_int(const pd_scalar *s) { return s->kind == PD_SCALAR_INT || s->kind == PD_SCALAR_BOOL; }

/* Number of elements of arange(start, end, step); shared with the kernel. */
pd_status pd_arange_count(const pd_scalar *start, const pd_scalar *end, const pd_scalar *step,
                          int64_t *count) {
  if (scalar_is_int(start) && scalar_is_int(end) && scalar_is_int(step)) {
    if (step->i == 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[arange] expected step != 0, received 0");
    /* in 128-bit-free form: differences may overflow int64 only for absurd ranges */
    long double span = (long double)end->i - (long double)start->i;
    if ((span > 0) != (step->i > 0) || span == 0) {
      *count = 0;
      return PD_OK;
    }
    int64_t d = end->i - start->i, s = step->i;
    *count = s > 0 ? (d + s - 1) / s : (d + s + 1) / s;
    return PD_OK;
  }
  double st = start->f, en = end->f, sp = step->f;
  if (sp == 0 || isnan(sp))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[arange] expected step != 0, received %g", sp);
  if (!isfinite(st) || !isfinite(en) || !isfinite(sp))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[arange] expected finite start, end and step, "
                        "received %g, %g, %g", st, en, sp);
  double c = ceil((en - st) / sp);
  if (!(c > 0)) c = 0;
  if (c > 9.0e18)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[arange] the range has too many elements (%g)", c);
  *count = (int64_t)c;
  return PD_OK;
}

pd_status pd_infer_arange(const void *args, pd_meta_list *out) {
  const pd_arange_args *a = (const pd_arange_args *)args;
  pd_dtype d = PD_FLOAT32;
  int all_int = scalar_is_int(&a->start) && scalar_is_int(&a->end) && scalar_is_int(&a->step);
  PD_TRY(dtype_or("arange", a->dtype, all_int ? PD_INT64 : PD_FLOAT32, &d));
  int64_t n;
  PD_TRY(pd_arange_count(&a->start, &a->end, &a->step, &n));
  if (n > 0 && pd_dtype_is_int(d) && d != PD_INT64) {
    /* the first and last values must fit the dtype (no silent wrap) */
    static const double lo[] = {[PD_UINT8] = 0, [PD_INT8] = -128, [PD_INT16] = -32768,
                                [PD_INT32] = -2147483648.0};
    static const double hi[] = {[PD_UINT8] = 255, [PD_INT8] = 127, [PD_INT16] = 32767,
                                [PD_INT32] = 2147483647.0};
    int ints = all_int;
    long double first = ints ? (long double)a->start.i : (long double)a->start.f;
    long double last = ints ? (long double)a->start.i + (long double)(n - 1) * (long double)a->step.i
                            : (long double)a->start.f + (long double)(n - 1) * (long double)a->step.f;
    long double mn = first < last ? first : last, mx = first < last ? last : first;
    if (mn < (long double)lo[d] || mx > (long double)hi[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[arange] the values from %.17Lg to %.17Lg do not fit dtype %s (range [%.0f, "
                          "%.0f]); use int64", first, last, pd_dtype_name(d), lo[d], hi[d]);
  }
  pd_meta_set(pd_meta_list_resize(out, 1), d, 1, &n);
  return PD_OK;
}

pd_status pd_infer_linspace(const void *args, pd_meta_list *out) {
  const pd_linspace_args *a = (const pd_linspace_args *)args;
  pd_dtype d = PD_FLOAT32;
  PD_TRY(dtype_or("linspace", a->dtype, PD_FLOAT32, &d));
  if (a->num <= 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[linspace] expected num > 0, received %lld",
                        (long long)a->num);
  if (!isfinite(a->start.f) || !isfinite(a->stop.f))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[linspace] expected finite start and stop, "
                        "received %g and %g", a->start.f, a->stop.f);
  pd_meta_set(pd_meta_list_resize(out, 1), d, 1, &a->num);
  return PD_OK;
}

pd_status pd_infer_eye(const void *args, pd_meta_list *out) {
  const pd_eye_args *a = (const pd_eye_args *)args;
  pd_dtype d = PD_FLOAT32;
  PD_TRY(dtype_or("eye", a->dtype, PD_FLOAT32, &d));
  int64_t cols = a->num_columns < 0 ? a->num_rows : a->num_columns;
  if (a->num_rows < 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[eye] expected num_rows >= 0, received %lld",
                        (long long)a->num_rows);
  int64_t shape[2] = {a->num_rows, cols};
  pd_meta_set(pd_meta_list_resize(out, 1), d, 2, shape);
  return PD_OK;
}

pd_status pd_infer_diag(const void *args, pd_meta_list *out) {
  const pd_diag_args *a = (const pd_diag_args *)args;
  const pd_tensor *x = a->x;
  pd_meta *m = pd_meta_list_resize(out, 1);
  int64_t k = a->offset;
  if (x->ndim == 1) {
    int64_t n = x->shape[0] + (k < 0 ? -k : k);
    int64_t shape[2] = {n, n};
    pd_meta_set(m, x->dtype, 2, shape);
    return PD_OK;
  }
  if (x->ndim == 2) {
    int64_t r = x->shape[0], c = x->shape[1];
    int64_t len = k >= 0 ? (r < c - k ? r : c - k) : (r + k < c ? r + k : c);
    if (len < 0) len = 0;
    pd_meta_set(m, x->dtype, 1, &len);
    return PD_OK;
  }
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[diag] expected x to be 1-D or 2-D, received a "
                      "%d-D tensor", x->ndim);
}

pd_status pd_infer_meshgrid(const void *args, pd_meta_list *out) {
  const pd_meshgrid_args *a = (const pd_meshgrid_args *)args;
  int64_t n = a->x.n;
  if (n < 1 || n > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[meshgrid] expected 1 to %d input tensors, "
                        "received %lld", PD_MAX_DIMS, (long long)n);
  int64_t shape[PD_MAX_DIMS];
  for (int64_t i = 0; i < n; i++) {
    const pd_tensor *t = a->x.data[i];
    if (t->ndim > 1)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[meshgrid] expected every input to be 1-D, "
                          "received x[%lld] with %d dims", (long long)i, t->ndim);
    if (t->dtype != a->x.data[0]->dtype)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[meshgrid] expected all inputs to have dtype "
                          "%s, received x[%lld] with %s", pd_dtype_name(a->x.data[0]->dtype),
                          (long long)i, pd_dtype_name(t->dtype));
    shape[i] = t->numel;
  }
  pd_meta *m = pd_meta_list_resize(out, (int)n);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[meshgrid] out of memory");
  for (int64_t i = 0; i < n; i++) pd_meta_set(&m[i], a->x.data[0]->dtype, (int)n, shape);
  return PD_OK;
}

/* ---- random ---- */
pd_status pd_infer_uniform(const void *args, pd_meta_list *out) {
  const pd_uniform_args *a = (const pd_uniform_args *)args;
  if (!(a->min.f <= a->max.f) || !isfinite(a->min.f) || !isfinite(a->max.f))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[uniform] expected finite min <= max, received "
                        "min=%g, max=%g", a->min.f, a->max.f);
  return shape_out("uniform", &a->shape, a->dtype, PD_FLOAT32, out);
}

pd_status pd_infer_gaussian(const void *args, pd_meta_list *out) {
  const pd_gaussian_args *a = (const pd_gaussian_args *)args;
  if (!(a->std >= 0) || !isfinite(a->std) || !isfinite(a->mean))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[gaussian] expected finite mean and std >= 0, "
                        "received mean=%g, std=%g", a->mean, a->std);
  return shape_out("gaussian", &a->shape, a->dtype, PD_FLOAT32, out);
}

pd_status pd_infer_truncated_gaussian(const void *args, pd_meta_list *out) {
  const pd_truncated_gaussian_args *a = (const pd_truncated_gaussian_args *)args;
  if (!(a->std >= 0) || !isfinite(a->std) || !isfinite(a->mean))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[truncated_gaussian] expected finite mean and std >= 0, "
                        "received mean=%g, std=%g", a->mean, a->std);
  return shape_out("truncated_gaussian", &a->shape, a->dtype, PD_FLOAT32, out);
}

pd_status pd_infer_randint(const void *args, pd_meta_list *out) {
  const pd_randint_args *a = (const pd_randint_args *)args;
  if (a->low >= a->high)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[randint] expected low < high, received low=%lld,"
                        " high=%lld", (long long)a->low, (long long)a->high);
  PD_TRY(shape_out("randint", &a->shape, a->dtype, PD_INT64, out));
  if (out->m[0].dtype == PD_INT32 && (a->low < INT32_MIN || a->high - 1 > INT32_MAX))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[randint] expected [low, high) to fit int32, "
                        "received low=%lld, high=%lld", (long long)a->low, (long long)a->high);
  return PD_OK;
}

pd_status pd_infer_randperm(const void *args, pd_meta_list *out) {
  const pd_randperm_args *a = (const pd_randperm_args *)args;
  pd_dtype d = PD_FLOAT32;
  PD_TRY(dtype_or("randperm", a->dtype, PD_INT64, &d));
  if (!pd_op_defs[PD_OP_RANDPERM].kernels[d]) { /* Paddle picks the kernel first: NotFound (runner) */
    int64_t zero = 0;
    pd_meta_set(pd_meta_list_resize(out, 1), d, 1, &zero);
    return PD_OK;
  }
  if (a->n < 0) /* Paddle 2.6.2: PreconditionNotMet (an output of negative size); n = 0 is empty */
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[randperm] expected n >= 0, received %lld",
                        (long long)a->n);
  if (d == PD_INT32 && a->n - 1 > INT32_MAX)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[randperm] n=%lld does not fit int32",
                        (long long)a->n);
  pd_meta_set(pd_meta_list_resize(out, 1), d, 1, &a->n);
  return PD_OK;
}

pd_status pd_infer_multinomial(const void *args, pd_meta_list *out) {
  const pd_multinomial_args *a = (const pd_multinomial_args *)args;
  const pd_tensor *x = a->x;
  if (x->ndim != 1 && x->ndim != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected x to be 1-D or 2-D, "
                        "received a %d-D tensor", x->ndim);
  int64_t c = x->shape[x->ndim - 1];
  if (c <= 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected at least one category, "
                        "received 0");
  if (a->num_samples <= 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected num_samples > 0, "
                        "received %lld", (long long)a->num_samples);
  if (!a->replacement && a->num_samples > c)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multinomial] expected num_samples <= the number"
                        " of categories (%lld) when replacement is False, received %lld",
                        (long long)c, (long long)a->num_samples);
  int64_t shape[2];
  if (x->ndim == 1) {
    shape[0] = a->num_samples;
  } else {
    shape[0] = x->shape[0];
    shape[1] = a->num_samples;
  }
  pd_meta_set(pd_meta_list_resize(out, 1), PD_INT64, x->ndim, shape);
  return PD_OK;
}

pd_status pd_infer_uniform_inplace(const void *args, pd_meta_list *out) {
  const pd_uniform__args *a = (const pd_uniform__args *)args;
  if (!(a->min.f <= a->max.f) || !isfinite(a->min.f) || !isfinite(a->max.f))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[uniform_] expected finite min <= max, received "
                        "min=%g, max=%g", a->min.f, a->max.f);
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_exponential_inplace(const void *args, pd_meta_list *out) {
  const pd_exponential__args *a = (const pd_exponential__args *)args;
  if (!(a->lam > 0) || !isfinite(a->lam))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[exponential_] expected lam > 0, received %g",
                        a->lam);
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}
