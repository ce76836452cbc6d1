/* Geometry helpers shared by the common nn ops' infer_meta rules (infer_meta_common.c) and
 * their kernels (common.c, pad.c, interp.c), so kernels see exactly what infer_meta checked. */
#ifndef PD_INFER_META_COMMON_H
#define PD_INFER_META_COMMON_H
#include "generated/pd_ops_gen.h"

/* mode name -> 1 (upscale_in_train) / 0 (downscale_in_infer) */
pd_status pd_dropout_mode(const char *op, const char *mode, int *upscale);
/* 0 constant, 1 reflect, 2 replicate, 3 circular */
pd_status pd_pad_mode(const char *op, const char *mode, int *code);
pd_status pd_pad_check(const char *op, const pd_tensor *x, pd_int_array pads, const char *mode,
                       int64_t *out_shape);

typedef struct {
  int mode;          /* 0 nearest, 1 linear, 2 bilinear, 3 trilinear, 4 bicubic */
  int ns;            /* spatial dims */
  int channel_last;
  int64_t n, c, in[3], out[3];
  double scale[3];   /* <= 0: not given */
  int64_t out_shape[PD_MAX_DIMS];
} pd_interp_geom;
pd_status pd_interp_check(const char *op, int ndim, const int64_t *shape, pd_int_array size, pd_float_array scale,
                          const char *mode, const char *fmt, pd_interp_geom *g);

typedef struct { int64_t h, w, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow; } pd_unfold_geom;
pd_status pd_unfold_geometry(const char *op, int64_t h, int64_t w, pd_int_array k, pd_int_array s,
                             pd_int_array p, pd_int_array d, pd_unfold_geom *g);
#endif
