/* temporary */
#include "pd_pass.h"
pd_status pd_pass_conv_bn(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_conv_bias(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_conv_act(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_conv_residual(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_fc(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_scale_fold(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_shape_cancel(pd_pass_ctx *c) { (void)c; return PD_OK; }
pd_status pd_pass_elementwise_act(pd_pass_ctx *c) { (void)c; return PD_OK; }
