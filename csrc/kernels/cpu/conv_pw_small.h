/* Direct convolution for the predictor's small planes (conv_pw_small.c; docs/arch/inference.md
 * "1x1 convolutions on small planes"): float32, x and y blocked in the ISA level's channel blocks
 * (nChw16c on AVX-512, nChw8c on AVX2), one group, dilation 1, stride 1 or 2, C and O multiples of
 * the block, few output positions (N * OH * OW); 1x1 kernels without padding, and kernels up to 7x7
 * with zero padding (a padded copy of x) where the rule takes them (stride 2;
 * PADDLE_C_CONV_SMALL_KXK=1 every eligible layer, =0 none). */
#ifndef PD_CONV_PW_SMALL_H
#define PD_CONV_PW_SMALL_H
#include "conv_geom.h"

/* y = clamp(conv(x, w) + bias [+ y], lo, hi): sum 1 adds y's value on entry (the residual
 * connection, y already holding it blocked). bias may be NULL. The packed filter is kept in the
 * running instruction's weight cache (pd_conv_wcache_aux): without one the call is declined.
 * Returns 1 when it ran, 0 when declined (geometry, layouts, size,
 * PADDLE_C_CONV_PW_SMALL=0), -1 with the error set. */
int pd_conv_pw_small(const pd_conv_geom *g, const float *x, int xblk, const float *w, const float *bias, float *y,
                     int yblk, int sum, float lo, float hi);
#endif
