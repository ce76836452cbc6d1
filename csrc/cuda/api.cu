// The table libpaddle_c_cuda.so exports (pd_cuda_api.h): one family table per file.
#include "pd_cuda_api.h"
#include "pd_cuda_elementwise.h"
#include "pd_cuda_nn.h"
#include "pd_cuda_misc.h"
#include "pd_cuda_dnn.h"

extern "C" const pd_cuda_runtime pd_cuda_rt_table;       // runtime.cu
extern "C" const pd_cuda_elementwise pd_cuda_ew_table;   // elementwise.cu
extern "C" const pd_cuda_nn pd_cuda_nn_table;            // nn.cu
extern "C" const pd_cuda_misc pd_cuda_misc_table;        // misc.cu
extern "C" const pd_cuda_dnn pd_cuda_dnn_table;          // dnn.cu

static const pd_cuda_api api = {PD_CUDA_API_VERSION, PD_CUDA_MAX_DIMS, &pd_cuda_rt_table,
                                &pd_cuda_ew_table, &pd_cuda_nn_table, &pd_cuda_misc_table,
                                &pd_cuda_dnn_table};

extern "C" __attribute__((visibility("default"))) const pd_cuda_api *pd_cuda_get_api(void) { return &api; }
