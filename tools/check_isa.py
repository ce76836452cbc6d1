"""Checks a built Paddle-C library (paddle/_C*.so, libpaddle_inference_c.so, build/libpaddle_c.so
or an object) for instructions above its baseline (issue 21; docs/arch/core.md "One build for
every x86-64 CPU with AVX2"):

- outside the functions suffixed `__avx512` (the per-ISA copies, tools/isa_build.py) there is no
  AVX-512: no zmm register, no opmask register k0-k7, no xmm/ymm 16-31, no AVX-512-only mnemonic;
- the `__avx512` copies do use AVX-512 (the level's flags took effect) unless --no-avx512-needed;
- the load-time check (csrc/core/pd_isa.c: pd_isa_init and what it calls) has no VEX/EVEX
  instruction at all: it must run on any x86-64 CPU to refuse one below x86-64-v3 cleanly.

Usage: python tools/check_isa.py LIB [LIB...]  (exit status 1 and the offending lines on failure)"""
import bisect
import re
import subprocess
import sys

AVX512_REG = re.compile(r"%zmm\d|%k[0-7]\b|\{%k[0-7]\}|%[xy]mm(1[6-9]|2\d|3[01])\b")
AVX512_MNEMONIC = re.compile(
    r"^(k(mov|and|andn|or|xor|xnor|not|ortest|test|shift[lr]|unpck|add)[bwdq]?\w*"
    r"|vpternlog[dq]|vperm[it]2\w+|v(p)?compress\w*|v(p)?expand\w*|vfixupimm\w+|vrndscale\w+|vscalef\w+"
    r"|vgetexp\w+|vgetmant\w+|vrange\w+|vreduce\w+|vpmovm2\w|vpmov[bwdq]2m|vpmov(us|s)?(db|dw|qb|qw|qd|wb)"
    r"|vpconflict\w|vplzcnt\w|vpro[lr]v?[dq]|vbroadcast[fi](32x[248]|64x[24])|vextract[fi](32x[48]|64x[24])"
    r"|vinsert[fi](32x[48]|64x[24])|valign[dq]|vpabsq|vpm(ax|in)[su]q|vcvtt?(ps|pd|ss|sd)2u\w+|vcvt(u)?qq2\w+"
    r"|vcvtu(dq|si)2\w+|vcvtt?p[sd]2qq|vrcp14\w+|vrsqrt14\w+|vrcp28\w+|vrsqrt28\w+|vblendm\w+|vpblendm\w"
    r"|vptestn?m\w|vpcmpu?[bwdq]|vmovdq[au](8|16|32|64)|vpmullq|vpsraq|vpsravq|vpsllvw|vpsrlvw|vpsravw"
    r"|vfpclass\w+|vdbpsadbw|vpmadd52\w+|vcvtne2ps2bf16|vcvtneps2bf16|vdpbf16ps|vpshufbitqmb|vpopcnt[bwdq]"
    r"|vshuf[fi](32x4|64x2)|vpermw)\b")
FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$", re.M)
INSN = re.compile(r"^\s+[0-9a-f]+:\t(\S+)[ \t]*(.*)$", re.M)
PRE_CHECK = re.compile(r"^(pd_isa_init|cpu_caps|feat|xgetbv0|level_needs|pd_isa_cpu_supports)(\.\w+)*$")
# a quick pass finds the lines worth parsing: AVX-512 registers, k-registers, or a mnemonic of the list
SUSPECT = re.compile(r"^\s+[0-9a-f]+:\t(?:[^\n]*(?:%zmm|%k[0-7]|%[xy]mm(?:1[6-9]|2\d|3[01])\b)|"
                     + AVX512_MNEMONIC.pattern.lstrip("^") + ")[^\n]*$", re.M)


def scan(path, need_avx512=True):
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att", path], capture_output=True,
                         text=True, check=True).stdout
    funcs = [(m.start(), m.group(1)) for m in FUNC.finditer(dis)]
    starts = [p for p, _ in funcs]
    n_insn = dis.count(":\t")

    def owner(pos):
        i = bisect.bisect_right(starts, pos) - 1
        return funcs[i][1] if i >= 0 else "?"

    bad, n512 = [], 0
    for m in SUSPECT.finditer(dis):
        im = INSN.match(m.group(0))
        if not im or not (AVX512_REG.search(im.group(2)) or AVX512_MNEMONIC.match(im.group(1))):
            continue
        fn = owner(m.start()).split("@")[0]
        if "__avx512" in fn:
            n512 += 1
        else:
            bad.append(f"{path}: AVX-512 outside an __avx512 copy, in <{fn}>: {m.group(0).strip()}")
    for i, (pos, fn) in enumerate(funcs):  # the load-time check: no VEX at all
        if PRE_CHECK.match(fn.split("@")[0]):
            body = dis[pos:funcs[i + 1][0] if i + 1 < len(funcs) else len(dis)]
            for im in INSN.finditer(body):
                if im.group(1).startswith("v") or "%ymm" in im.group(2):
                    bad.append(f"{path}: VEX instruction in the load-time CPU check <{fn}>: {im.group(0).strip()}")
    if need_avx512 and n512 == 0:
        bad.append(f"{path}: no AVX-512 instruction in the __avx512 copies: were they built with x86-64-v4?")
    return bad, n_insn, n512


def main(argv):
    need = "--no-avx512-needed" not in argv
    paths = [a for a in argv if not a.startswith("--")]
    if not paths:
        print(__doc__)
        return 2
    fails = []
    for p in paths:
        bad, n, n512 = scan(p, need)
        print(f"{p}: {n} instructions, {n512} AVX-512 ones, all inside __avx512 copies" if not bad else
              f"{p}: {len(bad)} problem(s)")
        fails += bad
    for b in fails[:50]:
        print(b)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
