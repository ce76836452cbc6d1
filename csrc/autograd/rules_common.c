/* Hand-written backward rules of the common nn ops (ops/common.yaml) whose grad calls need
 * attributes the formula language cannot pass (float[] scales) or compute (fold's output size
 * from x's shape). Each runs forward ops, so create_graph records them. */
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

/* interp: interp_grad(x, grad, ...) with the forward's attributes (saved: x's shape). */
pd_status pd_bw_interp(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_interp_args *a = (const pd_interp_args *)n->args;
  pd_tensor *x;
  PD_TRY(pd_node_saved(n, 0, &x));
  pd_interp_grad_args g = {.dout = gout[0], .input_shape = {x->shape, x->ndim}, .out_size = a->out_size, .scale = a->scale,
                           .mode = a->mode, .align_corners = a->align_corners,
                           .align_mode = a->align_mode, .data_format = a->data_format};
  return pd_bw_run1(PD_OP_INTERP_GRAD, &g, &gin[0]);
}

/* interp_grad is linear in dout: its adjoint is interp. */
pd_status pd_bw_interp_grad(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_interp_grad_args *a = (const pd_interp_grad_args *)n->args;
  pd_interp_args f = {.x = gout[0], .out_size = a->out_size, .scale = a->scale, .mode = a->mode,
                      .align_corners = a->align_corners, .align_mode = a->align_mode,
                      .data_format = a->data_format};
  return pd_bw_run1(PD_OP_INTERP, &f, &gin[0]);
}

/* unfold: fold(grad) back to x's spatial size (saved: x's shape). */
pd_status pd_bw_unfold(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_unfold_args *a = (const pd_unfold_args *)n->args;
  pd_tensor *x;
  PD_TRY(pd_node_saved(n, 0, &x));
  int64_t hw[2] = {x->shape[2], x->shape[3]};
  pd_fold_args f = {.x = gout[0], .output_sizes = {hw, 2}, .kernel_sizes = a->kernel_sizes,
                    .strides = a->strides, .paddings = a->paddings, .dilations = a->dilations};
  return pd_bw_run1(PD_OP_FOLD, &f, &gin[0]);
}
