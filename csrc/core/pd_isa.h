/* Run-time ISA dispatch of the per-ISA kernel copies (issue 21; docs/arch/core.md "One build
 * for every x86-64 CPU with AVX2"). The library itself is x86-64-v3; the translation units listed
 * in tools/buildcfg.py ISA_SOURCES exist once per level (avx2 = x86-64-v3, avx512 = x86-64-v4) and
 * their public functions jump through a table that a load-time constructor points at one level:
 * the highest the CPU (cpuid) and the OS (XGETBV: saved vector state) support, or the one
 * PADDLE_C_ISA names when the CPU has it. */
#ifndef PD_ISA_H
#define PD_ISA_H
#include <stddef.h>

const char *pd_isa_active(void);      /* level the kernels run at ("avx2", "avx512") */
const char *pd_isa_detected(void);    /* highest built level this CPU and OS support */
const char *pd_isa_requested(void);   /* PADDLE_C_ISA as read at load time, or NULL */
const char *pd_isa_note(void);        /* why a request was not followed, or NULL */
int pd_isa_bf16_units(void);          /* the CPU has avx512_bf16 or AMX bf16 (bf16 matmul: pd_gemm.h) */
/* the bfloat16 convolutions (conv_dnnl.c) may run on the units: the CPU has them and
 * PADDLE_C_BF16_UNITS is not "0" (read on each call, so a process can switch to the fallback) */
int pd_bf16_units_enabled(void);
const char *pd_isa_cpu_features(void);/* the cpuid features the levels test, space separated */
int pd_isa_nlevels(void);
const char *pd_isa_level_name(int level);
int pd_isa_cpu_supports(int level);   /* 1 when this CPU and OS can run the level's copies */
size_t pd_isa_nslots(void);           /* dispatched functions */
const char *pd_isa_slot_name(size_t i);
const void *pd_isa_slot_target(size_t i);         /* where slot i jumps now */
const void *pd_isa_impl(int level, size_t i);     /* the level's copy of slot i */

#endif
