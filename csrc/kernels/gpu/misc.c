/* GPU kernels of the 'misc' family: the glue between the op table's args structs and the
 * launchers of libpaddle_c_cuda.so (csrc/cuda/pd_cuda_misc.h). */
#include "../../core/pd_device.h"
#include "../../ops/pd_op.h"
#include "../../cuda/pd_cuda_misc.h"

void pd_gpu_register_misc(void) {}
