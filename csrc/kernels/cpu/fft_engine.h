/* The FFT engine (fft_engine.c) as the op kernels (fft.c) see it: one call runs a batched N-d
 * transform described by logical sizes and element strides. */
#ifndef PD_FFT_ENGINE_H
#define PD_FFT_ENGINE_H
#include <stdint.h>
#include "../../core/pd_status.h"

enum { K_C2C = 0, K_R2C = 1, K_C2R = 2 };

/* A transform of kind K_* over axes ax[0..nax) (the last one is the halved axis of r2c / c2r) of
 * an ndim array with logical sizes n[] (real lengths on transform axes) and element strides istr /
 * ostr (complex elements on complex sides); dbl: float64 / complex128; sign: FFTW's for c2c.
 * scale (may be NULL): the factor the caller will apply to the output; where the engine can fold
 * it into the transform's own passes it does, and sets *scale to 1. */
pd_status pd_fft_exec(int kind, int dbl, int sign, int ndim, const int64_t *n, const int64_t *istr,
                      const int64_t *ostr, const int *ax, int nax, void *in, void *out, double *scale);

#endif
