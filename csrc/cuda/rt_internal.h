/* What runtime.cu offers the other .cu files of libpaddle_c_cuda.so (hidden: not exported from
 * the library). Including this header is optional (a file may declare the two itself, as
 * docs/arch/cuda.md "CUDA runtime and build" says); it adds printf-format checking. */
#ifndef PD_CUDA_RT_INTERNAL_H
#define PD_CUDA_RT_INTERNAL_H
#ifdef __cplusplus
extern "C" {
#endif
/* Sets this thread's error (rt->last_error / last_error_code): code a PD_CU_ERR_*. */
void pd_cu_set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* This thread's current stream of the current device, as a cudaStream_t (NULL: the legacy
 * default stream). Launchers run on it. */
void *pd_cu_current_stream(void);
#ifdef __cplusplus
}
#endif
#endif
