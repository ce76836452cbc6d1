"""The CPU check that runs before paddle._C is loaded (issue 21; docs/arch/core.md "One build
for every x86-64 CPU with AVX2"). The library is compiled for x86-64-v3; on a CPU without it the
first AVX2 instruction would kill the process with SIGILL, so `import paddle` raises ImportError
with the missing features instead. (The library's own load-time check, csrc/core/pd_isa.c, covers
C programs: it prints the same and aborts.) Imports nothing of paddle."""
import platform

# x86-64-v3 as /proc/cpuinfo names it (lzcnt is "abm"); the v2 set comes with any of these CPUs
V3_FLAGS = ("avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe", "xsave")


def missing_features(flags):
    """The x86-64-v3 features absent from a /proc/cpuinfo flag set."""
    return [f for f in V3_FLAGS if f not in flags]


def _cpuinfo_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def check():
    if platform.machine() not in ("x86_64", "AMD64"):
        return
    flags = _cpuinfo_flags()
    if flags is None:  # no /proc: the library's own check (pd_isa.c) still refuses cleanly
        return
    miss = missing_features(flags)
    if miss:
        raise ImportError("Paddle-C needs an x86-64 CPU with AVX2 (x86-64-v3: AVX2, FMA, F16C, BMI1/2, LZCNT, "
                          f"MOVBE, with the OS saving AVX state); this CPU lacks: {', '.join(miss)}")
