/* Helpers shared by the vision kernels (vision_roi.c, vision_deform.c, vision_yolo.c,
 * vision_box.c) and infer_meta_vision.c: small contiguous double / int64 copies of the side
 * inputs (boxes, gt boxes, counts; any float / int dtype), the per-box image index from
 * boxes_num, and prior_box's aspect-ratio expansion. */
#ifndef PD_VISION_UTIL_H
#define PD_VISION_UTIL_H
#include "pd_kernel_util.h"

/* *buf (malloc'd, caller frees) receives t's values as doubles, row-major. */
pd_status pd_vision_f64(const char *op, pd_tensor *t, double **buf);
/* *buf (malloc'd) receives t's values as int64, row-major. */
pd_status pd_vision_i64(const char *op, pd_tensor *t, int64_t **buf);
/* *ids (malloc'd, R entries): the image of each box. boxes_num must hold non-negative counts
 * summing to R (ValueError otherwise). */
pd_status pd_vision_batch_ids(const char *op, pd_tensor *boxes_num, int64_t R, int64_t **ids);
/* prior_box: 1.0, then each new aspect ratio (and its inverse when flip); returns the count. */
int pd_prior_box_ratios(pd_float_array ar, int flip, double *o, int cap);

static inline pd_status pd_vision_oom(const char *op) {
  return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
}
#endif
