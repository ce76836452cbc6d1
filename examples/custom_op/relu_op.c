/* A custom operator library (pd_extension.h): custom_relu (float32/float64, with backward) and
 * custom_scale_add(x, y, alpha, use_bias) -> (alpha * x + y, x * y) showing attributes, several
 * inputs and outputs. Built by paddle.utils.cpp_extension.load (eager / static / jit.save, see
 * run_custom_op.py) and linked into serve_custom_op.c (the C inference API). */
#include <stdio.h>
#include <string.h>
#include "pd_extension.h"

static int fail(PD_ExtContext *c, const char *msg) {
  snprintf(c->error, c->error_cap, "%s", msg);
  return 1;
}

static int relu_forward(PD_ExtContext *c) {
  const PD_ExtTensor *x = &c->ins[0];
  PD_ExtTensor *y = &c->outs[0];
  if (x->dtype == PD_EXT_FLOAT32) {
    const float *a = (const float *)x->data;
    float *b = (float *)y->data;
    for (int64_t i = 0; i < x->numel; i++) b[i] = a[i] > 0.f ? a[i] : 0.f;
  } else if (x->dtype == PD_EXT_FLOAT64) {
    const double *a = (const double *)x->data;
    double *b = (double *)y->data;
    for (int64_t i = 0; i < x->numel; i++) b[i] = a[i] > 0. ? a[i] : 0.;
  } else {
    return fail(c, "custom_relu supports float32 and float64 only");
  }
  return 0;
}

/* ins: X, Out, Out@GRAD; outs: X@GRAD */
static int relu_backward(PD_ExtContext *c) {
  const PD_ExtTensor *out = &c->ins[1], *dout = &c->ins[2];
  PD_ExtTensor *dx = &c->outs[0];
  if (out->dtype == PD_EXT_FLOAT32) {
    const float *o = (const float *)out->data, *g = (const float *)dout->data;
    float *d = (float *)dx->data;
    for (int64_t i = 0; i < out->numel; i++) d[i] = o[i] > 0.f ? g[i] : 0.f;
  } else if (out->dtype == PD_EXT_FLOAT64) {
    const double *o = (const double *)out->data, *g = (const double *)dout->data;
    double *d = (double *)dx->data;
    for (int64_t i = 0; i < out->numel; i++) d[i] = o[i] > 0. ? g[i] : 0.;
  } else {
    return fail(c, "custom_relu supports float32 and float64 only");
  }
  return 0;
}

static int scale_add_infer(PD_ExtContext *c) {
  const PD_ExtTensor *x = &c->ins[0], *y = &c->ins[1];
  if (x->ndim != y->ndim || x->dtype != PD_EXT_FLOAT32 || y->dtype != PD_EXT_FLOAT32)
    return fail(c, "custom_scale_add expects two float32 tensors of the same shape");
  for (int d = 0; d < x->ndim; d++)
    if (x->shape[d] >= 0 && y->shape[d] >= 0 && x->shape[d] != y->shape[d])
      return fail(c, "custom_scale_add expects two float32 tensors of the same shape");
  c->outs[0] = *x;
  c->outs[1] = *x;
  return 0;
}

/* out0 = alpha * x + (use_bias ? y : 0), out1 = x * y */
static int scale_add_forward(PD_ExtContext *c) {
  const float *x = (const float *)c->ins[0].data, *y = (const float *)c->ins[1].data;
  float *o0 = (float *)c->outs[0].data, *o1 = (float *)c->outs[1].data;
  float alpha = (float)c->attrs[0];
  int use_bias = c->attrs[1] != 0;
  for (int64_t i = 0; i < c->ins[0].numel; i++) {
    o0[i] = alpha * x[i] + (use_bias ? y[i] : 0.f);
    o1[i] = x[i] * y[i];
  }
  return 0;
}

/* ins: X, Y, Out0, Out1, Out0@GRAD, Out1@GRAD; outs: X@GRAD, Y@GRAD */
static int scale_add_backward(PD_ExtContext *c) {
  const float *x = (const float *)c->ins[0].data, *y = (const float *)c->ins[1].data;
  const float *g0 = (const float *)c->ins[4].data, *g1 = (const float *)c->ins[5].data;
  float *dx = (float *)c->outs[0].data, *dy = (float *)c->outs[1].data;
  float alpha = (float)c->attrs[0];
  int use_bias = c->attrs[1] != 0;
  for (int64_t i = 0; i < c->ins[0].numel; i++) {
    dx[i] = alpha * g0[i] + y[i] * g1[i];
    dy[i] = (use_bias ? g0[i] : 0.f) + x[i] * g1[i];
  }
  return 0;
}

static const char *const relu_in[] = {"X"}, *const relu_out[] = {"Out"};
static const char *const sa_in[] = {"X", "Y"}, *const sa_out[] = {"Out0", "Out1"};
static const char *const sa_attrs[] = {"alpha: float", "use_bias: bool"};

static const PD_CustomOp ops[] = {
    {"custom_relu", 1, relu_in, 1, relu_out, 0, NULL, NULL, relu_forward, relu_backward},
    {"custom_scale_add", 2, sa_in, 2, sa_out, 2, sa_attrs, scale_add_infer, scale_add_forward, scale_add_backward},
};
PD_CUSTOM_OP_LIBRARY(ops)
