/* Winograd F(2x2, 3x3) float32 convolution for the predictor (conv_winograd.c; docs/architecture.md
 * "Winograd convolutions in the predictor"): 3x3, stride 1, dilation 1, one group, pads 0 or 1,
 * C and O multiples of 8, x / y plain NCHW or blocked nChw<b>c (b a multiple of 8; b = C is NHWC).
 * The transformed filter lives in the running instruction's weight cache (pd_conv_wcache_cur):
 * without one (eager, training) the convolution is declined. */
#ifndef PD_CONV_WINOGRAD_H
#define PD_CONV_WINOGRAD_H
#include "conv_geom.h"

/* y = clamp(conv(x, w) + bias, lo, hi) (bias may be NULL; relu: lo 0, hi +inf; none: -inf, +inf).
 * xblk / yblk: the layouts of x / y (0 plain). Returns 1 when it ran, 0 when declined (geometry,
 * thresholds, PADDLE_C_WINOGRAD=0, no weight cache), -1 with the error set (out of memory). */
int pd_conv_winograd(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, float lo, float hi);
#endif
