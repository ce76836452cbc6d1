/* Hand-written backward rules of the vision ops (ops/vision.yaml): roi_align / psroi_pool /
 * roi_pool run their grad ops (the first two are linear, so their grad ops have formula rules
 * back to the forward op and differentiate again); deformable_conv runs deformable_conv_grad
 * and yolo_loss runs yolo_loss_grad (both flagged nondiff: no second order). Boxes, counts and
 * gt inputs get no gradient, as in Paddle. */
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_roi_align(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_roi_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_psroi_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_deformable_conv(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_yolo_loss(pd_node *n, pd_tensor **gout, pd_tensor **gin);

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

/* edges: x, boxes, boxes_num; saved: x (shape), boxes, boxes_num */
pd_status pd_bw_roi_align(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_roi_align_args *a = (const pd_roi_align_args *)n->args;
  pd_tensor *x, *boxes, *num;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &boxes));
  PD_TRY(pd_node_saved(n, 2, &num));
  pd_roi_align_grad_args g = {boxes, num, gout[0], {x->shape, x->ndim}, a->pooled_height, a->pooled_width,
                              a->spatial_scale, a->sampling_ratio, a->aligned};
  return pd_bw_run1(PD_OP_ROI_ALIGN_GRAD, &g, &gin[0]);
}

/* edges: x, boxes, boxes_num; saved: x (shape), boxes_num, arg_max (output 1) */
pd_status pd_bw_roi_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  pd_tensor *x, *num, *am;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &num));
  PD_TRY(pd_node_saved(n, 2, &am));
  pd_roi_pool_grad_args g = {num, am, gout[0], {x->shape, x->ndim}};
  return pd_bw_run1(PD_OP_ROI_POOL_GRAD, &g, &gin[0]);
}

/* edges: x, boxes, boxes_num; saved: x (shape), boxes, boxes_num */
pd_status pd_bw_psroi_pool(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_psroi_pool_args *a = (const pd_psroi_pool_args *)n->args;
  pd_tensor *x, *boxes, *num;
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &boxes));
  PD_TRY(pd_node_saved(n, 2, &num));
  pd_psroi_pool_grad_args g = {boxes, num, gout[0], {x->shape, x->ndim}, a->pooled_height, a->pooled_width,
                               a->output_channels, a->spatial_scale};
  return pd_bw_run1(PD_OP_PSROI_POOL_GRAD, &g, &gin[0]);
}

/* edges: x, offset, filter, mask; saved: x, offset, filter, mask (NULL for DCN v1) */
pd_status pd_bw_deformable_conv(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_deformable_conv_args *a = (const pd_deformable_conv_args *)n->args;
  pd_tensor *x, *off, *f, *mask = n->saved[3];
  if (!gout[0]) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &off));
  PD_TRY(pd_node_saved(n, 2, &f));
  if (mask) PD_TRY(pd_node_saved(n, 3, &mask));
  pd_deformable_conv_grad_args g = {x,           off,          f,
                                    mask,        gout[0],      a->strides,
                                    a->paddings, a->dilations, a->deformable_groups,
                                    a->groups,   a->im2col_step};
  pd_tensor **o = NULL;
  int no = 0;
  PD_TRY(pd_op_run(PD_OP_DEFORMABLE_CONV_GRAD, &g, &o, &no));
  for (int i = 0; i < no; i++) {
    if (i < 4 && NEEDS(n, i) && (i < 3 || mask)) gin[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  free(o);
  return PD_OK;
}

/* edges: x, gt_box, gt_label, gt_score; saved: the same four (gt_score may be NULL) */
pd_status pd_bw_yolo_loss(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_yolo_loss_args *a = (const pd_yolo_loss_args *)n->args;
  pd_tensor *x, *box, *label, *score = n->saved[3];
  if (!gout[0] || !NEEDS(n, 0)) return PD_OK;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &box));
  PD_TRY(pd_node_saved(n, 2, &label));
  if (score) PD_TRY(pd_node_saved(n, 3, &score));
  pd_yolo_loss_grad_args g = {x,           box,          label,        score,         gout[0],
                              a->anchors,  a->anchor_mask, a->class_num, a->ignore_thresh, a->downsample_ratio,
                              a->use_label_smooth, a->scale_x_y};
  return pd_bw_run1(PD_OP_YOLO_LOSS_GRAD, &g, &gin[0]);
}
