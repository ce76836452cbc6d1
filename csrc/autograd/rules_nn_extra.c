/* Hand-written backward rules of the nn extra ops (ops/nn_extra.yaml): grid_sample runs its
 * fused grad op (dx and dgrid at once); warpctc runs warpctc_grad (alpha-beta again, scaled by
 * the loss gradient). The grad ops have no rules of their own, so a create_graph backward
 * through these ops is refused with a clear error instead of giving wrong higher orders. */
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

pd_status pd_bw_grid_sample(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 1)) return PD_OK;
  if (pd_grad_enabled())
    return pd_set_error(PD_ERR_UNIMPLEMENTED,
                        "[grid_sample] higher-order gradients (create_graph=True) are not supported");
  const pd_grid_sample_args *a = (const pd_grid_sample_args *)n->args;
  pd_tensor *x, *grid;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &grid));
  pd_grid_sample_grad_args g = {.x = x, .grid = grid, .dout = gout[0], .mode = a->mode,
                                .padding_mode = a->padding_mode, .align_corners = a->align_corners};
  pd_tensor *buf[4], **outs = buf;
  int no = -4;
  PD_TRY(pd_op_run(PD_OP_GRID_SAMPLE_GRAD, &g, &outs, &no));
  for (int i = 0; i < 2; i++) {
    if (NEEDS(n, i)) gin[i] = outs[i];
    else pd_tensor_release(outs[i]);
  }
  return PD_OK;
}

pd_status pd_bw_warpctc(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  if (pd_grad_enabled())
    return pd_set_error(PD_ERR_UNIMPLEMENTED,
                        "[warpctc] higher-order gradients (create_graph=True) are not supported");
  const pd_warpctc_args *a = (const pd_warpctc_args *)n->args;
  pd_tensor *t[4];
  for (int i = 0; i < 4; i++) PD_TRY(pd_node_saved(n, i, &t[i]));
  pd_warpctc_grad_args g = {.logits = t[0], .label = t[1], .logits_length = t[2], .labels_length = t[3],
                            .dloss = gout[0], .blank = a->blank, .norm_by_times = a->norm_by_times};
  return pd_bw_run1(PD_OP_WARPCTC_GRAD, &g, &gin[0]);
}
