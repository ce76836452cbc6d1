/* The C inference API's small pieces: the thread's API error (code + message), strings and the
 * PD_OneDimArray* / PD_IOInfos helpers with their destroy functions, dtype codes, the version and
 * the run-time bfloat16 check (pd_isa_bf16_units: AVX512_BF16 or AMX-BF16, and the OS saving the state). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_infer_internal.h"
#include "../ops/custom_op.h"
#include "../core/pd_isa.h"

_Static_assert((int)PD_ERROR_TYPE == (int)PD_ERR_TYPE, "PD_ErrorCode follows pd_status");

static _Thread_local int t_code;
static _Thread_local char t_msg[2048];

void pd_api_clear(void) {
  t_code = 0;
  t_msg[0] = 0;
}

int pd_api_fail(pd_status s) {
  t_code = s == PD_OK ? PD_ERR_FATAL : (int)s;
  const char *m = pd_last_error();
  snprintf(t_msg, sizeof t_msg, "%s", m && m[0] ? m : pd_status_name(s));
  return 0;
}

int pd_api_failf(pd_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t_msg, sizeof t_msg, fmt, ap);
  va_end(ap);
  t_code = (int)s;
  return 0;
}

PD_ErrorCode PD_GetLastErrorCode(void) { return t_code; }
const char *PD_GetLastErrorMsg(void) { return t_msg; }
void PD_ClearLastError(void) { pd_api_clear(); }

char *pd_api_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

PD_Cstr *pd_api_cstr(const char *s) {
  PD_Cstr *c = (PD_Cstr *)calloc(1, sizeof *c);
  if (!c) return NULL;
  if (s && s[0]) {
    c->data = pd_api_strdup(s);
    if (!c->data) {
      free(c);
      return NULL;
    }
    c->size = strlen(s) + 1;
  }
  return c;
}

PD_OneDimArrayCstr *pd_api_cstr_array(int n, char *const *names) {
  PD_OneDimArrayCstr *a = (PD_OneDimArrayCstr *)calloc(1, sizeof *a);
  if (!a) return NULL;
  a->data = (char **)calloc((size_t)(n ? n : 1), sizeof(char *));
  if (!a->data) {
    free(a);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    a->data[i] = pd_api_strdup(names[i]);
    if (!a->data[i]) {
      PD_OneDimArrayCstrDestroy(a);
      return NULL;
    }
    a->size++;
  }
  return a;
}

PD_DataType pd_api_dtype_out(int dtype) {
  switch (dtype) {
    case PD_FLOAT32: return PD_DATA_FLOAT32;
    case PD_INT32: return PD_DATA_INT32;
    case PD_INT64: return PD_DATA_INT64;
    case PD_UINT8: return PD_DATA_UINT8;
    case PD_INT8: return PD_DATA_INT8;
    case PD_FLOAT16: return PD_DATA_FLOAT16;
    case PD_BOOL: return PD_DATA_BOOL;
    case PD_FLOAT64: return PD_DATA_FLOAT64;
    default: return PD_DATA_UNK;
  }
}

int pd_api_dtype_in(PD_DataType t) {
  switch (t) {
    case PD_DATA_FLOAT32: return PD_FLOAT32;
    case PD_DATA_INT32: return PD_INT32;
    case PD_DATA_INT64: return PD_INT64;
    case PD_DATA_UINT8: return PD_UINT8;
    case PD_DATA_INT8: return PD_INT8;
    case PD_DATA_FLOAT16: return PD_FLOAT16;
    case PD_DATA_BOOL: return PD_BOOL;
    case PD_DATA_FLOAT64: return PD_FLOAT64;
    default: return -1;
  }
}

size_t PD_GetNumBytesOfDataType(PD_DataType dtype) {
  pd_api_clear();
  int d = pd_api_dtype_in(dtype);
  if (d < 0) {
    pd_api_failf(PD_ERR_INVALID_ARGUMENT, "PD_GetNumBytesOfDataType: %d is not a data type", (int)dtype);
    return 0;
  }
  return pd_dtype_size((pd_dtype)d);
}

PD_Bool PD_LoadCustomOpLibrary(const char *path) {
  pd_api_clear();
  pd_status s = pd_custom_load_library(path, NULL);
  return s == PD_OK ? 1 : (PD_Bool)pd_api_fail(s);
}

const char *PD_GetVersion(void) {
  pd_api_clear();
  return "version: 2.3.0 (Paddle-C 0.1.0, the C inference API of Paddle 2.x)\ncommit: paddle-c\nbranch: main\n";
}

/* ---------------------------------------------------------------- bfloat16 support (cpuid) */
/* the CPU's bf16 units (pd_isa.c reads cpuid and XCR0); PADDLE_C_FAKE_NO_BF16=1 plays a CPU without */
int pd_infer_cpu_has_bf16(void) {
  const char *e = getenv("PADDLE_C_FAKE_NO_BF16");
  if (e && e[0] == '1') return 0;
  return pd_isa_bf16_units();
}

PD_Bool PD_CpuHasBfloat16(void) {
  pd_api_clear();
  return pd_infer_cpu_has_bf16() ? TRUE : FALSE;
}

/* ---------------------------------------------------------------- destroy functions */
void PD_OneDimArrayInt32Destroy(PD_OneDimArrayInt32 *a) {
  if (!a) return;
  free(a->data);
  free(a);
}
void PD_OneDimArrayInt64Destroy(PD_OneDimArrayInt64 *a) {
  if (!a) return;
  free(a->data);
  free(a);
}
void PD_OneDimArraySizeDestroy(PD_OneDimArraySize *a) {
  if (!a) return;
  free(a->data);
  free(a);
}
void PD_OneDimArrayCstrDestroy(PD_OneDimArrayCstr *a) {
  if (!a) return;
  for (size_t i = 0; a->data && i < a->size; i++) free(a->data[i]);
  free(a->data);
  free(a);
}
void PD_TwoDimArraySizeDestroy(PD_TwoDimArraySize *a) {
  if (!a) return;
  for (size_t i = 0; a->data && i < a->size; i++) PD_OneDimArraySizeDestroy(a->data[i]);
  free(a->data);
  free(a);
}
void PD_CstrDestroy(PD_Cstr *c) {
  if (!c) return;
  free(c->data);
  free(c);
}
void PD_IOInfoDestroy(PD_IOInfo *i) {
  if (!i) return;
  PD_CstrDestroy(i->name);
  PD_OneDimArrayInt64Destroy(i->shape);
  free(i);
}
void PD_IOInfosDestroy(PD_IOInfos *i) {
  if (!i) return;
  for (size_t k = 0; i->io_info && k < i->size; k++) PD_IOInfoDestroy(i->io_info[k]);
  free(i->io_info);
  free(i);
}
