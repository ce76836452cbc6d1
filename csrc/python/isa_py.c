/* paddle._C.isa_info(): which instruction-set paths run here (issue 21; csrc/core/pd_isa.h):
 * our dispatched kernels' level, what the CPU supports, and the levels oneDNN and OpenBLAS (which
 * dispatch themselves: ONEDNN_MAX_CPU_ISA, OPENBLAS_CORETYPE) chose. */
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#include <cblas.h>
#include "pd_py.h"
#include "../core/pd_isa.h"
#include "../kernels/cpu/pd_gemm.h"

static const char *dnnl_isa_name(dnnl_cpu_isa_t isa) {
  switch ((int)isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx2_vnni_2: return "avx2_vnni_2";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_fp16: return "avx512_core_fp16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_avx512_core_amx_fp16: return "avx512_core_amx_fp16";
    default: return "unknown";
  }
}

/* what bfloat16 ops (auto_cast, bfloat16 tensors) run on: matmul on the bf16 units (oneDNN's
 * matmul primitive) where the CPU has them and PADDLE_C_BF16_UNITS is not 0 */
static const char *bf16_compute(void) {
  if (pd_gemm_bf16_units())
    return "matmul, the attention core and the convolutions on the CPU's bf16 units (oneDNN bf16 primitives, "
           "float32 accumulation); other ops in float32 kernels with bfloat16-rounded inputs and outputs";
  return pd_isa_bf16_units() ? "float32 kernels with bfloat16-rounded inputs and outputs (bf16 units off: "
                               "PADDLE_C_BF16_UNITS=0)"
                             : "float32 kernels with bfloat16-rounded inputs and outputs";
}

static PyObject *isa_info(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  PyObject *levels = PyList_New(0), *supported = PyList_New(0);
  if (!levels || !supported) goto fail;
  for (int l = 0; l < pd_isa_nlevels(); l++) {
    PyObject *s = PyUnicode_FromString(pd_isa_level_name(l));
    if (!s || PyList_Append(levels, s) < 0) { Py_XDECREF(s); goto fail; }
    if (pd_isa_cpu_supports(l) && PyList_Append(supported, s) < 0) { Py_DECREF(s); goto fail; }
    Py_DECREF(s);
  }
  const char *req = pd_isa_requested(), *note = pd_isa_note();
  char *core = openblas_get_corename(), *cfg = openblas_get_config();
  const dnnl_version_t *dv = dnnl_version();
  char dver[48];
  snprintf(dver, sizeof dver, "%d.%d.%d", dv->major, dv->minor, dv->patch);
  return Py_BuildValue("{s:s,s:s,s:z,s:z,s:N,s:N,s:n,s:s,s:s,s:s,s:z,s:z,s:O,s:s,s:s}", "active", pd_isa_active(), "detected",
                       pd_isa_detected(), "requested", req, "note", note, "levels", levels, "cpu_supports",
                       supported, "dispatched_functions", (Py_ssize_t)pd_isa_nslots(), "cpu_features",
                       pd_isa_cpu_features(), "onednn", dnnl_isa_name(dnnl_get_effective_cpu_isa()), "onednn_version", dver,
                       "openblas_core", core, "openblas_config", cfg, "bf16_units",
                       pd_isa_bf16_units() ? Py_True : Py_False, "bf16_compute", bf16_compute(),
                       "bf16_matmul", pd_gemm_bf16_units() ? "units" : "float32");
fail:
  Py_XDECREF(levels);
  Py_XDECREF(supported);
  return NULL;
}

/* [(name, symbol the slot jumps to now, symbol of each level's copy...)]: the dispatch table as
 * the dynamic linker sees it (dladdr), for tests */
static const char *sym_of(const void *p) {
  Dl_info di;
  return p && dladdr(p, &di) && di.dli_sname && di.dli_saddr == p ? di.dli_sname : NULL;
}

static PyObject *isa_slots(PyObject *m, PyObject *unused) {
  (void)m;
  (void)unused;
  size_t n = pd_isa_nslots();
  int nl = pd_isa_nlevels();
  PyObject *out = PyList_New((Py_ssize_t)n);
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *t = PyTuple_New(2 + nl);
    if (!t) { Py_DECREF(out); return NULL; }
    PyList_SET_ITEM(out, (Py_ssize_t)i, t);
    PyObject *a = PyUnicode_FromString(pd_isa_slot_name(i));
    const char *cur = sym_of(pd_isa_slot_target(i));
    PyObject *b = cur ? PyUnicode_FromString(cur) : (Py_INCREF(Py_None), Py_None);
    if (!a || !b) { Py_XDECREF(a); Py_XDECREF(b); Py_DECREF(out); return NULL; }
    PyTuple_SET_ITEM(t, 0, a);
    PyTuple_SET_ITEM(t, 1, b);
    for (int l = 0; l < nl; l++) {
      const char *s = sym_of(pd_isa_impl(l, i));
      PyObject *c = s ? PyUnicode_FromString(s) : (Py_INCREF(Py_None), Py_None);
      if (!c) { Py_DECREF(out); return NULL; }
      PyTuple_SET_ITEM(t, 2 + l, c);
    }
  }
  return out;
}

/* _bf16_units(on): bfloat16 matmul on the units (where the CPU has them) or through float32;
 * returns the previous state (tests compare both paths in one process) */
static PyObject *bf16_units_set(PyObject *m, PyObject *arg) {
  (void)m;
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  return PyBool_FromLong(pd_gemm_bf16_set(on));
}

PyMethodDef pd_py_isa_methods[] = {
    {"_bf16_units", bf16_units_set, METH_O, "bfloat16 matmul on the bf16 units (True) or through float32"},
    {"isa_info", isa_info, METH_NOARGS,
     "instruction-set paths: active/detected level of Paddle-C's kernels, oneDNN's and OpenBLAS's"},
    {"_isa_slots", isa_slots, METH_NOARGS, "[(function, symbol it runs, symbol of each level's copy...)]"},
    {NULL, NULL, 0, NULL}};
