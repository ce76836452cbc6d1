// The kernel families' tables for the mock build (tests/cuda/mock/cuda_runtime.h): none.
#include "pd_cuda_elementwise.h"
#include "pd_cuda_misc.h"
#include "pd_cuda_nn.h"
#include "pd_cuda_dnn.h"
extern "C" const pd_cuda_elementwise pd_cuda_ew_table = {};
extern "C" const pd_cuda_nn pd_cuda_nn_table = {};
extern "C" const pd_cuda_misc pd_cuda_misc_table = {};
extern "C" const pd_cuda_dnn pd_cuda_dnn_table = {};
