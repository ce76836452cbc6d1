/* Geometry of convolution and pooling (1-3 spatial dims, padded to 3 internally): Paddle's
 * padding rules (2*nsp asymmetric or nsp symmetric paddings, SAME/VALID algorithms, ceil_mode,
 * output_size of transposed convolutions), shared by infer_meta_conv.c and the kernels. */
#ifndef PD_CONV_GEOM_H
#define PD_CONV_GEOM_H
#include "../../ops/pd_op.h"

typedef struct {
  int nsp;                 /* spatial dims (1..3) */
  int nhwc;                /* channels-last layout */
  int64_t N, C, O, G;      /* batch, conv input channels, conv output channels, groups */
  int64_t in[3], out[3], k[3], s[3], pl[3], pr[3], d[3]; /* unused dims: 1 (pads 0) */
} pd_conv_geom;

/* Forward convolution geometry from x [N, C, *in] (or NHWC) and w [O, C/G, *k]. */
pd_status pd_conv_geom_fwd(const char *op, const pd_tensor *x, const int64_t *wshape, int wndim,
                           pd_int_array strides, pd_int_array paddings, const char *algo,
                           int64_t groups, pd_int_array dilations, const char *fmt, pd_conv_geom *g);
/* Transposed convolution: x is the conv output [N, O, *out], w [O, C/G, *k]; fills in. */
pd_status pd_conv_geom_tr(const char *op, const pd_tensor *x, const pd_tensor *w, pd_int_array strides,
                          pd_int_array paddings, pd_int_array output_padding, pd_int_array output_size,
                          const char *algo, int64_t groups, pd_int_array dilations, const char *fmt,
                          pd_conv_geom *g);
/* Shape of an activation tensor of the geometry: channels ch, spatial sp. */
void pd_conv_shape(const pd_conv_geom *g, int64_t ch, const int64_t *sp, int *ndim, int64_t *shape);

/* Pooling: x [N, C, *in]; kernel/strides/paddings per Paddle's pool2d. */
typedef struct {
  int nsp, nhwc, is_max, exclusive, adaptive;
  int64_t N, C, in[3], out[3], k[3], s[3], pl[3], pr[3];
} pd_pool_geom;
pd_status pd_pool_geom_make(const char *op, const pd_tensor *x, pd_int_array ksize, pd_int_array strides,
                            pd_int_array paddings, int ceil_mode, int exclusive, const char *fmt,
                            const char *ptype, int global, int adaptive, const char *algo,
                            pd_pool_geom *g);
/* [N, A, B] -> [N, B, A], element size esz (NCHW <-> NHWC as A = C, B = spatial or back; a whole
 * plane as the element swaps N and C: the bf16 1x1 small-plane products). Threads from 256 KB. */
void pd_permute_nc(const char *src, char *dst, int64_t N, int64_t A, int64_t B, size_t esz);
#endif
