/* Shape/dtype rules of the fused loss ops (ops/loss.yaml): cross_entropy_with_softmax takes
 * logits and hard labels (int32/int64, the logits' shape with 1 at `axis`) or soft labels (the
 * logits' shape and dtype); the loss has the logits' shape with 1 at `axis`. */
#include <stdio.h>
#include "generated/pd_ops_gen.h"

static void shape_str(const pd_tensor *t, char *buf, size_t n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, n - k, "[");
  for (int i = 0; i < t->ndim && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)t->shape[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* Checks label against logits; *ax gets the normalised axis. */
static pd_status check_label(const char *op, const pd_tensor *x, const pd_tensor *label, int soft,
                             int64_t axis, int *ax) {
  char sx[160], sl[160];
  if (x->ndim < 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected logits with at least 1 dim, received 0-D", op);
  PD_TRY(pd_norm_axis(op, axis, x->ndim, ax));
  shape_str(x, sx, sizeof sx);
  shape_str(label, sl, sizeof sl);
  if (soft) {
    if (label->dtype != x->dtype)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected soft labels with the logits' dtype %s, received %s", op,
                          pd_dtype_name(x->dtype), pd_dtype_name(label->dtype));
  } else if (label->dtype != PD_INT64 && label->dtype != PD_INT32) {
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected hard labels of dtype int32 or int64, received %s", op,
                        pd_dtype_name(label->dtype));
  }
  int ok = label->ndim == x->ndim;
  for (int i = 0; ok && i < x->ndim; i++)
    ok = label->shape[i] == ((i == *ax && !soft) ? 1 : x->shape[i]);
  if (!ok)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected %s labels of shape %s with %s at axis %d, received label "
                        "shape %s", op, soft ? "soft" : "hard", sx, soft ? "the same size" : "1",
                        *ax, sl);
  return PD_OK;
}

pd_status pd_infer_cross_entropy_with_softmax(const void *args, pd_meta_list *out) {
  const pd_cross_entropy_with_softmax_args *a = (const pd_cross_entropy_with_softmax_args *)args;
  int ax;
  PD_TRY(check_label("cross_entropy_with_softmax", a->logits, a->label, a->soft_label, a->axis, &ax));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->logits);
  pd_meta_like(&m[1], a->logits);
  m[1].shape[ax] = 1;
  return PD_OK;
}

pd_status pd_infer_cross_entropy_with_softmax_grad(const void *args, pd_meta_list *out) {
  const pd_cross_entropy_with_softmax_grad_args *a = (const pd_cross_entropy_with_softmax_grad_args *)args;
  const char *op = "cross_entropy_with_softmax_grad";
  int ax;
  PD_TRY(check_label(op, a->softmax, a->label, a->soft_label, a->axis, &ax));
  PD_TRY(pd_check_same_dtype(op, "softmax", a->softmax, "dloss", a->dloss));
  PD_TRY(pd_check_same_dtype(op, "softmax", a->softmax, "dsoftmax", a->dsoftmax));
  int ok = a->dloss->ndim == a->softmax->ndim && a->dsoftmax->ndim == a->softmax->ndim;
  for (int i = 0; ok && i < a->softmax->ndim; i++)
    ok = a->dloss->shape[i] == (i == ax ? 1 : a->softmax->shape[i]) &&
         a->dsoftmax->shape[i] == a->softmax->shape[i];
  if (!ok)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected dloss with softmax's shape and 1 at axis %d and dsoftmax with "
                        "softmax's shape", op, ax);
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(m, a->softmax);
  return PD_OK;
}
