/* Winograd F(2x2, 3x3) / F(4x4, 3x3) float32 convolutions (conv_winograd.c; docs/arch/inference.md
 * "Winograd convolutions"): 3x3, stride 1, dilation 1, one group, C and O multiples of 8.
 * pd_conv_winograd: the predictor's (pads 0 or 1, x / y plain NCHW or blocked nChw<b>c, b a multiple
 * of 8; b = C is NHWC), the transformed filter kept in the running instruction's weight cache
 * (pd_conv_wcache_cur): without one the convolution is declined.
 * pd_conv_winograd_eager: eager / training float32 conv2d, plain NCHW, pads 0..2, filter transformed
 * per call. */
#ifndef PD_CONV_WINOGRAD_H
#define PD_CONV_WINOGRAD_H
#include "conv_geom.h"

/* y = clamp(conv(x, w) + bias, lo, hi) (bias may be NULL; relu: lo 0, hi +inf; none: -inf, +inf).
 * xblk / yblk: the layouts of x / y (0 plain). Returns 1 when it ran, 0 when declined (geometry,
 * thresholds, PADDLE_C_WINOGRAD=0, no weight cache), -1 with the error set (out of memory). */
int pd_conv_winograd(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, float lo, float hi);

/* The predictor's stride-2 3x3 convolutions (conv_winograd_s2.c: polyphase Winograd, AVX-512): pads
 * 0 or 1, C and O multiples of 16, x / y plain or blocked (8 or 16k channels), arguments and returns
 * as pd_conv_winograd's; PADDLE_C_WINOGRAD_S2=0 declines. */
int pd_conv_winograd_s2(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                        int yblk, float lo, float hi);

/* mode 0: y = conv(x, w); 1: x = conv_transpose(y, w) (the data gradient); 2: w = the filter
 * gradient of x and y = dy. g the forward convolution's geometry (as pd_conv_dnnl). Returns 1 when it
 * ran, 0 when declined (geometry, thresholds, PADDLE_C_WINOGRAD=0), -1 with the error set (memory). */
int pd_conv_winograd_eager(const pd_conv_geom *g, int mode, float *x, float *w, float *y);
#endif
