// The 'elementwise' family's table (pd_cuda_elementwise.h). The kernels: one template per arity
// in ew_common.cuh, the functors in ew_math.cuh, the op dispatch in ew_unary.cu / ew_binary.cu,
// copies / fills / where in ew_copy.cu, host helpers in ew_core.cu.
#include "pd_cuda_elementwise.h"

namespace pdew {
int unary(int op, const pd_cuda_tensor *out, const pd_cuda_tensor *x, const pd_cuda_ew_params *p);
int binary(int op, const pd_cuda_tensor *out, const pd_cuda_tensor *x, const pd_cuda_tensor *y,
           const pd_cuda_ew_params *p);
int where(const pd_cuda_tensor *out, const pd_cuda_tensor *cond, const pd_cuda_tensor *x, const pd_cuda_tensor *y);
int copy(const pd_cuda_tensor *dst, const pd_cuda_tensor *src);
int fill(const pd_cuda_tensor *dst, double value);
int fill_bytes(const pd_cuda_tensor *dst, const void *elem);
int has_unary(int op, int dtype);
int has_binary(int op, int dtype);
} // namespace pdew

extern "C" const pd_cuda_elementwise pd_cuda_ew_table = {
    pdew::unary, pdew::binary, pdew::where, pdew::copy, pdew::fill, pdew::fill_bytes, pdew::has_unary, pdew::has_binary,
};
