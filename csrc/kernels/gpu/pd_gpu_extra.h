/* Registration functions of the GPU kernel files added after the three families (helper cuamp):
 * gpu_dispatch.c's on_load calls them after pd_gpu_register_misc. amp.c: check_finite_and_unscale_
 * / update_loss_scaling_ (launchers at the end of pd_cuda_misc); attn.c: attention_core (+ grad)
 * (launchers at the end of pd_cuda_nn). Pooling is the dnn family's (csrc/kernels/gpu/dnn.c). */
#ifndef PD_GPU_EXTRA_H
#define PD_GPU_EXTRA_H
void pd_gpu_register_amp(void);
void pd_gpu_register_attn(void);
#endif
