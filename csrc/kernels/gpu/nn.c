/* GPU kernels of the 'nn' family: the glue between the op table's args structs and the
 * launchers of libpaddle_c_cuda.so (csrc/cuda/pd_cuda_nn.h). Each kernel mirrors the CPU kernel
 * of the same op (csrc/kernels/cpu/{matmul,reduce,softmax,loss,norm}.c, program_ops.c): same
 * shape rules, same accumulation types, same edge cases; what the launchers do not cover is
 * pd_cu_unsupported (NotImplementedError), never a different answer. */
#include <string.h>
#include "../../core/pd_device.h"
#include "../../ops/pd_op.h"
#include "../../cuda/pd_cuda_nn.h"
#include "../pd_kernel_shared.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../cpu/reduce_common.h"

#define NN (pd_cuda->nn)
#define DATA(t) ((t) ? pd_tensor_data(t) : NULL)

static pd_status nn_missing(const char *op) {
  return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library was built without its nn kernels", op);
}
#define NEED(fn, op) \
  if (!NN || !NN->fn) return nn_missing(op)

/* a contiguous version of t (t itself, retained, when it already is); NULL stays NULL */
static pd_status contig(pd_tensor *t, pd_tensor **c) {
  *c = NULL;
  if (!t) return PD_OK;
  return pd_tensor_contiguous(t, c);
}
static void rel(pd_tensor *t) {
  if (t) pd_tensor_release(t);
}

/* ---------------- matmul ---------------- */
static int batch_ok(const pd_tensor *t) {
  for (int d = 0; d + 2 < t->ndim; d++)
    if (t->strides[d] < 0) return 0;
  return 1;
}

static pd_status gpu_matmul(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_matmul_args *a = (const pd_matmul_args *)args;
  NEED(gemm, "matmul");
  int64_t M, N, K, oshape[PD_MAX_DIMS];
  int ondim;
  PD_TRY(pd_matmul_shapes(a->x, a->y, a->transpose_x, a->transpose_y, &M, &N, &K, &ondim, oshape));
  pd_tensor *o = out[0];
  const pd_dtype dt = o->dtype;
  if (a->x->dtype != dt || a->y->dtype != dt) return pd_cu_unsupported("matmul", a->x->dtype != dt ? a->x->dtype : a->y->dtype);
  if (o->numel == 0) return PD_OK;
  if (K == 0) return pd_cu_status(pd_cuda->rt->memset(pd_tensor_data(o), 0, (size_t)o->numel * pd_dtype_size(dt)), "matmul");
  pd_tensor *x = a->x, *y = a->y;
  const int tx = a->transpose_x && x->ndim > 1, ty = a->transpose_y && y->ndim > 1;
  int64_t sxi, sxk, syk, syn;
  pd_mat_strides(x, tx, 1, &sxi, &sxk);
  pd_mat_strides(y, ty, 0, &syk, &syn);
  pd_blas_view va = pd_blas_fit(M, K, sxi, sxk), vb = pd_blas_fit(K, N, syk, syn);
  pd_tensor *xc = NULL, *yc = NULL;
  if (!va.ok || !batch_ok(x)) {
    PD_TRY(pd_tensor_contiguous(x, &xc));
    x = xc;
    pd_mat_strides(x, tx, 1, &sxi, &sxk);
    va = pd_blas_fit(M, K, sxi, sxk);
  }
  if (!vb.ok || !batch_ok(y)) {
    pd_status s = pd_tensor_contiguous(y, &yc);
    if (s != PD_OK) { rel(xc); return s; }
    y = yc;
    pd_mat_strides(y, ty, 0, &syk, &syn);
    vb = pd_blas_fit(K, N, syk, syn);
  }
  pd_cuda_gemm_batch b;
  memset(&b, 0, sizeof b);
  const int nbo = ondim - (a->x->ndim > 1) - (a->y->ndim > 1);
  b.nb = nbo > 0 ? nbo : 0;
  const int nbx = x->ndim > 2 ? x->ndim - 2 : 0, nby = y->ndim > 2 ? y->ndim - 2 : 0;
  for (int d = 0; d < b.nb; d++) {
    int ix = d - (b.nb - nbx), iy = d - (b.nb - nby);
    b.shape[d] = oshape[d];
    b.astride[d] = ix >= 0 && x->shape[ix] != 1 ? x->strides[ix] : 0;
    b.bstride[d] = iy >= 0 && y->shape[iy] != 1 ? y->strides[iy] : 0;
  }
  int rc = pd_cuda->nn->gemm((int)dt, va.trans, vb.trans, M, N, K, pd_tensor_data(x), va.ld,
                             pd_tensor_data(y), vb.ld, pd_tensor_data(o), &b);
  rel(xc);
  rel(yc);
  return pd_cu_status(rc, "matmul");
}


/* dot: 1-D -> [1], 2-D [N, K] -> [N, 1] (the CPU kernel's shapes and accumulators) */
static pd_status gpu_dot(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_dot_args *a = (const pd_dot_args *)args;
  NEED(dot, "dot");
  const pd_tensor *x = a->x, *y = a->y;
  if (x->ndim < 1 || x->ndim > 2 || y->ndim != x->ndim || y->dtype != x->dtype || out[0]->dtype != x->dtype)
    return pd_cu_unsupported("dot", x->dtype);
  const int64_t rows = x->ndim == 2 ? x->shape[0] : 1, n = x->shape[x->ndim - 1];
  const int64_t xr = x->ndim == 2 ? x->strides[0] : 0, xc = x->strides[x->ndim - 1];
  const int64_t yr = y->ndim == 2 ? y->strides[0] : 0, yc = y->strides[y->ndim - 1];
  if (out[0]->numel == 0) return PD_OK;
  return pd_cu_status(NN->dot((int)x->dtype, pd_tensor_data(x), pd_tensor_data(y), rows, n, xr, xc, yr, yc,
                              pd_tensor_data(out[0])),
                      "dot");
}

/* ---------------- reductions ---------------- */
typedef struct { pd_tensor *x; pd_int_array axis; int keepdim; } red_args;

static pd_status gpu_reduce(const char *op, int kind, const void *args, pd_tensor *out, int need_nonempty) {
  const red_args *a = (const red_args *)args;
  NEED(reduce, op);
  unsigned mask;
  PD_TRY(pd_reduce_mask(op, a->x->ndim, a->axis, &mask));
  if (out->dtype == PD_COMPLEX64 || out->dtype == PD_COMPLEX128) return pd_cu_unsupported(op, out->dtype);
  if (out->numel == 0) return PD_OK;
  if (need_nonempty) {
    for (int d = 0; d < a->x->ndim; d++)
      if (((mask >> d) & 1) && a->x->shape[d] == 0)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                            "[%s] expected a non-empty reduction, received a zero-size axis", op);
  }
  pd_cuda_tensor xv = pd_cu_view(a->x);
  return pd_cu_status(NN->reduce(kind, &xv, mask, pd_tensor_data(out), (int)out->dtype), op);
}
#define DEF_RED(NAME, KIND, NONEMPTY)                                             \
  static pd_status gpu_##NAME(const void *args, pd_tensor **out, int n_out) {     \
    (void)n_out;                                                                  \
    return gpu_reduce(#NAME, KIND, args, out[0], NONEMPTY);                       \
  }
DEF_RED(sum, PD_CU_RED_SUM, 0)
DEF_RED(mean, PD_CU_RED_MEAN, 0)
DEF_RED(prod, PD_CU_RED_PROD, 0)
DEF_RED(max, PD_CU_RED_MAX, 1)
DEF_RED(min, PD_CU_RED_MIN, 1)
DEF_RED(amax, PD_CU_RED_MAX, 1)
DEF_RED(amin, PD_CU_RED_MIN, 1)
DEF_RED(all, PD_CU_RED_ALL, 0)
DEF_RED(any, PD_CU_RED_ANY, 0)
DEF_RED(logsumexp, PD_CU_RED_LOGSUMEXP, 0)


/* var / std / frobenius_norm / p_norm / argmax / argmin through reduce2 */
static pd_status gpu_reduce2(const char *op, int kind, pd_tensor *x, unsigned mask, pd_tensor *out, double param) {
  NEED(reduce2, op);
  if (out->numel == 0) return PD_OK;
  pd_cuda_tensor xv = pd_cu_view(x);
  return pd_cu_status(NN->reduce2(kind, &xv, mask, pd_tensor_data(out), (int)out->dtype, param), op);
}
static pd_status gpu_var_std(const char *op, int kind, const void *args, pd_tensor *out) {
  const pd_var_args *a = (const pd_var_args *)args; /* std's args have the same layout */
  unsigned mask;
  PD_TRY(pd_reduce_mask(op, a->x->ndim, a->axis, &mask));
  return gpu_reduce2(op, kind, a->x, mask, out, a->unbiased ? 1.0 : 0.0);
}
static pd_status gpu_var(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return gpu_var_std("var", PD_CU_RED_VAR, args, out[0]);
}
static pd_status gpu_std(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return gpu_var_std("std", PD_CU_RED_STD, args, out[0]);
}
static pd_status gpu_frobenius_norm(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const red_args *a = (const red_args *)args;
  unsigned mask;
  PD_TRY(pd_reduce_mask("frobenius_norm", a->x->ndim, a->axis, &mask));
  return gpu_reduce2("frobenius_norm", PD_CU_RED_FROBENIUS, a->x, mask, out[0], 2.0);
}
static pd_status gpu_p_norm(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_p_norm_args *a = (const pd_p_norm_args *)args;
  unsigned mask;
  if (a->asvector) {
    mask = a->x->ndim > 0 ? (1u << a->x->ndim) - 1 : 1u;
  } else {
    int ax;
    PD_TRY(pd_norm_axis("p_norm", a->axis, a->x->ndim, &ax));
    mask = 1u << ax;
  }
  return gpu_reduce2("p_norm", PD_CU_RED_PNORM, a->x, mask, out[0], a->porder);
}
static pd_status gpu_arg(const char *op, int kind, const void *args, pd_tensor *out) {
  const pd_argmax_args *a = (const pd_argmax_args *)args;
  unsigned mask;
  if (a->flatten) {
    mask = a->x->ndim > 0 ? (1u << a->x->ndim) - 1 : 1u;
  } else {
    int ax;
    PD_TRY(pd_norm_axis(op, a->axis, a->x->ndim, &ax));
    mask = 1u << ax;
  }
  for (int d = 0; d < a->x->ndim; d++)
    if (((mask >> d) & 1) && a->x->shape[d] == 0 && out->numel > 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected a non-empty axis, received size 0", op);
  if (out->dtype != PD_INT64 && out->dtype != PD_INT32) return pd_cu_unsupported(op, out->dtype);
  return gpu_reduce2(op, kind, a->x, mask, out, 0);
}
static pd_status gpu_argmax(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return gpu_arg("argmax", PD_CU_RED_ARGMAX, args, out[0]);
}
static pd_status gpu_argmin(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return gpu_arg("argmin", PD_CU_RED_ARGMIN, args, out[0]);
}

/* scale_numel: x * factor / (numel(a) / numel(b) - offset), the factor computed in double as
 * the CPU kernel does */
static pd_status gpu_scale_numel(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_scale_numel_args *a = (const pd_scale_numel_args *)args;
  NEED(scale, "scale_numel");
  double n = (double)a->a->numel / (double)(a->b->numel ? a->b->numel : 1);
  double s = a->factor / (n - a->offset);
  if (out[0]->numel == 0) return PD_OK;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  int rc = NN->scale((int)xc->dtype, pd_tensor_data(xc), pd_tensor_data(out[0]), out[0]->numel, s);
  pd_tensor_release(xc);
  return pd_cu_status(rc, "scale_numel");
}

/* ---------------- softmax ---------------- */
static void axis_dims(const pd_tensor *x, int ax, int64_t *outer, int64_t *n, int64_t *inner) {
  *outer = *inner = 1;
  for (int i = 0; i < ax; i++) *outer *= x->shape[i];
  *n = x->ndim ? x->shape[ax] : 1;
  for (int i = ax + 1; i < x->ndim; i++) *inner *= x->shape[i];
}
static pd_status gpu_softmax_any(const char *op, int log_, const void *args, pd_tensor **out) {
  const pd_softmax_args *a = (const pd_softmax_args *)args;
  NEED(softmax, op);
  int ax;
  PD_TRY(pd_norm_axis(op, a->axis, a->x->ndim, &ax));
  if (out[0]->numel == 0) return PD_OK;
  int64_t outer, n, inner;
  axis_dims(a->x, ax, &outer, &n, &inner);
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  int rc = NN->softmax((int)xc->dtype, pd_tensor_data(xc), pd_tensor_data(out[0]), outer, n, inner, log_);
  pd_tensor_release(xc);
  return pd_cu_status(rc, op);
}
static pd_status gpu_softmax(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return gpu_softmax_any("softmax", 0, args, out);
}
static pd_status gpu_log_softmax(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  return gpu_softmax_any("log_softmax", 1, args, out);
}


/* ---------------- cumsum / cumprod ---------------- */
static pd_status gpu_scan(const char *op, int prod, pd_tensor *x, int64_t axis, int flatten, int exclusive,
                          int reverse, pd_tensor *out) {
  NEED(scan, op);
  int64_t outer = 1, n = x->numel, inner = 1;
  if (!(flatten || x->ndim == 0)) {
    int ax;
    PD_TRY(pd_norm_axis(op, axis, x->ndim, &ax));
    axis_dims(x, ax, &outer, &n, &inner);
  }
  if (out->numel == 0) return PD_OK;
  pd_tensor *xc;
  PD_TRY(pd_tensor_contiguous(x, &xc));
  int rc = NN->scan((int)xc->dtype, prod, pd_tensor_data(xc), pd_tensor_data(out), outer, n, inner, exclusive, reverse);
  pd_tensor_release(xc);
  return pd_cu_status(rc, op);
}
static pd_status gpu_cumsum(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_cumsum_args *a = (const pd_cumsum_args *)args;
  return gpu_scan("cumsum", 0, a->x, a->axis, a->flatten, a->exclusive, a->reverse, out[0]);
}
static pd_status gpu_cumprod(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_cumprod_args *a = (const pd_cumprod_args *)args;
  return gpu_scan("cumprod", 1, a->x, a->dim, 0, 0, 0, out[0]);
}

/* ---------------- cross_entropy_with_softmax ---------------- */
static pd_status ce_dims(const char *op, const pd_tensor *x, int64_t axis, int64_t *outer, int64_t *n,
                         int64_t *inner) {
  int ax;
  PD_TRY(pd_norm_axis(op, axis, x->ndim, &ax));
  axis_dims(x, ax, outer, n, inner);
  return PD_OK;
}
static pd_status check_label(const char *op, const pd_tensor *label, int soft, pd_dtype dt) {
  if (soft ? label->dtype != dt : (label->dtype != PD_INT64 && label->dtype != PD_INT32))
    return pd_cu_unsupported(op, label->dtype);
  return PD_OK;
}
static pd_status gpu_ce(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_cross_entropy_with_softmax_args *A = (const pd_cross_entropy_with_softmax_args *)args;
  const char *op = "cross_entropy_with_softmax";
  NEED(ce_softmax, op);
  int64_t outer, n, inner;
  PD_TRY(ce_dims(op, A->logits, A->axis, &outer, &n, &inner));
  PD_TRY(check_label(op, A->label, A->soft_label, A->logits->dtype));
  if (outer * inner == 0) return PD_OK;
  pd_tensor *xc, *lc;
  PD_TRY(pd_tensor_contiguous(A->logits, &xc));
  pd_status s = pd_tensor_contiguous(A->label, &lc);
  if (s != PD_OK) { pd_tensor_release(xc); return s; }
  int rc = NN->ce_softmax((int)xc->dtype, pd_tensor_data(xc), pd_tensor_data(lc), (int)lc->dtype, A->soft_label,
                          A->ignore_index, pd_tensor_data(out[0]), pd_tensor_data(out[1]), outer, n, inner);
  pd_tensor_release(xc);
  pd_tensor_release(lc);
  return pd_cu_status(rc, op);
}
static pd_status gpu_ce_grad(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_cross_entropy_with_softmax_grad_args *A = (const pd_cross_entropy_with_softmax_grad_args *)args;
  const char *op = "cross_entropy_with_softmax_grad";
  NEED(ce_softmax_grad, op);
  int64_t outer, n, inner;
  PD_TRY(ce_dims(op, A->softmax, A->axis, &outer, &n, &inner));
  PD_TRY(check_label(op, A->label, A->soft_label, A->softmax->dtype));
  if (outer * inner == 0 || n == 0) return PD_OK;
  pd_tensor *in[4] = {A->label, A->softmax, A->dloss, A->dsoftmax}, *c[4] = {NULL, NULL, NULL, NULL};
  pd_status s = PD_OK;
  for (int i = 0; i < 4 && s == PD_OK; i++) s = contig(in[i], &c[i]);
  int rc = 0;
  if (s == PD_OK)
    rc = NN->ce_softmax_grad((int)c[1]->dtype, pd_tensor_data(c[0]), (int)c[0]->dtype, A->soft_label,
                             A->ignore_index, pd_tensor_data(c[1]), pd_tensor_data(c[2]), DATA(c[3]),
                             pd_tensor_data(out[0]), outer, n, inner);
  for (int i = 0; i < 4; i++) rel(c[i]);
  return s != PD_OK ? s : pd_cu_status(rc, op);
}

/* ---------------- layer_norm ---------------- */
static void ln_rows(const pd_tensor *x, int64_t axis, int64_t *R, int64_t *D) {
  *R = 1;
  *D = 1;
  for (int i = 0; i < x->ndim; i++) *(i < axis ? R : D) *= x->shape[i];
}
static pd_status gpu_layer_norm(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_layer_norm_args *a = (const pd_layer_norm_args *)args;
  NEED(layer_norm, "layer_norm");
  int64_t R, D;
  ln_rows(a->x, a->begin_norm_axis, &R, &D);
  pd_tensor *xc, *sc = NULL, *bc = NULL;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  pd_status s = contig(a->scale, &sc);
  if (s == PD_OK) s = contig(a->bias, &bc);
  int rc = 0;
  if (s == PD_OK)
    rc = NN->layer_norm((int)xc->dtype, R, D, pd_tensor_data(xc), DATA(sc), DATA(bc), pd_tensor_data(out[0]),
                        DATA(out[1]), DATA(out[2]), a->epsilon);
  rel(xc);
  rel(sc);
  rel(bc);
  return s != PD_OK ? s : pd_cu_status(rc, "layer_norm");
}
static pd_status gpu_layer_norm_grad(const void *args, pd_tensor **out, int n_out) {
  const pd_layer_norm_grad_args *a = (const pd_layer_norm_grad_args *)args;
  NEED(layer_norm_grad, "layer_norm_grad");
  int64_t R, D;
  ln_rows(a->x, a->begin_norm_axis, &R, &D);
  pd_tensor *in[7] = {a->x, a->scale, a->mean, a->variance, a->dout, a->dmean, a->dvariance};
  pd_tensor *c[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  pd_status s = PD_OK;
  for (int i = 0; i < 7 && s == PD_OK; i++) s = contig(in[i], &c[i]);
  int rc = 0;
  if (s == PD_OK)
    rc = NN->layer_norm_grad((int)c[0]->dtype, R, D, DATA(c[0]), DATA(c[1]), DATA(c[2]), DATA(c[3]), DATA(c[4]),
                             DATA(out[0]), n_out > 1 ? DATA(out[1]) : NULL, n_out > 2 ? DATA(out[2]) : NULL,
                             a->epsilon, DATA(c[5]), DATA(c[6]));
  for (int i = 0; i < 7; i++) rel(c[i]);
  return s != PD_OK ? s : pd_cu_status(rc, "layer_norm_grad");
}

/* ---------------- batch_norm ---------------- */
static int is_nhwc(const char *f) { return f && (!strcmp(f, "NHWC") || !strcmp(f, "NLC") || !strcmp(f, "NDHWC")); }
static pd_status bn_geom(const char *op, const pd_tensor *x, const char *fmt, int64_t *A, int64_t *C, int64_t *B) {
  if (x->ndim < 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x with >= 2 dims, received %d", op, x->ndim);
  int64_t sp = 1;
  if (is_nhwc(fmt) && x->ndim > 2) {
    for (int i = 1; i < x->ndim - 1; i++) sp *= x->shape[i];
    *C = x->shape[x->ndim - 1];
    *A = x->shape[0] * sp;
    *B = 1;
  } else {
    for (int i = 2; i < x->ndim; i++) sp *= x->shape[i];
    *C = x->shape[1];
    *A = x->shape[0];
    *B = sp;
  }
  return PD_OK;
}
static pd_status gpu_batch_norm(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_batch_norm_args *a = (const pd_batch_norm_args *)args;
  NEED(batch_norm, "batch_norm");
  int64_t A = 0, C = 0, B = 1;
  PD_TRY(bn_geom("batch_norm", a->x, a->data_layout, &A, &C, &B));
  if (!pd_tensor_is_contiguous(a->mean) || !pd_tensor_is_contiguous(a->variance))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[batch_norm] running mean/variance must be contiguous");
  pd_tensor *xc, *sc = NULL, *bc = NULL;
  PD_TRY(pd_tensor_contiguous(a->x, &xc));
  pd_status s = contig(a->scale, &sc);
  if (s == PD_OK) s = contig(a->bias, &bc);
  const int train = !a->is_test && !a->use_global_stats;
  int rc = 0;
  if (s == PD_OK)
    rc = NN->batch_norm((int)xc->dtype, A, C, B, pd_tensor_data(xc), pd_tensor_data(a->mean),
                        pd_tensor_data(a->variance), DATA(sc), DATA(bc), pd_tensor_data(out[0]), DATA(out[1]),
                        DATA(out[2]), train, a->momentum, a->epsilon);
  if (s == PD_OK && rc == 0 && train) {
    pd_tensor_bump_version(a->mean);
    pd_tensor_bump_version(a->variance);
  }
  rel(xc);
  rel(sc);
  rel(bc);
  return s != PD_OK ? s : pd_cu_status(rc, "batch_norm");
}
static pd_status gpu_batch_norm_grad(const void *args, pd_tensor **out, int n_out) {
  const pd_batch_norm_grad_args *a = (const pd_batch_norm_grad_args *)args;
  NEED(batch_norm_grad, "batch_norm_grad");
  int64_t A = 0, C = 0, B = 1;
  PD_TRY(bn_geom("batch_norm_grad", a->x, a->data_layout, &A, &C, &B));
  pd_tensor *in[7] = {a->x, a->scale, a->saved_mean, a->saved_invstd, a->dout, a->dsaved_mean, a->dsaved_invstd};
  pd_tensor *c[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  pd_status s = PD_OK;
  for (int i = 0; i < 7 && s == PD_OK; i++) s = contig(in[i], &c[i]);
  int rc = 0;
  if (s == PD_OK)
    rc = NN->batch_norm_grad((int)c[0]->dtype, A, C, B, DATA(c[0]), DATA(c[1]), DATA(c[2]), DATA(c[3]), DATA(c[4]),
                             DATA(out[0]), n_out > 1 ? DATA(out[1]) : NULL, n_out > 2 ? DATA(out[2]) : NULL,
                             n_out > 3 ? DATA(out[3]) : NULL, n_out > 4 ? DATA(out[4]) : NULL,
                             a->use_global_stats, DATA(c[5]), DATA(c[6]));
  for (int i = 0; i < 7; i++) rel(c[i]);
  return s != PD_OK ? s : pd_cu_status(rc, "batch_norm_grad");
}

/* TF32 policy for float32 GEMMs (Paddle's FLAGS_allow_tf32_cublas); returns the previous value,
 * -1 when no CUDA library is loaded. For the lead's flag wiring. */
int pd_gpu_nn_set_allow_tf32(int allow) {
  if (!pd_cuda || !pd_cuda->nn || !pd_cuda->nn->set_allow_tf32) return -1;
  return pd_cuda->nn->set_allow_tf32(allow);
}

#define BIT PD_DT_BIT
void pd_gpu_register_nn(void) {
  if (!pd_cuda || !pd_cuda->nn || !pd_cuda->nn->gemm || !pd_cuda->nn->reduce) return; /* built without them */
  const unsigned floats = PD_DT_FLOATS, f32_64 = BIT(PD_FLOAT32) | BIT(PD_FLOAT64);
  const unsigned reals = PD_DT_REALS, all = PD_DT_REALS | BIT(PD_BOOL);
  pd_gpu_register_mask("matmul", floats, gpu_matmul);
  pd_gpu_register_mask("dot", reals, gpu_dot);
  pd_gpu_register_mask("sum", all, gpu_sum);
  pd_gpu_register_mask("mean", floats, gpu_mean);
  pd_gpu_register_mask("prod", reals, gpu_prod);
  pd_gpu_register_mask("max", reals, gpu_max);
  pd_gpu_register_mask("min", reals, gpu_min);
  pd_gpu_register_mask("amax", reals, gpu_amax);
  pd_gpu_register_mask("amin", reals, gpu_amin);
  pd_gpu_register_mask("all", all, gpu_all);
  pd_gpu_register_mask("any", all, gpu_any);
  pd_gpu_register_mask("logsumexp", floats, gpu_logsumexp);
  pd_gpu_register_mask("var", floats, gpu_var);
  pd_gpu_register_mask("std", floats, gpu_std);
  pd_gpu_register_mask("frobenius_norm", floats, gpu_frobenius_norm);
  pd_gpu_register_mask("p_norm", floats, gpu_p_norm);
  pd_gpu_register_mask("argmax", reals, gpu_argmax);
  pd_gpu_register_mask("argmin", reals, gpu_argmin);
  pd_gpu_register_mask("scale_numel", floats, gpu_scale_numel);
  pd_gpu_register_mask("cumsum", reals, gpu_cumsum);
  pd_gpu_register_mask("cumprod", reals, gpu_cumprod);
  pd_gpu_register_mask("softmax", floats, gpu_softmax);
  pd_gpu_register_mask("log_softmax", floats, gpu_log_softmax);
  pd_gpu_register_mask("cross_entropy_with_softmax", f32_64, gpu_ce);
  pd_gpu_register_mask("cross_entropy_with_softmax_grad", f32_64, gpu_ce_grad);
  pd_gpu_register_mask("layer_norm", f32_64, gpu_layer_norm);
  pd_gpu_register_mask("layer_norm_grad", f32_64, gpu_layer_norm_grad);
  pd_gpu_register_mask("batch_norm", f32_64, gpu_batch_norm);
  pd_gpu_register_mask("batch_norm_grad", f32_64, gpu_batch_norm_grad);
}
