/* Geometry shared by grid_sample's infer_meta rules (infer_meta_nn_extra.c) and its kernels
 * (csrc/kernels/cpu/grid_sample.c), so the kernels see exactly what infer_meta checked. */
#ifndef PD_INFER_META_NN_EXTRA_H
#define PD_INFER_META_NN_EXTRA_H
#include "generated/pd_ops_gen.h"

typedef struct {
  int ns;              /* spatial dims: 2 (H, W) or 3 (D, H, W) */
  int mode;            /* 0 bilinear, 1 nearest */
  int pad;             /* 0 zeros, 1 border, 2 reflection */
  int64_t n, c, in[3], out[3], in_sp, out_sp;
  int64_t out_shape[5];
} pd_grid_geom;

pd_status pd_grid_sample_check(const char *op, const pd_tensor *x, const pd_tensor *grid, const char *mode,
                               const char *padding_mode, pd_grid_geom *g);
#endif
