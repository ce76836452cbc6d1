/* Hand-written backward rules of the movement, index and creation ops (ops/manip.yaml,
 * index.yaml, creation.yaml): ops with Tensor[] inputs or outputs, and rules whose attributes
 * are computed (inverse permutations, negated shifts, section sizes). Every rule runs forward
 * ops, so create_graph records them. Saved tensors are in the order of the op's `save:`. */
#include <stdlib.h>
#include "pd_autograd.h"
#include "helpers_reduce.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

static pd_status reshape_to(pd_tensor *g, const pd_tensor *like, pd_tensor **out) {
  pd_reshape_args r = {.x = g, .shape = {like->shape, like->ndim}};
  if (like->ndim == 0) { /* a 0-D input gets a 0-D gradient at either API level */
    pd_scalar_keep_0d++;
    pd_status s = pd_bw_run1(PD_OP_RESHAPE, &r, out);
    pd_scalar_keep_0d--;
    return s;
  }
  if (pd_bw_has_unknown(like)) return pd_bw_reshape_to(g, like, out);
  return pd_bw_run1(PD_OP_RESHAPE, &r, out);
}

/* Runs an op with a list output: *outs (malloc'd) of *n tensors. */
static pd_status run_list(int op, const void *args, pd_tensor ***outs, int *n) {
  *outs = NULL;
  *n = 0;
  return pd_op_run(op, args, outs, n);
}

static void hand_out(pd_node *n, pd_tensor **outs, int n_outs, pd_tensor **gin) {
  for (int i = 0; i < n_outs; i++) {
    if (i < n->n_edges && NEEDS(n, i)) gin[i] = outs[i];
    else pd_tensor_release(outs[i]);
  }
  free(outs);
}

/* reshape, squeeze, unsqueeze, flatten: the gradient reshaped to x's shape. */
pd_status pd_bw_reshape_like(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x;
  PD_TRY(pd_node_saved(n, 0, &x));
  return reshape_to(gout[0], x, &gin[0]);
}

pd_status pd_bw_transpose(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_transpose_args *a = (const pd_transpose_args *)n->args;
  int nd = gout[0]->ndim;
  int64_t inv[PD_MAX_DIMS];
  for (int i = 0; i < nd && i < a->perm.n; i++) {
    int p;
    PD_TRY(pd_norm_axis("transpose backward", a->perm.data[i], nd, &p));
    inv[p] = i;
  }
  pd_transpose_args t = {.x = gout[0], .perm = {inv, nd}};
  return pd_bw_run1(PD_OP_TRANSPOSE, &t, &gin[0]);
}

pd_status pd_bw_roll(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_roll_args *a = (const pd_roll_args *)n->args;
  int64_t *neg = (int64_t *)malloc(sizeof(int64_t) * (size_t)(a->shifts.n + 1));
  if (!neg) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < a->shifts.n; i++) neg[i] = -a->shifts.data[i];
  pd_roll_args r = {.x = gout[0], .shifts = {neg, a->shifts.n}, .axis = a->axis};
  pd_status st = pd_bw_run1(PD_OP_ROLL, &r, &gin[0]);
  free(neg);
  return st;
}

/* slice: the gradient written into zeros of x's shape (slice_scatter with unit strides). */
pd_status pd_bw_slice(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_slice_args *a = (const pd_slice_args *)n->args;
  pd_tensor *x, *z;
  PD_TRY(pd_node_saved(n, 0, &x));
  int64_t *ones = (int64_t *)malloc(sizeof(int64_t) * (size_t)(a->axes.n + 1));
  if (!ones) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < a->axes.n; i++) ones[i] = 1;
  pd_status st = pd_bw_zeros_like(x, &z);
  if (st == PD_OK) {
    pd_slice_scatter_args s = {.x = z, .value = gout[0], .axes = a->axes, .starts = a->starts,
                               .ends = a->ends, .strides = {ones, a->axes.n}};
    st = pd_bw_run1(PD_OP_SLICE_SCATTER, &s, &gin[0]);
    pd_tensor_release(z);
  }
  free(ones);
  return st;
}

/* concat: split the gradient by the inputs' sizes along axis (saved: the inputs' shapes). */
pd_status pd_bw_concat(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_concat_args *a = (const pd_concat_args *)n->args;
  int m = n->n_edges, ax;
  int64_t *sec = (int64_t *)malloc(sizeof(int64_t) * (size_t)(m + 1));
  if (!sec) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_status st = pd_norm_axis("concat backward", a->axis, gout[0]->ndim, &ax);
  for (int i = 0; st == PD_OK && i < m; i++) {
    pd_tensor *x;
    st = pd_node_saved(n, i, &x);
    if (st == PD_OK) sec[i] = x->shape[ax];
  }
  if (st == PD_OK) {
    pd_split_args s = {.x = gout[0], .sections = {sec, m}, .axis = ax};
    pd_tensor **outs;
    int no;
    st = run_list(PD_OP_SPLIT, &s, &outs, &no);
    if (st == PD_OK) hand_out(n, outs, no, gin);
  }
  free(sec);
  return st;
}

/* stack: unbind the gradient along axis. */
pd_status pd_bw_stack(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_stack_args *a = (const pd_stack_args *)n->args;
  pd_unbind_args u = {.x = gout[0], .axis = a->axis};
  pd_tensor **outs;
  int no;
  PD_TRY(run_list(PD_OP_UNBIND, &u, &outs, &no));
  hand_out(n, outs, no, gin);
  return PD_OK;
}

/* split: concat of the outputs' gradients (zeros where an output got none). */
pd_status pd_bw_split(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_split_args *a = (const pd_split_args *)n->args;
  int ax;
  PD_TRY(pd_norm_axis("split backward", a->axis, gout[0]->ndim, &ax));
  pd_concat_args c = {.x = {gout, n->n_out}, .axis = ax};
  return pd_bw_run1(PD_OP_CONCAT, &c, &gin[0]);
}

/* unbind: stack of the outputs' gradients. */
pd_status pd_bw_unbind(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_unbind_args *a = (const pd_unbind_args *)n->args;
  pd_stack_args s = {.x = {gout, n->n_out}, .axis = a->axis};
  return pd_bw_run1(PD_OP_STACK, &s, &gin[0]);
}

/* tile: per repeated axis d, view the gradient as [before, repeats, x_d * after] and sum the
 * repeats; then reshape to x's shape. */
pd_status pd_bw_tile(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x;
  PD_TRY(pd_node_saved(n, 0, &x));
  pd_tensor *g = gout[0];
  pd_tensor_retain(g);
  int nd = g->ndim, off = nd - x->ndim;
  int64_t cur[PD_MAX_DIMS];
  for (int d = 0; d < nd; d++) cur[d] = g->shape[d];
  pd_status st = PD_OK;
  const pd_int_array *rt = &((const pd_tile_args *)n->args)->repeat_times;
  for (int d = 0; st == PD_OK && d < nd; d++) {
    int64_t xd = d < off ? 1 : x->shape[d - off];
    int64_t sh3[3], one = 1;
    if (pd_bw_has_unknown(g) || pd_bw_has_unknown(x)) {
      /* a program with unknown dims: the repeats come from the attribute, and the one unknown
       * extent of [before, repeats, x_d * after] is left to reshape (-1) */
      int64_t ri = d - (nd - rt->n), rep = ri >= 0 ? rt->data[ri] : 1;
      if (rep == 1) continue;
      int64_t before = 1, rest = xd;
      int ub = 0, ur = xd < 0;
      for (int e = 0; e < d; e++) cur[e] < 0 ? (void)(ub = 1) : (void)(before *= cur[e]);
      for (int e = d + 1; e < nd; e++) cur[e] < 0 ? (void)(ur = 1) : (void)(rest *= cur[e]);
      if (ub && ur) {
        st = pd_set_error(PD_ERR_UNIMPLEMENTED, "[tile] the gradient in a program with unknown dims both "
                          "before and after a repeated axis (%d) is not implemented", d);
        break;
      }
      sh3[0] = ub ? -1 : before;
      sh3[1] = rep;
      sh3[2] = ur ? -1 : rest;
    } else {
      if (cur[d] == xd || xd == 0) continue;
      int64_t before = 1, after = 1;
      for (int e = 0; e < d; e++) before *= cur[e];
      for (int e = d + 1; e < nd; e++) after *= cur[e];
      sh3[0] = before;
      sh3[1] = cur[d] / xd;
      sh3[2] = xd * after;
    }
    pd_reshape_args r = {.x = g, .shape = {sh3, 3}};
    pd_tensor *t, *s;
    st = pd_bw_run1(PD_OP_RESHAPE, &r, &t);
    if (st != PD_OK) break;
    pd_sum_args sa = {.x = t, .axis = {&one, 1}, .keepdim = 0, .dtype = -1};
    st = pd_bw_run1(PD_OP_SUM, &sa, &s);
    pd_tensor_release(t);
    if (st != PD_OK) break;
    pd_tensor_release(g);
    g = s;
    cur[d] = xd;
  }
  if (st == PD_OK) st = reshape_to(g, x, &gin[0]);
  pd_tensor_release(g);
  return st;
}

/* gather / index_select: the gradient scatter-added into zeros along axis (axis moved to the
 * front for scatter, which works on dim 0). Saved: x (shape), index. */
pd_status pd_bw_gather(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  int64_t axis = n->op == PD_OP_GATHER ? ((const pd_gather_args *)n->args)->axis
                                       : ((const pd_index_select_args *)n->args)->axis;
  pd_tensor *x, *index, *idx = NULL, *gt = NULL, *z = NULL, *zs = NULL, *r = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &index));
  int ax;
  PD_TRY(pd_norm_axis("gather backward", axis, x->ndim, &ax));
  int64_t perm[PD_MAX_DIMS], zshape[PD_MAX_DIMS], flat = index->numel;
  for (int d = 0; d < x->ndim; d++) perm[d] = d;
  perm[0] = ax;
  perm[ax] = 0;
  for (int d = 0; d < x->ndim; d++) zshape[d] = x->shape[perm[d]];
  pd_status st;
  pd_reshape_args ri = {.x = index, .shape = {&flat, 1}};
  st = pd_bw_run1(PD_OP_RESHAPE, &ri, &idx);
  pd_transpose_args tg = {.x = gout[0], .perm = {perm, x->ndim}};
  if (st == PD_OK) st = ax ? pd_bw_run1(PD_OP_TRANSPOSE, &tg, &gt) : (pd_tensor_retain(gout[0]), gt = gout[0], PD_OK);
  pd_full_args fz = {.shape = {zshape, x->ndim}, .value = pd_scalar_float(0.0), .dtype = (int)gout[0]->dtype};
  if (st == PD_OK && pd_bw_has_unknown(x)) {
    /* a program with unknown dims: zeros shaped like x at run time, then transposed */
    pd_tensor *z0 = NULL;
    pd_full_like_args fl = {.x = x, .value = pd_scalar_float(0.0), .dtype = (int)gout[0]->dtype};
    st = pd_bw_run1(PD_OP_FULL_LIKE, &fl, &z0);
    pd_transpose_args tz = {.x = z0, .perm = {perm, x->ndim}};
    if (st == PD_OK) st = ax ? pd_bw_run1(PD_OP_TRANSPOSE, &tz, &z) : (pd_tensor_retain(z0), z = z0, PD_OK);
    pd_tensor_release(z0);
  } else if (st == PD_OK) {
    st = pd_bw_run1(PD_OP_FULL, &fz, &z);
  }
  pd_scatter_args sc = {.x = z, .index = idx, .updates = gt, .overwrite = 0};
  if (st == PD_OK) st = pd_bw_run1(PD_OP_SCATTER, &sc, &zs);
  pd_transpose_args tb = {.x = zs, .perm = {perm, x->ndim}};
  if (st == PD_OK) st = ax ? pd_bw_run1(PD_OP_TRANSPOSE, &tb, &r) : (pd_tensor_retain(zs), r = zs, PD_OK);
  if (st == PD_OK) gin[0] = r;
  pd_tensor_release(idx);
  pd_tensor_release(gt);
  pd_tensor_release(z);
  pd_tensor_release(zs);
  return st;
}

/* masked_select: the gradient placed at the mask's true positions (nonzero + scatter_nd_add
 * into zeros of the broadcast shape), then summed back to x's shape. Saved: x (shape), mask. */
pd_status pd_bw_masked_select(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  pd_tensor *x, *mask, *mb = NULL, *idx = NULL, *z = NULL, *s = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &mask));
  int nd = x->ndim > mask->ndim ? x->ndim : mask->ndim;
  int64_t bs[PD_MAX_DIMS];
  for (int d = 0; d < nd; d++) {
    int dx = d - (nd - x->ndim), dm = d - (nd - mask->ndim);
    int64_t sx = dx >= 0 ? x->shape[dx] : 1, sm = dm >= 0 ? mask->shape[dm] : 1;
    bs[d] = sx == 1 ? sm : sx;
  }
  pd_status st;
  int unknown = pd_bw_has_unknown(x) || pd_bw_has_unknown(mask);
  if (unknown && x->ndim >= mask->ndim) {
    /* a program with unknown dims: the mask expanded to x's run-time shape (x is the broadcast
     * shape when the mask broadcasts to it, the usual x[mask]) */
    pd_expand_as_args e = {.x = mask, .y = x};
    st = pd_bw_run1(PD_OP_EXPAND_AS, &e, &mb);
  } else {
    pd_expand_args e = {.x = mask, .shape = {bs, nd}};
    st = pd_bw_run1(PD_OP_EXPAND, &e, &mb);
  }
  pd_nonzero_args nz = {.x = mb};
  if (st == PD_OK) st = pd_bw_run1(PD_OP_NONZERO, &nz, &idx);
  pd_full_args fz = {.shape = {bs, nd}, .value = pd_scalar_float(0.0), .dtype = (int)gout[0]->dtype};
  pd_full_like_args fl = {.x = mb, .value = pd_scalar_float(0.0), .dtype = (int)gout[0]->dtype};
  if (st == PD_OK) st = unknown ? pd_bw_run1(PD_OP_FULL_LIKE, &fl, &z) : pd_bw_run1(PD_OP_FULL, &fz, &z);
  pd_scatter_nd_add_args sa = {.x = z, .index = idx, .updates = gout[0]};
  if (st == PD_OK) st = pd_bw_run1(PD_OP_SCATTER_ND_ADD, &sa, &s);
  if (st == PD_OK) st = pd_bw_unbroadcast(s, x, &gin[0]);
  pd_tensor_release(mb);
  pd_tensor_release(idx);
  pd_tensor_release(z);
  pd_tensor_release(s);
  return st;
}

/* diag: vector -> matrix takes the diagonal of the gradient; matrix -> vector builds the
 * square diag(grad, offset), keeps the part inside x's shape and writes it into zeros. */
pd_status pd_bw_diag(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_diag_args *a = (const pd_diag_args *)n->args;
  pd_tensor *x;
  PD_TRY(pd_node_saved(n, 0, &x));
  pd_diag_args d = {.x = gout[0], .offset = a->offset, .padding_value = pd_scalar_int(0)};
  if (x->ndim != 2) return pd_bw_run1(PD_OP_DIAG, &d, &gin[0]);
  pd_tensor *m = NULL, *ms = NULL, *z = NULL;
  static const int64_t axes[2] = {0, 1}, zero2[2] = {0, 0}, one2[2] = {1, 1};
  pd_status st = pd_bw_run1(PD_OP_DIAG, &d, &m);
  pd_slice_args sl = {.x = m, .axes = {axes, 2}, .starts = {zero2, 2}, .ends = {x->shape, 2}};
  if (st == PD_OK) st = pd_bw_run1(PD_OP_SLICE, &sl, &ms);
  if (st == PD_OK) st = pd_bw_zeros_like(x, &z);
  if (st == PD_OK) {
    pd_slice_scatter_args ss = {.x = z, .value = ms, .axes = {axes, 2}, .starts = {zero2, 2},
                                .ends = {ms->shape, 2}, .strides = {one2, 2}};
    st = pd_bw_run1(PD_OP_SLICE_SCATTER, &ss, &gin[0]);
  }
  pd_tensor_release(m);
  pd_tensor_release(ms);
  pd_tensor_release(z);
  return st;
}

/* meshgrid: input i's gradient is output i's gradient summed over every other axis. */
pd_status pd_bw_meshgrid(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  int m = n->n_edges;
  for (int i = 0; i < m; i++) {
    if (!NEEDS(n, i)) continue;
    pd_tensor *x, *s;
    PD_TRY(pd_node_saved(n, i, &x));
    if (m == 1) {
      PD_TRY(reshape_to(gout[0], x, &gin[0]));
      continue;
    }
    int64_t axes[PD_MAX_DIMS];
    int na = 0;
    for (int d = 0; d < gout[i]->ndim; d++)
      if (d != i) axes[na++] = d;
    pd_sum_args sa = {.x = gout[i], .axis = {axes, na}, .keepdim = 0, .dtype = -1};
    PD_TRY(pd_bw_run1(PD_OP_SUM, &sa, &s));
    pd_status st = reshape_to(s, x, &gin[i]);
    pd_tensor_release(s);
    PD_TRY(st);
  }
  return PD_OK;
}
