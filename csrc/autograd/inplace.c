/* Autograd for whole-tensor in-place writes (Tensor._copy_, used by the in-place methods such
 * as exp_, add_, clip_): the destination's history is replaced by a node whose gradient goes to
 * the source (summed over broadcast dims, cast back to the source's dtype); a constant source
 * (zero_, fill_) leaves a node that gives the old history zeros. Any dtype (Paddle's integer
 * gradients). Writes into a leaf
 * that requires grad, and recorded writes through views, are refused with a clear error rather
 * than giving wrong gradients. */
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status apply_copy(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  pd_tensor *src;
  PD_TRY(pd_node_saved(n, 0, &src)); /* shape/dtype only */
  if (!(n->edges[0].node || n->edges[0].leaf)) return PD_OK;
  pd_tensor *g = gout[0], *c = NULL;
  if (g->dtype != src->dtype) {
    pd_cast_args ca = {g, (int)src->dtype};
    PD_TRY(pd_bw_run1(PD_OP_CAST, &ca, &c));
    g = c;
  }
  pd_status s = pd_bw_unbroadcast(g, src, &gin[0]);
  pd_tensor_release(c);
  return s;
}

static pd_status apply_fill(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  (void)gout;
  pd_tensor *old;
  PD_TRY(pd_node_saved(n, 0, &old)); /* shape/dtype only */
  if (!(n->edges[0].node || n->edges[0].leaf)) return PD_OK;
  return pd_bw_zeros_like(old, &gin[0]);
}

pd_status pd_autograd_record_copy(pd_tensor *dst, pd_tensor *src) {
  if (!pd_grad_enabled()) return PD_OK;
  int need = pd_requires_grad(src) || pd_requires_grad(dst);
  if (!need) return PD_OK;
  int dst_leaf = !(dst->autograd && dst->autograd->node);
  if (pd_requires_grad(dst) && dst_leaf)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET,
                        "[inplace] a leaf tensor that requires grad (stop_gradient=False) cannot be "
                        "modified in place; use the out-of-place op, or modify it under "
                        "paddle.no_grad()");
  if (dst->is_view)
    return pd_set_error(PD_ERR_UNIMPLEMENTED,
                        "[inplace] writing in place through a view (slice, reshape ...) while "
                        "gradients are recorded is not supported yet; build the result out of "
                        "place (e.g. paddle.where, paddle.concat) or write under paddle.no_grad()");
  if (!pd_requires_grad(src)) {
    /* overwritten by a constant (zero_, fill_): as in Paddle, the tensor stays in the graph and
     * its earlier history gets a zero gradient */
    pd_node *z = pd_node_new("inplace_fill", -1, 1, 1);
    if (!z) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    pd_node_set_edge(z, 0, dst); /* the history being overwritten */
    pd_status s = pd_node_save(z, 0, dst, 1, -1);
    z->apply = apply_fill;
    if (s == PD_OK) s = pd_node_attach_outputs_any(z, &dst, 1);
    pd_node_release(z);
    return s;
  }
  pd_node *n = pd_node_new("inplace_copy", -1, 1, 1);
  if (!n) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_node_set_edge(n, 0, src);
  pd_status s = pd_node_save(n, 0, src, 1, -1);
  n->apply = apply_copy;
  if (s == PD_OK) s = pd_node_attach_outputs_any(n, &dst, 1);
  pd_node_release(n);
  return s;
}
