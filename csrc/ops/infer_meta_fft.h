/* Shared by the shape rules of ops/fft.yaml and their kernels (csrc/kernels/cpu/fft.c). */
#ifndef PD_INFER_META_FFT_H
#define PD_INFER_META_FFT_H
#include "generated/pd_ops_gen.h"

/* Checks axes against ndim (in range, no repeats, at least one) and writes them normalised
 * (non-negative, in the given order) to ax. */
pd_status pd_fft_axes(const char *op, pd_int_array axes, int ndim, int *ax, int *nax);
/* Parses Paddle's norm string with the direction: the scale of a transform of n points is
 * 1 (none), 1/sqrt(n) (ortho) or 1/n. Writes 0, 1 or 2 to *mode. */
pd_status pd_fft_norm_mode(const char *op, const char *normalization, int forward, int *mode);
double pd_fft_scale(int mode, double n);
#endif
