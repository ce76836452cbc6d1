/* The 'dnn' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions): convolutions
 * on cuDNN 9 (libcudnn.so.9, dlopen'd at the first convolution with our own prototypes of the
 * legacy API; pip's nvidia-cudnn-cu13 provides it) and pooling on our own kernels (the CPU
 * kernel's exact semantics: ceil_mode, asymmetric pads, adaptive windows, exclusive counts, empty
 * windows, NaN and argmax order, which cuDNN's pooling cannot express). Owner: helper "cudnn";
 * launchers in csrc/cuda/dnn.cu (convolution) and dnn_pool.cu, glue in csrc/kernels/gpu/dnn.c.
 * Every launcher runs on the current device's current stream. All tensor pointers are dense
 * (contiguous) buffers in the layout the geometry names; float16 / bfloat16 / float32 / float64. */
#ifndef PD_CUDA_DNN_H
#define PD_CUDA_DNN_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Convolution geometry as csrc/kernels/cpu/conv_geom.h's pd_conv_geom: nsp spatial dims (1-3) at
 * index 0..nsp-1 of the arrays, the others 1 (pads 0). x [N, C, *in] (nhwc: [N, *in, C]), w [O,
 * C/G, *k] (always), y [N, O, *out] (nhwc: [N, *out, O]). pl / pr: left / right zero padding;
 * out must be <= (in + pl + pr - (d (k - 1) + 1)) / s + 1 (a transposed convolution's output_padding
 * may make in larger than the smallest input giving out: those positions get zero gradient). */
typedef struct pd_cuda_conv_geom {
  int nsp, nhwc;
  int64_t N, C, O, G;
  int64_t in[3], out[3], k[3], s[3], pl[3], pr[3], d[3];
} pd_cuda_conv_geom;

/* Pooling geometry as pd_pool_geom (conv_geom.h): x [N, C, *in] (nhwc: [N, *in, C]). */
typedef struct pd_cuda_pool_geom {
  int nsp, nhwc, is_max, exclusive, adaptive;
  int64_t N, C, in[3], out[3], k[3], s[3], pl[3], pr[3];
} pd_cuda_pool_geom;

typedef struct pd_cuda_dnn {
  /* y = conv(x, w) (+ bias[O] per output channel when bias != NULL, one rounded add after the
   * convolution as the CPU kernel). Cross-correlation, as Paddle's conv. */
  int (*conv_fwd)(int dtype, const pd_cuda_conv_geom *g, const void *x, const void *w, const void *bias,
                  void *y);
  /* dx = the data gradient of conv(., w) at dy: conv2d_transpose's output, conv2d's input grad. */
  int (*conv_bwd_data)(int dtype, const pd_cuda_conv_geom *g, const void *dy, const void *w, void *dx);
  /* dw = the filter gradient of conv(x, .) at dy: conv2d_grad_filter. */
  int (*conv_bwd_filter)(int dtype, const pd_cuda_conv_geom *g, const void *x, const void *dy, void *dw);
  /* float32 convolutions may use TF32 tensor cores when allow != 0 (the default, as Paddle's
   * FLAGS_allow_tf32_cudnn); returns the previous setting. */
  int (*set_allow_tf32)(int allow);
  /* 0 if cuDNN can be loaded (version in *version, e.g. 90100), else -1 with PD_CU_ERR_LIBRARY. */
  int (*cudnn_version)(size_t *version);

  /* Pooling forward: y [N, C, *out]; mask (int32, y's shape, may be NULL): the flat spatial index
   * of each window's max inside its input plane (-1: empty window), Paddle's mask. */
  int (*pool_fwd)(int dtype, const pd_cuda_pool_geom *g, const void *x, void *y, int32_t *mask);
  /* dx [N, C, *in] from dout [N, C, *out] (max: at each window's first max, avg: spread), the
   * contributions to one input element summed in increasing output order, as the CPU. */
  int (*pool_bwd)(int dtype, const pd_cuda_pool_geom *g, const void *x, const void *dout, void *dx);
  /* Per plane p of P = N*C planes (NCHW layout; the glue permutes NHWC): unpool: big[p, :] = 0,
   * then for j in order, i = idx[p, j]: big[p, i] (+)= small[p, j] when 0 <= i < BS; gather:
   * small[p, j] = big[p, idx[p, j]] (0 when out of range). idx int32 or int64 (idx_dtype). */
  int (*unpool)(int dtype, int64_t P, int64_t SS, int64_t BS, const void *small, const void *idx,
                int idx_dtype, void *big, int accumulate);
  int (*pool_gather)(int dtype, int64_t P, int64_t SS, int64_t BS, const void *big, const void *idx,
                     int idx_dtype, void *small);
  /* [A, B, C] -> [A, C, B] (element size esz 1/2/4/8): NCHW <-> NHWC for the glue. */
  int (*permute021)(size_t esz, int64_t A, int64_t B, int64_t C, const void *src, void *dst);
} pd_cuda_dnn;

#ifdef __cplusplus
}
#endif
#endif
