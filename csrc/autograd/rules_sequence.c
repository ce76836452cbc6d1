/* Backward rules of the sequence (LoD) ops (ops/sequence.yaml). A rule needs the offsets of the
 * forward input: eagerly they are the saved `<x>_lod` tensor; in a program that argument was left
 * empty (the executor bound the value's LoD) and the rule runs sequence_lod(x), which the
 * recorder appends to the program, so the gradient ops get the offsets as a variable. Linear ops
 * (context windows, reverse, reshape, expand_as) differentiate again; the fused *_grad ops are
 * nondiff, so a create_graph backward through them is refused with a clear error. */
#include <stdlib.h>
#include "helpers_reduce.h"
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

static pd_status no_double(const char *op) {
  if (pd_grad_enabled())
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] higher-order gradients (create_graph=True) are not supported", op);
  return PD_OK;
}

/* the offsets of x: the saved tensor, else sequence_lod(x) (a program's implicit LoD) */
static pd_status seq_lod(pd_tensor *x, pd_tensor *saved, int64_t level, pd_tensor **out) {
  if (saved) {
    pd_tensor_retain(saved);
    *out = saved;
    return PD_OK;
  }
  pd_sequence_lod_args a = {.x = x, .x_lod = NULL, .x_lod_level = level};
  return pd_bw_run1(PD_OP_SEQUENCE_LOD, &a, out);
}

/* saved tensors 0..k (NULL where none was saved) */
static pd_status saved(pd_node *n, int k, pd_tensor **t) {
  *t = NULL;
  if (k >= n->n_saved || !n->saved[k]) return PD_OK;
  return pd_node_saved(n, k, t);
}

/* runs a multi-output op, keeping output i in gin[edge[i]] where that edge needs a gradient */
static pd_status run_into(pd_node *n, int op, const void *args, pd_tensor **gin, const int *edge, int cnt) {
  pd_tensor *buf[4], **o = buf;
  int no = -4;
  PD_TRY(pd_op_run(op, args, &o, &no));
  for (int i = 0; i < no; i++) {
    if (i < cnt && edge[i] >= 0 && NEEDS(n, edge[i])) gin[edge[i]] = o[i];
    else pd_tensor_release(o[i]);
  }
  if (o != buf) free(o);
  return PD_OK;
}

pd_status pd_bw_sequence_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  PD_TRY(no_double("sequence_pool"));
  const pd_sequence_pool_args *a = (const pd_sequence_pool_args *)n->args;
  pd_tensor *x, *xl, *mi, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(saved(n, 2, &mi));
  PD_TRY(seq_lod(x, xl, -1, &lod));
  pd_sequence_pool_grad_args g = {.x = x, .x_lod = lod, .max_index = mi, .dout = gout[0], .pooltype = a->pooltype};
  pd_status st = pd_bw_run1(PD_OP_SEQUENCE_POOL_GRAD, &g, &gin[0]);
  pd_tensor_release(lod);
  return st;
}

pd_status pd_bw_sequence_softmax(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  PD_TRY(no_double("sequence_softmax"));
  pd_tensor *x, *xl, *out, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(saved(n, 2, &out));
  PD_TRY(seq_lod(x, xl, -1, &lod));
  pd_sequence_softmax_grad_args g = {.out = out, .x_lod = lod, .dout = gout[0]};
  pd_status st = pd_bw_run1(PD_OP_SEQUENCE_SOFTMAX_GRAD, &g, &gin[0]);
  pd_tensor_release(lod);
  return st;
}

/* sequence_conv = sequence_context(x) @ filter: both gradients from matmuls and the context
 * windows' transpose (all differentiable) */
pd_status pd_bw_sequence_conv(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 2)) return PD_OK;
  const pd_sequence_conv_args *a = (const pd_sequence_conv_args *)n->args;
  pd_tensor *x, *xl, *f, *lod, *col = NULL, *dcol = NULL;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(saved(n, 2, &f));
  PD_TRY(seq_lod(x, xl, -1, &lod));
  pd_status st = PD_OK;
  if (NEEDS(n, 2)) {
    pd_sequence_context_args c = {.x = x, .x_lod = lod, .context_length = a->context_length,
                                  .context_start = a->context_start};
    st = pd_bw_run1(PD_OP_SEQUENCE_CONTEXT, &c, &col);
    pd_matmul_args m = {.x = col, .y = gout[0], .transpose_x = 1, .transpose_y = 0};
    if (st == PD_OK) st = pd_bw_run1(PD_OP_MATMUL, &m, &gin[2]);
  }
  if (st == PD_OK && NEEDS(n, 0)) {
    pd_matmul_args m = {.x = gout[0], .y = f, .transpose_x = 0, .transpose_y = 1};
    st = pd_bw_run1(PD_OP_MATMUL, &m, &dcol);
    pd_sequence_context_grad_args g = {.x = x, .x_lod = lod, .dout = dcol, .context_length = a->context_length,
                                       .context_start = a->context_start};
    if (st == PD_OK) st = pd_bw_run1(PD_OP_SEQUENCE_CONTEXT_GRAD, &g, &gin[0]);
  }
  pd_tensor_release(lod);
  pd_tensor_release(col);
  pd_tensor_release(dcol);
  return st;
}

pd_status pd_bw_sequence_context(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_sequence_context_args *a = (const pd_sequence_context_args *)n->args;
  pd_tensor *x, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &lod));
  pd_sequence_context_grad_args g = {.x = x, .x_lod = lod, .dout = gout[0], .context_length = a->context_length,
                                     .context_start = a->context_start};
  return pd_bw_run1(PD_OP_SEQUENCE_CONTEXT_GRAD, &g, &gin[0]);
}

/* the transpose of a linear map: its gradient is the map itself (x only gives the shape) */
pd_status pd_bw_sequence_context_grad(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_sequence_context_grad_args *a = (const pd_sequence_context_grad_args *)n->args;
  pd_tensor *x, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &lod));
  if (NEEDS(n, 0)) PD_TRY(pd_bw_zeros_like(x, &gin[0]));
  if (!NEEDS(n, 2)) return PD_OK;
  pd_sequence_context_args c = {.x = gout[0], .x_lod = lod, .context_length = a->context_length,
                                .context_start = a->context_start};
  return pd_bw_run1(PD_OP_SEQUENCE_CONTEXT, &c, &gin[2]);
}

pd_status pd_bw_sequence_concat(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_sequence_concat_args *a = (const pd_sequence_concat_args *)n->args;
  (void)a;
  int k = n->n_edges / 2, any = 0;
  for (int i = 0; i < k; i++) any |= NEEDS(n, i);
  if (!any) return PD_OK;
  PD_TRY(no_double("sequence_concat"));
  if (n->n_saved != k)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[sequence_concat] the backward needs every input's offsets");
  pd_tensor **lods = (pd_tensor **)calloc((size_t)(k ? k : 1), sizeof(pd_tensor *));
  if (!lods) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_status st = PD_OK;
  for (int i = 0; st == PD_OK && i < k; i++) st = saved(n, i, &lods[i]);
  pd_tensor **o = NULL;
  int no = 0;
  pd_sequence_concat_grad_args g = {.x_lod = {lods, k}, .dout = gout[0]};
  if (st == PD_OK) st = pd_op_run(PD_OP_SEQUENCE_CONCAT_GRAD, &g, &o, &no);
  for (int i = 0; st == PD_OK && i < no; i++) {
    if (i < k && NEEDS(n, i)) gin[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  free(o);
  free(lods);
  return st;
}

pd_status pd_bw_sequence_slice(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  PD_TRY(no_double("sequence_slice"));
  pd_tensor *x, *xl, *off, *len, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(saved(n, 2, &off));
  PD_TRY(saved(n, 3, &len));
  PD_TRY(seq_lod(x, xl, -1, &lod));
  pd_sequence_slice_grad_args g = {.x = x, .x_lod = lod, .offset = off, .length = len, .dout = gout[0]};
  pd_status st = pd_bw_run1(PD_OP_SEQUENCE_SLICE_GRAD, &g, &gin[0]);
  pd_tensor_release(lod);
  return st;
}

pd_status pd_bw_sequence_expand(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_sequence_expand_args *a = (const pd_sequence_expand_args *)n->args;
  pd_tensor *x, *y, *xl, *yl, *xo = NULL, *yo = NULL;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &y));
  PD_TRY(saved(n, 2, &xl));
  PD_TRY(saved(n, 3, &yl));
  if (NEEDS(n, 1)) PD_TRY(pd_bw_zeros_like(y, &gin[1]));
  if (!NEEDS(n, 0)) return PD_OK;
  PD_TRY(no_double("sequence_expand"));
  pd_status st = seq_lod(x, xl, -1, &xo);
  if (st == PD_OK) st = seq_lod(y, yl, a->y_lod_level, &yo);
  pd_sequence_expand_grad_args g = {.x = x, .x_lod = xo, .y_lod = yo, .dout = gout[0]};
  if (st == PD_OK) st = pd_bw_run1(PD_OP_SEQUENCE_EXPAND_GRAD, &g, &gin[0]);
  pd_tensor_release(xo);
  pd_tensor_release(yo);
  return st;
}

/* each row of x repeated over a sequence of y: its gradient sums the sequence */
pd_status pd_bw_sequence_expand_as(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  pd_tensor *x, *y, *yl, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &y));
  PD_TRY(saved(n, 2, &yl));
  if (NEEDS(n, 1)) PD_TRY(pd_bw_zeros_like(y, &gin[1]));
  if (!NEEDS(n, 0)) return PD_OK;
  PD_TRY(seq_lod(y, yl, -1, &lod));
  pd_sequence_pool_args p = {.x = gout[0], .x_lod = lod, .pooltype = "SUM", .pad_value = 0.0, .is_test = 0};
  static const int edge[2] = {0, -1};
  pd_status st = run_into(n, PD_OP_SEQUENCE_POOL, &p, gin, edge, 2);
  pd_tensor_release(lod);
  return st;
}

pd_status pd_bw_sequence_pad(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 2)) return PD_OK;
  PD_TRY(no_double("sequence_pad"));
  pd_tensor *x, *xl, *pv, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(saved(n, 2, &pv));
  PD_TRY(seq_lod(x, xl, -1, &lod));
  pd_sequence_pad_grad_args g = {.x = x, .x_lod = lod, .pad_value = pv, .dout = gout[0]};
  static const int edge[2] = {0, 2};
  pd_status st = run_into(n, PD_OP_SEQUENCE_PAD_GRAD, &g, gin, edge, 2);
  pd_tensor_release(lod);
  return st;
}

pd_status pd_bw_sequence_unpad(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  PD_TRY(no_double("sequence_unpad"));
  pd_tensor *x, *len;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &len));
  pd_sequence_unpad_grad_args g = {.x = x, .length = len, .dout = gout[0]};
  return pd_bw_run1(PD_OP_SEQUENCE_UNPAD_GRAD, &g, &gin[0]);
}

/* the gradient regrouped back into rows of x's width: sequence_reshape again, over the output's
 * offsets (a plain reshape would lose the known width in a program) */
pd_status pd_bw_sequence_reshape(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x, *ol;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &ol));
  if (!ol || x->ndim != 2 || x->shape[1] < 1) return pd_bw_reshape_to(gout[0], x, &gin[0]);
  pd_sequence_reshape_args r = {.x = gout[0], .x_lod = ol, .new_dim = x->shape[1]};
  static const int edge[2] = {0, -1};
  return run_into(n, PD_OP_SEQUENCE_RESHAPE, &r, gin, edge, 2);
}

pd_status pd_bw_sequence_scatter(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  pd_tensor *ids, *il, *upd, *lod, *g = NULL;
  PD_TRY(saved(n, 0, &ids));
  PD_TRY(saved(n, 1, &il));
  PD_TRY(saved(n, 2, &upd));
  if (NEEDS(n, 0)) {
    pd_tensor_retain(gout[0]);
    gin[0] = gout[0];
  }
  if (!NEEDS(n, 2)) return PD_OK;
  PD_TRY(no_double("sequence_scatter"));
  PD_TRY(seq_lod(ids, il, -1, &lod));
  pd_sequence_scatter_grad_args a = {.ids = ids, .ids_lod = lod, .dout = gout[0]};
  pd_status st = pd_bw_run1(PD_OP_SEQUENCE_SCATTER_GRAD, &a, &g);
  if (st == PD_OK) st = pd_bw_reshape_to(g, upd, &gin[2]);
  pd_tensor_release(g);
  pd_tensor_release(lod);
  return st;
}

pd_status pd_bw_sequence_reverse(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x, *xl, *lod;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(seq_lod(x, xl, -1, &lod));
  pd_sequence_reverse_args r = {.x = gout[0], .x_lod = lod};
  pd_status st = pd_bw_run1(PD_OP_SEQUENCE_REVERSE, &r, &gin[0]);
  pd_tensor_release(lod);
  return st;
}

pd_status pd_bw_row_conv(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 2)) return PD_OK;
  PD_TRY(no_double("row_conv"));
  pd_tensor *x, *xl, *f, *lod = NULL;
  PD_TRY(saved(n, 0, &x));
  PD_TRY(saved(n, 1, &xl));
  PD_TRY(saved(n, 2, &f));
  if (x->ndim == 2) PD_TRY(seq_lod(x, xl, -1, &lod)); /* [B, T, D] inputs have no LoD */
  pd_row_conv_grad_args g = {.x = x, .x_lod = lod, .filter = f, .dout = gout[0]};
  static const int edge[2] = {0, 2};
  pd_status st = run_into(n, PD_OP_ROW_CONV_GRAD, &g, gin, edge, 2);
  pd_tensor_release(lod);
  return st;
}
