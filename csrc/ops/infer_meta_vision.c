/* Shape rules of the detection / vision ops (ops/vision.yaml): RoI pooling family, deformable
 * convolution, yolo_box / yolo_loss, nms (data-dependent length: the kernel makes its output),
 * box_coder and prior_box. Wrong dtypes are TypeErrors, wrong shapes/attributes ValueErrors;
 * checks that need the data (boxes_num summing to the box count) live in the kernels. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "../kernels/cpu/vision_util.h"

__attribute__((format(printf, 2, 3))) static pd_status bad(const char *op, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, msg);
}

static pd_status need_float(const char *op, const char *nm, const pd_tensor *t) {
  if (t->dtype != PD_FLOAT32 && t->dtype != PD_FLOAT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be float32 or float64, received %s", op, nm,
                        pd_dtype_name(t->dtype));
  return PD_OK;
}
static pd_status need_int(const char *op, const char *nm, const pd_tensor *t) {
  if (t->dtype != PD_INT32 && t->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be int32 or int64, received %s", op, nm,
                        pd_dtype_name(t->dtype));
  return PD_OK;
}
static pd_status need_ndim(const char *op, const char *nm, const pd_tensor *t, int nd) {
  if (t->ndim != nd) {
    char m[160];
    snprintf(m, sizeof m, "expected %s to be a %d-D tensor, received %d-D", nm, nd, t->ndim);
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, m);
  }
  return PD_OK;
}

/* x [N, C, H, W] (x_shape when x is NULL), boxes [R, 4], boxes_num [N] */
static pd_status rois_check(const char *op, const pd_tensor *x, const int64_t *xs, const pd_tensor *boxes,
                            const pd_tensor *boxes_num, int64_t ph, int64_t pw) {
  if (x) {
    PD_TRY(need_ndim(op, "x", x, 4));
    PD_TRY(need_float(op, "x", x));
  }
  PD_TRY(need_ndim(op, "boxes", boxes, 2));
  PD_TRY(need_float(op, "boxes", boxes));
  if (boxes->shape[1] != 4) return bad(op, "expected boxes of shape [num_boxes, 4], received last dim %lld",
                                       (long long)boxes->shape[1]);
  PD_TRY(need_ndim(op, "boxes_num", boxes_num, 1));
  PD_TRY(need_int(op, "boxes_num", boxes_num));
  if (boxes_num->shape[0] != xs[0])
    return bad(op, "expected boxes_num to have one entry per image (batch size %lld), received %lld",
               (long long)xs[0], (long long)boxes_num->shape[0]);
  if (ph < 1 || pw < 1)
    return bad(op, "expected output_size >= 1, received (%lld, %lld)", (long long)ph, (long long)pw);
  return PD_OK;
}

static pd_status xshape_check(const char *op, pd_int_array s) {
  if (s.n != 4) return bad(op, "expected x_shape with 4 values, received %lld", (long long)s.n);
  for (int i = 0; i < 4; i++)
    if (s.data[i] < 0) return bad(op, "x_shape values must be >= 0, received %lld at %d", (long long)s.data[i], i);
  return PD_OK;
}

static void set4(pd_meta *m, pd_dtype dt, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t s[4] = {a, b, c, d};
  pd_meta_set(m, dt, 4, s);
}

pd_status pd_infer_roi_align(const void *args, pd_meta_list *out) {
  const pd_roi_align_args *a = (const pd_roi_align_args *)args;
  PD_TRY(rois_check("roi_align", a->x, a->x->shape, a->boxes, a->boxes_num, a->pooled_height, a->pooled_width));
  set4(pd_meta_list_resize(out, 1), a->x->dtype, a->boxes->shape[0], a->x->shape[1], a->pooled_height,
       a->pooled_width);
  return PD_OK;
}

pd_status pd_infer_roi_align_grad(const void *args, pd_meta_list *out) {
  const pd_roi_align_grad_args *a = (const pd_roi_align_grad_args *)args;
  PD_TRY(xshape_check("roi_align_grad", a->x_shape));
  PD_TRY(rois_check("roi_align_grad", NULL, a->x_shape.data, a->boxes, a->boxes_num, a->pooled_height,
                    a->pooled_width));
  PD_TRY(need_float("roi_align_grad", "out_grad", a->out_grad));
  const int64_t *s = a->out_grad->shape;
  if (a->out_grad->ndim != 4 || s[0] != a->boxes->shape[0] || s[1] != a->x_shape.data[1] ||
      s[2] != a->pooled_height || s[3] != a->pooled_width)
    return bad("roi_align_grad", "expected out_grad of shape [num_boxes, C, pooled_height, pooled_width] "
               "(%lld boxes, %lld channels)", (long long)a->boxes->shape[0], (long long)a->x_shape.data[1]);
  pd_meta_set(pd_meta_list_resize(out, 1), a->out_grad->dtype, 4, a->x_shape.data);
  return PD_OK;
}

pd_status pd_infer_roi_pool(const void *args, pd_meta_list *out) {
  const pd_roi_pool_args *a = (const pd_roi_pool_args *)args;
  PD_TRY(rois_check("roi_pool", a->x, a->x->shape, a->boxes, a->boxes_num, a->pooled_height, a->pooled_width));
  pd_meta *m = pd_meta_list_resize(out, 2);
  set4(&m[0], a->x->dtype, a->boxes->shape[0], a->x->shape[1], a->pooled_height, a->pooled_width);
  set4(&m[1], PD_INT64, a->boxes->shape[0], a->x->shape[1], a->pooled_height, a->pooled_width);
  return PD_OK;
}

pd_status pd_infer_roi_pool_grad(const void *args, pd_meta_list *out) {
  const pd_roi_pool_grad_args *a = (const pd_roi_pool_grad_args *)args;
  const char *op = "roi_pool_grad";
  PD_TRY(xshape_check(op, a->x_shape));
  PD_TRY(need_ndim(op, "boxes_num", a->boxes_num, 1));
  PD_TRY(need_int(op, "boxes_num", a->boxes_num));
  PD_TRY(need_float(op, "out_grad", a->out_grad));
  if (a->arg_max->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected arg_max to be int64, received %s", op,
                        pd_dtype_name(a->arg_max->dtype));
  if (a->arg_max->ndim != 4 || a->out_grad->ndim != 4 ||
      memcmp(a->arg_max->shape, a->out_grad->shape, 4 * sizeof(int64_t)) || a->out_grad->shape[1] != a->x_shape.data[1])
    return bad(op, "expected arg_max and out_grad of the same shape [num_boxes, C=%lld, ph, pw]",
               (long long)a->x_shape.data[1]);
  if (a->boxes_num->shape[0] != a->x_shape.data[0])
    return bad(op, "expected boxes_num with %lld entries, received %lld", (long long)a->x_shape.data[0],
               (long long)a->boxes_num->shape[0]);
  pd_meta_set(pd_meta_list_resize(out, 1), a->out_grad->dtype, 4, a->x_shape.data);
  return PD_OK;
}

static pd_status psroi_check(const char *op, int64_t C, int64_t ph, int64_t pw, int64_t oc) {
  if (oc < 1) return bad(op, "expected output_channels >= 1, received %lld", (long long)oc);
  if (C != oc * ph * pw)
    return bad(op, "expected the input channels (%lld) to equal output_channels * pooled_height * "
               "pooled_width (%lld)", (long long)C, (long long)(oc * ph * pw));
  return PD_OK;
}

pd_status pd_infer_psroi_pool(const void *args, pd_meta_list *out) {
  const pd_psroi_pool_args *a = (const pd_psroi_pool_args *)args;
  PD_TRY(rois_check("psroi_pool", a->x, a->x->shape, a->boxes, a->boxes_num, a->pooled_height, a->pooled_width));
  PD_TRY(psroi_check("psroi_pool", a->x->shape[1], a->pooled_height, a->pooled_width, a->output_channels));
  set4(pd_meta_list_resize(out, 1), a->x->dtype, a->boxes->shape[0], a->output_channels, a->pooled_height,
       a->pooled_width);
  return PD_OK;
}

pd_status pd_infer_psroi_pool_grad(const void *args, pd_meta_list *out) {
  const pd_psroi_pool_grad_args *a = (const pd_psroi_pool_grad_args *)args;
  const char *op = "psroi_pool_grad";
  PD_TRY(xshape_check(op, a->x_shape));
  PD_TRY(rois_check(op, NULL, a->x_shape.data, a->boxes, a->boxes_num, a->pooled_height, a->pooled_width));
  PD_TRY(psroi_check(op, a->x_shape.data[1], a->pooled_height, a->pooled_width, a->output_channels));
  PD_TRY(need_float(op, "out_grad", a->out_grad));
  const int64_t *s = a->out_grad->shape;
  if (a->out_grad->ndim != 4 || s[0] != a->boxes->shape[0] || s[1] != a->output_channels ||
      s[2] != a->pooled_height || s[3] != a->pooled_width)
    return bad(op, "expected out_grad of shape [num_boxes=%lld, output_channels=%lld, ph, pw]",
               (long long)a->boxes->shape[0], (long long)a->output_channels);
  pd_meta_set(pd_meta_list_resize(out, 1), a->out_grad->dtype, 4, a->x_shape.data);
  return PD_OK;
}

/* ---- deformable convolution ---- */
static pd_status pair(const char *op, const char *nm, pd_int_array v, int64_t lo, int64_t *o) {
  if (v.n != 2) {
    char m[128];
    snprintf(m, sizeof m, "expected %s with 2 values, received %lld", nm, (long long)v.n);
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, m);
  }
  for (int i = 0; i < 2; i++) {
    if (v.data[i] < lo) {
      char m[128];
      snprintf(m, sizeof m, "expected %s values >= %lld, received %lld", nm, (long long)lo, (long long)v.data[i]);
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, m);
    }
    o[i] = v.data[i];
  }
  return PD_OK;
}

/* Checks x/offset/filter/mask and gives the output spatial size. */
static pd_status dcn_check(const char *op, const pd_tensor *x, const pd_tensor *offset, const pd_tensor *filter,
                           const pd_tensor *mask, pd_int_array strides, pd_int_array paddings, pd_int_array dilations,
                           int64_t dg, int64_t groups, int64_t step, int64_t *ho, int64_t *wo) {
  int64_t s[2], p[2], d[2];
  PD_TRY(need_ndim(op, "x", x, 4));
  PD_TRY(need_float(op, "x", x));
  PD_TRY(need_ndim(op, "offset", offset, 4));
  PD_TRY(need_ndim(op, "filter", filter, 4));
  PD_TRY(pd_check_same_dtype(op, "x", x, "offset", offset));
  PD_TRY(pd_check_same_dtype(op, "x", x, "filter", filter));
  PD_TRY(pair(op, "strides", strides, 1, s));
  PD_TRY(pair(op, "paddings", paddings, 0, p));
  PD_TRY(pair(op, "dilations", dilations, 1, d));
  if (groups < 1 || dg < 1 || step < 1)
    return bad(op, "expected groups, deformable_groups and im2col_step >= 1, received groups=%lld, "
               "deformable_groups=%lld", (long long)groups, (long long)dg);
  int64_t C = x->shape[1], M = filter->shape[0], kh = filter->shape[2], kw = filter->shape[3];
  if (C % groups || M % groups)
    return bad(op, "expected in (%lld) and out (%lld) channels divisible by groups", (long long)C, (long long)M);
  if (filter->shape[1] * groups != C)
    return bad(op, "expected filter of shape [M, C / groups, kh, kw] with C / groups = %lld, received %lld",
               (long long)(C / groups), (long long)filter->shape[1]);
  if (C % dg)
    return bad(op, "expected the channels (%lld) divisible by deformable_groups (%lld)", (long long)C, (long long)dg);
  *ho = (x->shape[2] + 2 * p[0] - (d[0] * (kh - 1) + 1)) / s[0] + 1;
  *wo = (x->shape[3] + 2 * p[1] - (d[1] * (kw - 1) + 1)) / s[1] + 1;
  if (*ho < 1 || *wo < 1 || kh < 1 || kw < 1)
    return bad(op, "the output size (%lld, %lld) is not positive: input too small for the filter", (long long)*ho,
               (long long)*wo);
  const int64_t *os = offset->shape;
  if (os[0] != x->shape[0] || os[1] != dg * 2 * kh * kw || os[2] != *ho || os[3] != *wo)
    return bad(op, "expected offset of shape [N, deformable_groups * 2 * kh * kw, H_out, W_out] = [%lld, %lld, "
               "%lld, %lld]", (long long)x->shape[0], (long long)(dg * 2 * kh * kw), (long long)*ho, (long long)*wo);
  if (mask) {
    PD_TRY(need_ndim(op, "mask", mask, 4));
    PD_TRY(pd_check_same_dtype(op, "x", x, "mask", mask));
    const int64_t *ms = mask->shape;
    if (ms[0] != x->shape[0] || ms[1] != dg * kh * kw || ms[2] != *ho || ms[3] != *wo)
      return bad(op, "expected mask of shape [N, deformable_groups * kh * kw, H_out, W_out] = [%lld, %lld, %lld, "
                 "%lld]", (long long)x->shape[0], (long long)(dg * kh * kw), (long long)*ho, (long long)*wo);
  }
  return PD_OK;
}

pd_status pd_infer_deformable_conv(const void *args, pd_meta_list *out) {
  const pd_deformable_conv_args *a = (const pd_deformable_conv_args *)args;
  int64_t ho, wo;
  PD_TRY(dcn_check("deformable_conv", a->x, a->offset, a->filter, a->mask, a->strides, a->paddings, a->dilations,
                   a->deformable_groups, a->groups, a->im2col_step, &ho, &wo));
  set4(pd_meta_list_resize(out, 1), a->x->dtype, a->x->shape[0], a->filter->shape[0], ho, wo);
  return PD_OK;
}

pd_status pd_infer_deformable_conv_grad(const void *args, pd_meta_list *out) {
  const pd_deformable_conv_grad_args *a = (const pd_deformable_conv_grad_args *)args;
  const char *op = "deformable_conv_grad";
  int64_t ho, wo;
  PD_TRY(dcn_check(op, a->x, a->offset, a->filter, a->mask, a->strides, a->paddings, a->dilations,
                   a->deformable_groups, a->groups, a->im2col_step, &ho, &wo));
  PD_TRY(pd_check_same_dtype(op, "x", a->x, "out_grad", a->out_grad));
  const int64_t *g = a->out_grad->shape;
  if (a->out_grad->ndim != 4 || g[0] != a->x->shape[0] || g[1] != a->filter->shape[0] || g[2] != ho || g[3] != wo)
    return bad(op, "expected out_grad of the output's shape [N, M, %lld, %lld]", (long long)ho, (long long)wo);
  pd_meta *m = pd_meta_list_resize(out, 4);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
  pd_meta_like(&m[0], a->x);
  pd_meta_like(&m[1], a->offset);
  pd_meta_like(&m[2], a->filter);
  int64_t kk = a->filter->shape[2] * a->filter->shape[3];
  set4(&m[3], a->x->dtype, a->x->shape[0], a->deformable_groups * kk, ho, wo);
  return PD_OK;
}

/* ---- yolo ---- */
static pd_status anchors_check(const char *op, pd_int_array anchors) {
  if (anchors.n < 2 || anchors.n % 2)
    return bad(op, "expected anchors as (width, height) pairs, received %lld values", (long long)anchors.n);
  for (int64_t i = 0; i < anchors.n; i++)
    if (anchors.data[i] <= 0)
      return bad(op, "expected positive anchors, received %lld at %lld", (long long)anchors.data[i], (long long)i);
  return PD_OK;
}

pd_status pd_infer_yolo_box(const void *args, pd_meta_list *out) {
  const pd_yolo_box_args *a = (const pd_yolo_box_args *)args;
  const char *op = "yolo_box";
  PD_TRY(need_ndim(op, "x", a->x, 4));
  PD_TRY(need_float(op, "x", a->x));
  PD_TRY(anchors_check(op, a->anchors));
  if (a->class_num < 1) return bad(op, "expected class_num >= 1, received %lld", (long long)a->class_num);
  if (a->downsample_ratio < 1)
    return bad(op, "expected downsample_ratio >= 1, received %lld", (long long)a->downsample_ratio);
  int64_t an = a->anchors.n / 2, C = an * (5 + a->class_num + (a->iou_aware ? 1 : 0));
  if (a->x->shape[1] != C)
    return bad(op, "expected x with anchor_num * (%lld + class_num) channels = %lld", a->iou_aware ? 6LL : 5LL,
               (long long)C);
  PD_TRY(need_ndim(op, "img_size", a->img_size, 2));
  PD_TRY(need_int(op, "img_size", a->img_size));
  if (a->img_size->shape[0] != a->x->shape[0] || a->img_size->shape[1] != 2)
    return bad(op, "expected img_size of shape [N=%lld, 2], received first dim %lld", (long long)a->x->shape[0],
               (long long)a->img_size->shape[0]);
  if (a->iou_aware && (a->iou_aware_factor < 0 || a->iou_aware_factor > 1))
    return bad(op, "expected iou_aware_factor in [0, 1]");
  int64_t M = an * a->x->shape[2] * a->x->shape[3];
  int64_t sb[3] = {a->x->shape[0], M, 4}, ss[3] = {a->x->shape[0], M, a->class_num};
  pd_meta *m = pd_meta_list_resize(out, 2);
  pd_meta_set(&m[0], a->x->dtype, 3, sb);
  pd_meta_set(&m[1], a->x->dtype, 3, ss);
  return PD_OK;
}

static pd_status yolo_loss_check(const char *op, const pd_tensor *x, const pd_tensor *gt_box, const pd_tensor *gt_label,
                                 const pd_tensor *gt_score, pd_int_array anchors, pd_int_array mask, int64_t class_num,
                                 int64_t ratio) {
  PD_TRY(need_ndim(op, "x", x, 4));
  PD_TRY(need_float(op, "x", x));
  PD_TRY(anchors_check(op, anchors));
  if (x->shape[2] != x->shape[3])
    return bad(op, "expected x with equal height and width, received %lld and %lld", (long long)x->shape[2],
               (long long)x->shape[3]);
  if (class_num < 1) return bad(op, "expected class_num >= 1, received %lld", (long long)class_num);
  if (ratio < 1) return bad(op, "expected downsample_ratio >= 1, received %lld", (long long)ratio);
  if (mask.n < 1) return bad(op, "expected a non-empty anchor_mask");
  for (int64_t i = 0; i < mask.n; i++)
    if (mask.data[i] < 0 || mask.data[i] >= anchors.n / 2)
      return bad(op, "anchor_mask value %lld is out of range for %lld anchors", (long long)mask.data[i],
                 (long long)(anchors.n / 2));
  if (x->shape[1] != mask.n * (5 + class_num))
    return bad(op, "expected x with len(anchor_mask) * (5 + class_num) = %lld channels, received %lld",
               (long long)(mask.n * (5 + class_num)), (long long)x->shape[1]);
  PD_TRY(need_ndim(op, "gt_box", gt_box, 3));
  PD_TRY(need_float(op, "gt_box", gt_box));
  if (gt_box->shape[0] != x->shape[0] || gt_box->shape[2] != 4)
    return bad(op, "expected gt_box of shape [N=%lld, B, 4], received first dim %lld", (long long)x->shape[0],
               (long long)gt_box->shape[0]);
  PD_TRY(need_ndim(op, "gt_label", gt_label, 2));
  PD_TRY(need_int(op, "gt_label", gt_label));
  if (gt_label->shape[0] != gt_box->shape[0] || gt_label->shape[1] != gt_box->shape[1])
    return bad(op, "expected gt_label of shape [N, B] = [%lld, %lld]", (long long)gt_box->shape[0],
               (long long)gt_box->shape[1]);
  if (gt_score) {
    PD_TRY(need_ndim(op, "gt_score", gt_score, 2));
    PD_TRY(need_float(op, "gt_score", gt_score));
    if (gt_score->shape[0] != gt_box->shape[0] || gt_score->shape[1] != gt_box->shape[1])
      return bad(op, "expected gt_score of shape [N, B] = [%lld, %lld]", (long long)gt_box->shape[0],
                 (long long)gt_box->shape[1]);
  }
  return PD_OK;
}

pd_status pd_infer_yolo_loss(const void *args, pd_meta_list *out) {
  const pd_yolo_loss_args *a = (const pd_yolo_loss_args *)args;
  PD_TRY(yolo_loss_check("yolo_loss", a->x, a->gt_box, a->gt_label, a->gt_score, a->anchors, a->anchor_mask,
                         a->class_num, a->downsample_ratio));
  pd_meta *m = pd_meta_list_resize(out, 3);
  int64_t n = a->x->shape[0], sm[2] = {n, a->gt_box->shape[1]};
  pd_meta_set(&m[0], a->x->dtype, 1, &n);
  set4(&m[1], a->x->dtype, n, a->anchor_mask.n, a->x->shape[2], a->x->shape[3]);
  pd_meta_set(&m[2], PD_INT32, 2, sm);
  return PD_OK;
}

pd_status pd_infer_yolo_loss_grad(const void *args, pd_meta_list *out) {
  const pd_yolo_loss_grad_args *a = (const pd_yolo_loss_grad_args *)args;
  PD_TRY(yolo_loss_check("yolo_loss_grad", a->x, a->gt_box, a->gt_label, a->gt_score, a->anchors, a->anchor_mask,
                         a->class_num, a->downsample_ratio));
  PD_TRY(pd_check_same_dtype("yolo_loss_grad", "x", a->x, "loss_grad", a->loss_grad));
  if (a->loss_grad->ndim != 1 || a->loss_grad->shape[0] != a->x->shape[0])
    return bad("yolo_loss_grad", "expected loss_grad of shape [N=%lld]", (long long)a->x->shape[0]);
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

/* ---- nms / box_coder / prior_box ---- */
pd_status pd_infer_nms(const void *args, pd_meta_list *out) {
  const pd_nms_args *a = (const pd_nms_args *)args;
  PD_TRY(need_ndim("nms", "boxes", a->boxes, 2));
  PD_TRY(need_float("nms", "boxes", a->boxes));
  if (a->boxes->shape[1] != 4)
    return bad("nms", "expected boxes of shape [num_boxes, 4], received last dim %lld", (long long)a->boxes->shape[1]);
  if (!(a->threshold >= 0.0 && a->threshold <= 1.0))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[nms] expected iou_threshold in [0, 1], received %g", a->threshold);
  int64_t s = -1;
  pd_meta_set(pd_meta_list_resize(out, 1), PD_INT64, 1, &s);
  return PD_OK;
}

pd_status pd_infer_box_coder(const void *args, pd_meta_list *out) {
  const pd_box_coder_args *a = (const pd_box_coder_args *)args;
  const char *op = "box_coder";
  PD_TRY(need_ndim(op, "prior_box", a->prior_box, 2));
  PD_TRY(need_float(op, "prior_box", a->prior_box));
  PD_TRY(pd_check_same_dtype(op, "prior_box", a->prior_box, "target_box", a->target_box));
  int64_t M = a->prior_box->shape[0];
  if (a->prior_box->shape[1] != 4)
    return bad(op, "expected prior_box of shape [M, 4], received last dim %lld", (long long)a->prior_box->shape[1]);
  if (a->prior_box_var) {
    PD_TRY(pd_check_same_dtype(op, "prior_box", a->prior_box, "prior_box_var", a->prior_box_var));
    if (a->prior_box_var->ndim != 2 || a->prior_box_var->shape[0] != M || a->prior_box_var->shape[1] != 4)
      return bad(op, "expected prior_box_var of prior_box's shape [%lld, 4]", (long long)M);
    if (a->variance.n)
      return bad(op, "prior_box_var and variance must not be given together");
  }
  if (a->variance.n && a->variance.n != 4)
    return bad(op, "expected variance with 4 values, received %lld", (long long)a->variance.n);
  const pd_tensor *t = a->target_box;
  int64_t s[3];
  if (!strcmp(a->code_type, "encode_center_size")) {
    if (t->ndim != 2 || t->shape[1] != 4)
      return bad(op, "encode_center_size expects target_box of shape [N, 4], received %lld dims", (long long)t->ndim);
    s[0] = t->shape[0];
    s[1] = M;
    s[2] = 4;
  } else if (!strcmp(a->code_type, "decode_center_size")) {
    if (t->ndim != 3 || t->shape[2] != 4)
      return bad(op, "decode_center_size expects target_box of shape [N, M, 4], received %lld dims",
                 (long long)t->ndim);
    if (a->axis != 0 && a->axis != 1) return bad(op, "expected axis 0 or 1, received %lld", (long long)a->axis);
    if (t->shape[a->axis == 0 ? 1 : 0] != M)
      return bad(op, "target_box dim %lld must equal the number of prior boxes (%lld)", a->axis == 0 ? 1LL : 0LL,
                 (long long)M);
    memcpy(s, t->shape, sizeof s);
  } else {
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[box_coder] expected code_type 'encode_center_size' or 'decode_center_size', received '%s'",
                        a->code_type);
  }
  pd_meta_set(pd_meta_list_resize(out, 1), a->prior_box->dtype, 3, s);
  return PD_OK;
}

/* Expanded aspect ratios (1.0 first, duplicates dropped, 1/ar after each ar when flip). */
int pd_prior_box_ratios(pd_float_array ar, int flip, double *o, int cap) {
  int n = 0;
  o[n++] = 1.0;
  for (int64_t i = 0; i < ar.n; i++) {
    int dup = 0;
    for (int j = 0; j < n; j++)
      if (fabs(ar.data[i] - o[j]) < 1e-6) dup = 1;
    if (dup) continue;
    if (n < cap) o[n++] = ar.data[i];
    if (flip && n < cap) o[n++] = 1.0 / ar.data[i];
  }
  return n;
}

pd_status pd_infer_prior_box(const void *args, pd_meta_list *out) {
  const pd_prior_box_args *a = (const pd_prior_box_args *)args;
  const char *op = "prior_box";
  PD_TRY(need_ndim(op, "input", a->input, 4));
  PD_TRY(need_ndim(op, "image", a->image, 4));
  PD_TRY(need_float(op, "input", a->input));
  if (a->min_sizes.n < 1) return bad(op, "expected at least one min_size");
  for (int64_t i = 0; i < a->min_sizes.n; i++)
    if (!(a->min_sizes.data[i] > 0)) return bad(op, "expected min_sizes > 0 (entry %lld)", (long long)i);
  if (a->max_sizes.n) {
    if (a->max_sizes.n != a->min_sizes.n)
      return bad(op, "expected as many max_sizes as min_sizes (%lld), received %lld", (long long)a->min_sizes.n,
                 (long long)a->max_sizes.n);
    for (int64_t i = 0; i < a->max_sizes.n; i++)
      if (!(a->max_sizes.data[i] > a->min_sizes.data[i]))
        return bad(op, "expected max_sizes[%lld] > min_sizes[%lld]", (long long)i, (long long)i);
  }
  for (int64_t i = 0; i < a->aspect_ratios.n; i++)
    if (!(a->aspect_ratios.data[i] > 0)) return bad(op, "expected aspect_ratios > 0 (entry %lld)", (long long)i);
  if (a->variances.n != 4) return bad(op, "expected 4 variances, received %lld", (long long)a->variances.n);
  for (int i = 0; i < 4; i++)
    if (!(a->variances.data[i] > 0)) return bad(op, "expected variances > 0 (entry %lld)", (long long)i);
  if (a->step_w < 0 || a->step_h < 0) return bad(op, "expected steps >= 0");
  double r[256];
  int nr = pd_prior_box_ratios(a->aspect_ratios, (int)a->flip, r, 256);
  int64_t np = (int64_t)nr * a->min_sizes.n + a->max_sizes.n;
  pd_meta *m = pd_meta_list_resize(out, 2);
  set4(&m[0], a->input->dtype, a->input->shape[2], a->input->shape[3], np, 4);
  m[1] = m[0];
  return PD_OK;
}
