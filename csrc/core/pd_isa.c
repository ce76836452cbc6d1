/* Run-time ISA dispatch (see pd_isa.h). This file is compiled for plain x86-64 (tools/buildcfg.py
 * FILE_FLAGS) and calls nothing of the library: its constructor runs first, on any x86-64 CPU,
 * refuses a CPU below the x86-64-v3 baseline with a message instead of an illegal instruction
 * later, and points the dispatch slots at one level before any kernel can be called. */
#include "core/pd_isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

typedef void (*pd_isa_fn)(void);
/* generated at build time by tools/isa_build.py (pd_isa_table.c) */
extern pd_isa_fn pd_isa_slots[];
extern const pd_isa_fn *const pd_isa_impls[];
extern const char *const pd_isa_level_names[];
extern const char *const pd_isa_slot_names[];
extern const size_t pd_isa_count_slots, pd_isa_count_levels;

enum { F_V3 = 1, F_V4 = 2 };
static int g_active = 0, g_detected = -1, g_caps = 0;
static const char *g_requested = NULL;
static char g_requested_buf[64];
static char g_note[256];
static char g_features[256];

#if defined(__x86_64__)
static unsigned long long xgetbv0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

static void feat(int have, const char *name) {
    if (!have)
        return;
    size_t n = strlen(g_features);
    if (n + strlen(name) + 2 < sizeof g_features)
        snprintf(g_features + n, sizeof g_features - n, "%s%s", n ? " " : "", name);
}

/* F_V3: x86-64-v3 (AVX, AVX2, FMA, F16C, BMI1, BMI2, LZCNT, MOVBE + the v2 set) with the OS saving
 * the YMM state; F_V4: also AVX512F/BW/CD/DQ/VL with the opmask and ZMM state saved. */
static int cpu_caps(void) {
    int caps = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d, b7 = 0, c7 = 0, d7 = 0, ce = 0, a71 = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    unsigned c1 = c;
    if (__get_cpuid_max(0, NULL) >= 7) {
        unsigned max7;
        __cpuid_count(7, 0, max7, b7, c7, d7);
        if (max7 >= 1)
            __cpuid_count(7, 1, a71, b, c, d);
    }
    if (__get_cpuid_max(0x80000000u, NULL) >= 0x80000001u) {
        __cpuid(0x80000001u, a, b, ce, d);
    }
    (void)c7;
    (void)d7;
    int osxsave = (c1 >> 27) & 1;
    unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
    int os_ymm = (xcr0 & 0x6) == 0x6, os_zmm = (xcr0 & 0xe6) == 0xe6;
    int sse3 = c1 & 1, ssse3 = (c1 >> 9) & 1, fma = (c1 >> 12) & 1, cx16 = (c1 >> 13) & 1,
        sse41 = (c1 >> 19) & 1, sse42 = (c1 >> 20) & 1, movbe = (c1 >> 22) & 1, popcnt = (c1 >> 23) & 1,
        avx = (c1 >> 28) & 1, f16c = (c1 >> 29) & 1;
    int bmi1 = (b7 >> 3) & 1, avx2 = (b7 >> 5) & 1, bmi2 = (b7 >> 8) & 1, lzcnt = (ce >> 5) & 1;
    int f512 = (b7 >> 16) & 1, dq = (b7 >> 17) & 1, cd = (b7 >> 28) & 1, bw = (b7 >> 30) & 1, vl = (b7 >> 31) & 1;
    feat(avx, "avx"); feat(avx2, "avx2"); feat(fma, "fma"); feat(f16c, "f16c"); feat(bmi1, "bmi1");
    feat(bmi2, "bmi2"); feat(lzcnt, "lzcnt"); feat(movbe, "movbe"); feat(os_ymm, "os_ymm");
    feat(f512, "avx512f"); feat(bw, "avx512bw"); feat(cd, "avx512cd"); feat(dq, "avx512dq");
    feat(vl, "avx512vl"); feat(os_zmm, "os_zmm");
    /* the bfloat16 units (pd_isa_bf16_units; the bf16 matmul of gemm_bf16.c runs on them, the bf16
     * convolutions of conv_dnnl.c through pd_bf16_units_enabled):
     * AVX512_BF16 dot products (leaf 7.1 EAX bit 5) and AMX tiles (leaf 7.0 EDX bits 22, 24) with
     * the OS saving their state (XCR0 bits 17-18 for the tiles) */
    int os_amx = (xcr0 & 0x60000) == 0x60000;
    feat(((a71 >> 5) & 1) && f512 && os_zmm, "avx512_bf16");
    feat(((d7 >> 22) & 1) && ((d7 >> 24) & 1) && os_amx, "amx_bf16");
    if (sse3 && ssse3 && cx16 && sse41 && sse42 && popcnt && avx && avx2 && fma && f16c && movbe && bmi1 &&
        bmi2 && lzcnt && os_ymm)
        caps |= F_V3;
    if ((caps & F_V3) && f512 && dq && cd && bw && vl && os_zmm)
        caps |= F_V4;
#endif
    return caps;
}

static int level_needs(const char *name) {
    if (strcmp(name, "avx2") == 0)
        return F_V3;
    if (strcmp(name, "avx512") == 0)
        return F_V3 | F_V4;
    return -1; /* a level this file does not know: never chosen */
}

int pd_isa_cpu_supports(int level) {
    if (level < 0 || (size_t)level >= pd_isa_count_levels)
        return 0;
    int need = level_needs(pd_isa_level_names[level]);
    return need >= 0 && (g_caps & need) == need;
}

__attribute__((constructor(101))) static void pd_isa_init(void) {
    g_caps = cpu_caps();
    if (!(g_caps & F_V3)) {
        fprintf(stderr, "Paddle-C: this CPU (or its OS) lacks the x86-64-v3 instruction set the library is "
                        "built for (AVX2, FMA, F16C, BMI1/2, LZCNT, MOVBE with AVX state enabled; found: %s). "
                        "It needs an x86-64 CPU with AVX2 (Intel Haswell / AMD Excavator or newer).\n",
                g_features[0] ? g_features : "none of them");
        abort();
    }
    for (int l = (int)pd_isa_count_levels - 1; l >= 0; l--)
        if (pd_isa_cpu_supports(l)) {
            g_detected = l;
            break;
        }
    int pick = g_detected;
    const char *req = getenv("PADDLE_C_ISA");
    if (req && req[0] && strcmp(req, "auto") != 0) {
        snprintf(g_requested_buf, sizeof g_requested_buf, "%s", req);
        g_requested = g_requested_buf;
        int want = -1;
        for (size_t l = 0; l < pd_isa_count_levels; l++)
            if (strcmp(req, pd_isa_level_names[l]) == 0)
                want = (int)l;
        if (want < 0) {
            snprintf(g_note, sizeof g_note, "PADDLE_C_ISA=%.32s is not a level of this build (avx2, avx512, auto); "
                     "using %s", req, pd_isa_level_names[pick]);
        } else if (!pd_isa_cpu_supports(want)) {
            snprintf(g_note, sizeof g_note, "PADDLE_C_ISA=%s: this CPU or its OS lacks %s; using %s", req, req,
                     pd_isa_level_names[pick]);
        } else {
            pick = want;
        }
        if (g_note[0])
            fprintf(stderr, "Paddle-C warning: %s\n", g_note);
    }
    g_active = pick < 0 ? 0 : pick;
    const pd_isa_fn *impl = pd_isa_impls[g_active];
    for (size_t i = 0; i < pd_isa_count_slots; i++)
        pd_isa_slots[i] = impl[i];
}

const char *pd_isa_active(void) { return pd_isa_level_names[g_active]; }
const char *pd_isa_detected(void) { return g_detected < 0 ? "none" : pd_isa_level_names[g_detected]; }
const char *pd_isa_requested(void) { return g_requested; }
const char *pd_isa_note(void) { return g_note[0] ? g_note : NULL; }
const char *pd_isa_cpu_features(void) { return g_features; }

int pd_isa_bf16_units(void) { return strstr(g_features, "avx512_bf16") != NULL || strstr(g_features, "amx_bf16") != NULL; }
int pd_bf16_units_enabled(void) {
    if (!pd_isa_bf16_units())
        return 0;
    const char *e = getenv("PADDLE_C_BF16_UNITS");
    return !(e && strcmp(e, "0") == 0);
}
int pd_isa_nlevels(void) { return (int)pd_isa_count_levels; }
const char *pd_isa_level_name(int level) {
    return level >= 0 && (size_t)level < pd_isa_count_levels ? pd_isa_level_names[level] : NULL;
}
size_t pd_isa_nslots(void) { return pd_isa_count_slots; }
const char *pd_isa_slot_name(size_t i) { return i < pd_isa_count_slots ? pd_isa_slot_names[i] : NULL; }
const void *pd_isa_slot_target(size_t i) { return i < pd_isa_count_slots ? (const void *)pd_isa_slots[i] : NULL; }
const void *pd_isa_impl(int level, size_t i) {
    if (level < 0 || (size_t)level >= pd_isa_count_levels || i >= pd_isa_count_slots)
        return NULL;
    return (const void *)pd_isa_impls[level][i];
}
