/* Hand-written backward rules of ops/tensor_extra.yaml: tensor_unfold (the windows added back by
 * tensor_unfold_grad, which needs x's shape as int[]) and put_along_axis_mul_grad (the gradient
 * of put_along_axis_mul with respect to values). Both run forward ops, so create_graph records
 * them and higher orders follow. */
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)
#define REL(t) do { if (t) pd_tensor_release(t); (t) = NULL; } while (0)

/* csrc/kernels/cpu/tensor_extra_math.c: the most entries of indices that write one position */
pd_status pd_put_along_axis_max_repeat(const pd_tensor *x, pd_tensor *indices, int64_t axis, int64_t *most);

/* tensor_unfold: dX = tensor_unfold_grad(G, x.shape, axis, size, step). Saved: x (shape). */
pd_status pd_bw_tensor_unfold(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_tensor_unfold_args *a = (const pd_tensor_unfold_args *)n->args;
  pd_tensor *x;
  PD_TRY(pd_node_saved(n, 0, &x));
  pd_tensor_unfold_grad_args g = {.dout = gout[0], .x_shape = {x->shape, x->ndim}, .axis = a->axis,
                                  .size = a->size, .step = a->step};
  return pd_bw_run1(PD_OP_TENSOR_UNFOLD_GRAD, &g, &gin[0]);
}

/* put_along_axis_add(zeros_like(like), indices, h * conj(r), axis) */
static pd_status scatter_prod(pd_tensor *like, pd_tensor *indices, pd_tensor *h, pd_tensor *r, int64_t axis,
                              pd_tensor **out) {
  pd_tensor *rc = NULL, *hr = NULL, *z = NULL;
  pd_status s = pd_bw_conj(r, &rc);
  pd_multiply_args ma = {.x = h, .y = rc};
  if (s == PD_OK) s = pd_bw_run1(PD_OP_MULTIPLY, &ma, &hr);
  if (s == PD_OK) s = pd_bw_zeros_like(like, &z);
  pd_put_along_axis_add_args pa = {.x = z, .indices = indices, .values = hr, .axis = axis};
  if (s == PD_OK) s = pd_bw_run1(PD_OP_PUT_ALONG_AXIS_ADD, &pa, out);
  REL(rc);
  REL(hr);
  REL(z);
  return s;
}

/* pairs(x, idx, v, dout, h): the op put_along_axis_mul_pairs */
static pd_status pairs(pd_tensor *x, pd_tensor *idx, pd_tensor *v, pd_tensor *dout, pd_tensor *h, int64_t axis,
                       pd_tensor **out) {
  pd_put_along_axis_mul_pairs_args pa = {.x = x, .indices = idx, .values = v, .dout = dout, .h = h, .axis = axis};
  return pd_bw_run1(PD_OP_PUT_ALONG_AXIS_MUL_PAIRS, &pa, out);
}

/* put_along_axis_mul_grad: out[j] = dout[p] x[p] P[j] (P: product of the other values at p;
 * conjugated for complex). With cotangent H:
 *   d dout[p] = sum_{j -> p} H[j] x[p] P[j]   = scatter(H * op(x, idx, v, ones))
 *   d x[p]    = sum_{j -> p} H[j] dout[p] P[j] = scatter(H * op(ones, idx, v, dout))
 *   d v[k]    = sum over j != k at one p of H[j] dout[p] x[p] prod_{l != j, k} v[l]
 *             = put_along_axis_mul_pairs(x, idx, v, dout, H)
 * Saved: x, indices, values, dout. */
pd_status pd_bw_put_along_axis_mul_grad(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_put_along_axis_mul_grad_args *a = (const pd_put_along_axis_mul_grad_args *)n->args;
  pd_tensor *x, *idx, *v, *dout, *ones = NULL, *r = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &idx));
  PD_TRY(pd_node_saved(n, 2, &v));
  PD_TRY(pd_node_saved(n, 3, &dout));
  pd_status s = PD_OK;
  if (NEEDS(n, 2)) s = pairs(x, idx, v, dout, gout[0], a->axis, &gin[2]);
  if (s == PD_OK && NEEDS(n, 3)) {
    s = pd_bw_ones_like(dout, &ones);
    pd_put_along_axis_mul_grad_args ra = {.x = x, .indices = idx, .values = v, .dout = ones, .axis = a->axis};
    if (s == PD_OK) s = pd_bw_run1(PD_OP_PUT_ALONG_AXIS_MUL_GRAD, &ra, &r);
    if (s == PD_OK) s = scatter_prod(dout, idx, gout[0], r, a->axis, &gin[3]);
    REL(ones);
    REL(r);
  }
  if (s == PD_OK && NEEDS(n, 0)) {
    s = pd_bw_ones_like(x, &ones);
    pd_put_along_axis_mul_grad_args ra = {.x = ones, .indices = idx, .values = v, .dout = dout, .axis = a->axis};
    if (s == PD_OK) s = pd_bw_run1(PD_OP_PUT_ALONG_AXIS_MUL_GRAD, &ra, &r);
    if (s == PD_OK) s = scatter_prod(x, idx, gout[0], r, a->axis, &gin[0]);
    REL(ones);
    REL(r);
  }
  return s;
}

/* put_along_axis_mul_pairs(x, idx, v, dout, h) is linear in h, dout and x:
 *   d h     = pairs(x, idx, v, dout, C)                       (symmetric in j, k)
 *   d dout  = scatter(C * pairs(x, idx, v, ones, h))
 *   d x     = scatter(C * pairs(ones, idx, v, dout, h))
 *   d v     = triples of entries at one position: zero when no position is written more than
 *             twice, else NotImplementedError (a fourth derivative of put_along_axis_mul).
 * Saved: x, indices, values, dout, h. */
pd_status pd_bw_put_along_axis_mul_pairs(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_put_along_axis_mul_pairs_args *a = (const pd_put_along_axis_mul_pairs_args *)n->args;
  pd_tensor *x, *idx, *v, *dout, *h, *ones = NULL, *r = NULL;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &idx));
  PD_TRY(pd_node_saved(n, 2, &v));
  PD_TRY(pd_node_saved(n, 3, &dout));
  PD_TRY(pd_node_saved(n, 4, &h));
  pd_status s = PD_OK;
  if (NEEDS(n, 2)) {
    int64_t most = 0;
    if (!idx->storage) /* a static program's replay: the indices have no values yet */
      return pd_set_error(PD_ERR_UNIMPLEMENTED,
                          "[put_along_axis] the third derivative of reduce='mul' with respect to values "
                          "depends on the indices' values and is not available in a static program");
    s = pd_put_along_axis_max_repeat(x, idx, a->axis, &most);
    if (s == PD_OK && most > 2)
      return pd_set_error(PD_ERR_UNIMPLEMENTED,
                          "[put_along_axis] derivatives of reduce='mul' past the second with respect to values "
                          "are not implemented when indices write one position more than twice");
    if (s == PD_OK) s = pd_bw_zeros_like(v, &gin[2]);
  }
  if (s == PD_OK && NEEDS(n, 4)) s = pairs(x, idx, v, dout, gout[0], a->axis, &gin[4]);
  if (s == PD_OK && NEEDS(n, 3)) {
    s = pd_bw_ones_like(dout, &ones);
    if (s == PD_OK) s = pairs(x, idx, v, ones, h, a->axis, &r);
    if (s == PD_OK) s = scatter_prod(dout, idx, gout[0], r, a->axis, &gin[3]);
    REL(ones);
    REL(r);
  }
  if (s == PD_OK && NEEDS(n, 0)) {
    s = pd_bw_ones_like(x, &ones);
    if (s == PD_OK) s = pairs(ones, idx, v, dout, h, a->axis, &r);
    if (s == PD_OK) s = scatter_prod(x, idx, gout[0], r, a->axis, &gin[0]);
    REL(ones);
    REL(r);
  }
  return s;
}
