/* Shape/dtype rules of the nn extra ops (ops/nn_extra.yaml): grid_sample and its fused grad
 * (x [N, C, *in] with 2 or 3 spatial dims, grid [N, *out, ns] of x's dtype), warpctc and its
 * grad (logits [T, B, C], padded labels [B, L], int64 lengths [B]) and gather_tree (ids and
 * parents [T, B, beam] of one int dtype). Value checks (lengths, labels) run in the kernels. */
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "infer_meta_nn_extra.h"

#define BAD(...) pd_set_error(PD_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static pd_status need_float(const char *op, const char *name, const pd_tensor *t) {
  if (t->dtype != PD_FLOAT32 && t->dtype != PD_FLOAT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be float32 or float64, received %s", op,
                        name, pd_dtype_name(t->dtype));
  return PD_OK;
}

/* ---- grid_sample ---- */
pd_status pd_grid_sample_check(const char *op, const pd_tensor *x, const pd_tensor *grid, const char *mode,
                               const char *padding_mode, pd_grid_geom *g) {
  PD_TRY(need_float(op, "x", x));
  PD_TRY(pd_check_same_dtype(op, "x", x, "grid", grid));
  if (!mode || (strcmp(mode, "bilinear") && strcmp(mode, "nearest")))
    return BAD("[%s] expected mode 'bilinear' or 'nearest', received '%s'", op, mode ? mode : "(null)");
  g->mode = strcmp(mode, "nearest") == 0;
  if (!padding_mode) padding_mode = "(null)";
  if (strcmp(padding_mode, "zeros") == 0) g->pad = 0;
  else if (strcmp(padding_mode, "border") == 0) g->pad = 1;
  else if (strcmp(padding_mode, "reflection") == 0) g->pad = 2;
  else
    return BAD("[%s] expected padding_mode 'zeros', 'border' or 'reflection', received '%s'", op,
               padding_mode);
  if (x->ndim != 4 && x->ndim != 5)
    return BAD("[%s] expected x to be 4-D [N, C, H, W] or 5-D [N, C, D, H, W], received %d-D", op, x->ndim);
  int ns = x->ndim - 2;
  if (grid->ndim != x->ndim || grid->shape[x->ndim - 1] != ns || grid->shape[0] != x->shape[0])
    return BAD("[%s] expected grid of shape [%lld, %s, %d] for a %d-D x, received a %d-D grid with "
               "last dim %lld and batch %lld", op, (long long)x->shape[0],
               ns == 2 ? "H_out, W_out" : "D_out, H_out, W_out", ns, x->ndim, grid->ndim,
               (long long)(grid->ndim ? grid->shape[grid->ndim - 1] : 0),
               (long long)(grid->ndim ? grid->shape[0] : 0));
  g->ns = ns;
  g->n = x->shape[0];
  g->c = x->shape[1];
  g->in_sp = g->out_sp = 1;
  for (int d = 0; d < ns; d++) {
    g->in[d] = x->shape[2 + d];
    g->out[d] = grid->shape[1 + d];
    g->in_sp *= g->in[d];
    g->out_sp *= g->out[d];
    if (g->in[d] <= 0) return BAD("[%s] expected non-empty spatial dims of x", op);
  }
  g->out_shape[0] = g->n;
  g->out_shape[1] = g->c;
  for (int d = 0; d < ns; d++) g->out_shape[2 + d] = g->out[d];
  return PD_OK;
}

pd_status pd_infer_grid_sample(const void *args, pd_meta_list *out) {
  const pd_grid_sample_args *a = (const pd_grid_sample_args *)args;
  pd_grid_geom g;
  PD_TRY(pd_grid_sample_check("grid_sample", a->x, a->grid, a->mode, a->padding_mode, &g));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_set(m, a->x->dtype, a->x->ndim, g.out_shape);
  return PD_OK;
}

pd_status pd_infer_grid_sample_grad(const void *args, pd_meta_list *out) {
  const pd_grid_sample_grad_args *a = (const pd_grid_sample_grad_args *)args;
  pd_grid_geom g;
  PD_TRY(pd_grid_sample_check("grid_sample_grad", a->x, a->grid, a->mode, a->padding_mode, &g));
  PD_TRY(pd_check_same_dtype("grid_sample_grad", "x", a->x, "dout", a->dout));
  if (a->dout->ndim != a->x->ndim ||
      memcmp(a->dout->shape, g.out_shape, sizeof(int64_t) * (size_t)a->x->ndim))
    return BAD("[grid_sample_grad] dout's shape does not match the output of grid_sample");
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->x);
  pd_meta_like(&m[1], a->grid);
  return PD_OK;
}

/* ---- warpctc ---- */
static pd_status ctc_check(const char *op, const pd_tensor *logits, const pd_tensor *label,
                           const pd_tensor *ll, const pd_tensor *lab_len, int64_t blank) {
  PD_TRY(need_float(op, "logits", logits));
  if (logits->ndim != 3)
    return BAD("[%s] expected logits of shape [max_logit_length, batch_size, num_classes + 1], "
               "received %d-D", op, logits->ndim);
  int64_t B = logits->shape[1], C = logits->shape[2];
  if (label->dtype != PD_INT32 && label->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected labels of dtype int32 or int64, received %s", op,
                        pd_dtype_name(label->dtype));
  if (label->ndim != 2 || label->shape[0] != B)
    return BAD("[%s] expected padded labels of shape [batch_size=%lld, max_label_length], received "
               "a %d-D tensor", op, (long long)B, label->ndim);
  const pd_tensor *lens[2] = {ll, lab_len};
  const char *names[2] = {"input_lengths", "label_lengths"};
  for (int i = 0; i < 2; i++) {
    if (lens[i]->dtype != PD_INT64 && lens[i]->dtype != PD_INT32)
      return pd_set_error(PD_ERR_TYPE, "[%s] expected %s of dtype int64, received %s", op, names[i],
                          pd_dtype_name(lens[i]->dtype));
    if (lens[i]->ndim != 1 || lens[i]->shape[0] != B)
      return BAD("[%s] expected %s of shape [batch_size=%lld]", op, names[i], (long long)B);
  }
  if (C <= 0) return BAD("[%s] expected at least one class in logits", op);
  if (blank < 0 || blank >= C)
    return BAD("[%s] expected blank in [0, %lld), received %lld", op, (long long)C, (long long)blank);
  return PD_OK;
}

pd_status pd_infer_warpctc(const void *args, pd_meta_list *out) {
  const pd_warpctc_args *a = (const pd_warpctc_args *)args;
  PD_TRY(ctc_check("warpctc", a->logits, a->label, a->logits_length, a->labels_length, a->blank));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t shp[2] = {a->logits->shape[1], 1};
  pd_meta_set(m, a->logits->dtype, 2, shp);
  return PD_OK;
}

pd_status pd_infer_warpctc_grad(const void *args, pd_meta_list *out) {
  const pd_warpctc_grad_args *a = (const pd_warpctc_grad_args *)args;
  PD_TRY(ctc_check("warpctc_grad", a->logits, a->label, a->logits_length, a->labels_length, a->blank));
  PD_TRY(pd_check_same_dtype("warpctc_grad", "logits", a->logits, "dloss", a->dloss));
  if (a->dloss->numel != a->logits->shape[1])
    return BAD("[warpctc_grad] expected dloss with one value per sequence (%lld), received %lld",
               (long long)a->logits->shape[1], (long long)a->dloss->numel);
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(m, a->logits);
  return PD_OK;
}

/* ---- gather_tree ---- */
pd_status pd_infer_gather_tree(const void *args, pd_meta_list *out) {
  const pd_gather_tree_args *a = (const pd_gather_tree_args *)args;
  if (a->ids->dtype != PD_INT32 && a->ids->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[gather_tree] expected ids of dtype int32 or int64, received %s",
                        pd_dtype_name(a->ids->dtype));
  PD_TRY(pd_check_same_dtype("gather_tree", "ids", a->ids, "parents", a->parents));
  if (a->ids->ndim != 3)
    return BAD("[gather_tree] expected ids of shape [max_time, batch_size, beam_size], received %d-D",
               a->ids->ndim);
  if (a->parents->ndim != 3 || memcmp(a->ids->shape, a->parents->shape, 3 * sizeof(int64_t)))
    return BAD("[gather_tree] expected parents with the shape of ids");
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(m, a->ids);
  return PD_OK;
}
