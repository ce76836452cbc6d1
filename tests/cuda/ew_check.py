"""GPU check of the elementwise launchers against the CPU kernels, without _C's GPU runtime.

  nvcc -std=c++17 -O2 -DEW_LIB_ONLY tests/cuda/ew_harness.cu -o ew_harness -ldl
                                  (or without -DEW_LIB_ONLY, linked with build/cuda/ew_*.o elementwise.o:
                                  launchers alone, stub error/stream functions; `ew_harness bench` times them)
  python ew_check.py gen DIR      (our paddle on the CPU: writes DIR/manifest.txt, inputs, expected)
  EW_LIB=python/paddle/libs/libpaddle_c_cuda.so ew_harness DIR OUT
                                  (on the GPU machine: runs every case, writes OUT/out_*.bin)
  python ew_check.py cmp DIR OUT  (compares; prints one line per failing case and a summary)

Cases: every op of pd_cuda_elementwise.h x every real/bool dtype the CPU kernel takes, in four
layouts (contiguous 1037 elements; numpy broadcast [37,1] x [1,29]; a transposed strided view;
an unaligned contiguous view), with NaN / inf / signed zeros among the float inputs; casts of
every dtype pair; fills; where. Not a pytest file: the lead's GPU sweep supersedes it."""
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HDR = os.path.join(HERE, "..", "..", "csrc", "cuda", "pd_cuda_elementwise.h")
DT = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
ES = [1, 1, 1, 2, 4, 8, 2, 2, 4, 8]
NP = {"bool": np.uint8, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
      "int64": np.int64, "float16": np.float16, "bfloat16": np.uint16, "float32": np.float32,
      "float64": np.float64}
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def codes(prefix):
    txt = re.sub(r"/\*.*?\*/", "", open(HDR).read(), flags=re.S)
    out = []
    for n in re.findall(prefix + r"([A-Z0-9_]+)", txt):
        if n != "NUM_OPS" and n not in out:
            out.append(n)
    return {n.lower(): i for i, n in enumerate(out)}


UN = codes("PD_CU_UN_")
BIN = codes("PD_CU_BIN_")
UN_OPNAME = {k: k for k in UN}
BIN_OPNAME = {k: k for k in BIN}
BIN_OPNAME["pow"] = "elementwise_pow"


def bf16_bits(f32):
    u = np.asarray(f32, np.float32).view(np.uint32).astype(np.uint64)
    nan = np.isnan(np.asarray(f32, np.float32))
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    r[nan] = 0x7FC0
    return r


def bits_to_f32(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


def gen_values(dt, n, rng, op):
    if dt == "bool":
        return rng.integers(0, 2, n).astype(np.uint8)
    if dt in INTS:
        lo, hi = (0, 40) if dt == "uint8" else (-20, 20)
        if op in ("pow",) and op_kind == "B":
            lo, hi = 0, 6
        return rng.integers(lo, hi, n).astype(NP[dt])
    v = rng.uniform(-3, 3, n)
    if op in ("log", "log2", "log10", "sqrt", "rsqrt", "acosh"):
        v = rng.uniform(0.05, 4, n)
    if op in ("asin", "acos", "atanh", "erfinv", "logit"):
        v = rng.uniform(-0.99, 0.99, n)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 2.5, -2.5]
    k = min(len(specials), n)
    v[:k] = specials[:k]
    if dt == "bfloat16":
        return bf16_bits(v.astype(np.float32))
    return v.astype(NP[dt])


op_kind = "U"


def to_paddle(paddle, arr, dt):
    if dt == "bfloat16":
        return paddle.to_tensor(bits_to_f32(arr)).astype("bfloat16")
    if dt == "bool":
        return paddle.to_tensor(arr.astype(bool))
    return paddle.to_tensor(arr)


def from_paddle(t, dt):
    if dt == "bfloat16":
        return bf16_bits(t.astype("float32").numpy())
    a = t.numpy()
    if dt == "bool":
        return a.astype(np.uint8)
    return a.astype(NP[dt])


# op -> (CPU args after the tensors, GPU params (f0, f1, f2, i0, i1, flag)) per dtype class
def params(op, dt, variant):
    isint = dt in INTS
    if op == "pow":
        return ([3 if isint else 2.5], (3.0 if isint else 2.5, 0, 0, 0, 0, 0))
    if op == "logit":
        return ([0.1], (0.1, 0, 0, 0, 0, 0))
    if op == "clip":
        return ([-3, 7], (-3.0, 7.0, 0, -3, 7, 0)) if isint else ([-1.5, 2.0], (-1.5, 2.0, 0, 0, 0, 0))
    if op == "scale":
        after = variant % 2 == 0
        if isint:
            return ([3, 2, after], (3.0, 2.0, 0, 3, 2, int(after)))
        return ([2.5, 0.5, after], (2.5, 0.5, 0, 0, 0, int(after)))
    if op in ("leaky_relu", "leaky_relu_grad"):
        return ([0.1], (0.1, 0, 0, 0, 0, 0))
    if op in ("elu", "elu_grad"):
        return ([0.7], (0.7, 0, 0, 0, 0, 0))
    if op == "hardsigmoid":
        return ([0.2, 0.5], (0.2, 0.5, 0, 0, 0, 0))
    if op == "hardsigmoid_grad":
        return ([0.2], (0.2, 0, 0, 0, 0, 0))
    if op == "softplus":
        return ([2.0, 3.0], (2.0, 3.0, 0.5, 0, 0, 0))
    if op == "softplus_grad":
        return ([2.0, 3.0], (2.0, 3.0, 0, 0, 0, 0))
    if op in ("mish", "mish_grad"):
        return ([20.0], (20.0, 0, 0, 0, 0, 0))
    if op in ("gelu", "gelu_grad"):
        ap = variant % 2 == 1
        return ([ap], (0, 0, 0, 0, 0, int(ap)))
    return ([], (0, 0, 0, 0, 0, 0))


def layouts(kind):
    # (out shape, [(buffer len, offset, strides)] per input)
    n = 1037
    out = [("contig", [n], [(n, 0, [1])] * (2 if kind == "B" else 1))]
    out.append(("unaligned", [n], [(n + 1, 1, [1])] * (2 if kind == "B" else 1)))
    if kind == "B":
        out.append(("bcast", [37, 29], [(37, 0, [1, 0]), (29, 0, [0, 1])]))
        out.append(("scalar", [5, 7], [(35, 0, [7, 1]), (1, 0, [0, 0])]))
    else:
        out.append(("transposed", [29, 37], [(37 * 29, 0, [1, 29])]))
    return out


def view(buf, off, shape, strides):
    es = buf.itemsize
    return np.lib.stride_tricks.as_strided(buf[off:], shape=shape, strides=[s * es for s in strides]).copy()


def gen(d):
    global op_kind
    import paddle
    ops = paddle._C._C_ops
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(0)
    man = open(os.path.join(d, "manifest.txt"), "w")
    cid = 0
    skipped = []
    cases = []
    for kind, table, names in (("U", UN, UN_OPNAME), ("B", BIN, BIN_OPNAME)):
        for op, code in table.items():
            name = names[op]
            for dt in DT:
                for variant in range(2 if op in ("scale", "gelu", "gelu_grad") else 1):
                    for lname, oshape, ins in layouts(kind):
                        op_kind = kind
                        bufs = []
                        for k, (ln, off, st) in enumerate(ins):
                            b = gen_values(dt, ln, rng, op)
                            if kind == "B" and k == 1 and dt in INTS and op in ("divide", "floor_divide", "remainder"):
                                b[b == 0] = 3
                            if kind == "B" and k == 1 and dt in INTS and op == "pow":
                                b = rng.integers(0, 6, ln).astype(NP[dt])
                            bufs.append(b)
                        cargs, gp = params(op, dt, variant)
                        try:
                            ts = [to_paddle(paddle, view(b, off, oshape, st), dt) for b, (ln, off, st) in zip(bufs, ins)]
                            r = getattr(ops, name)(*ts, *cargs)
                        except Exception as e:  # the CPU kernel does not take this dtype
                            if lname == "contig":
                                skipped.append(f"{name}:{dt} ({type(e).__name__})")
                            continue
                        odt = str(r.dtype).replace("paddle.", "")
                        want = dt
                        if op in ("isnan", "isinf", "isfinite", "logical_not") or (kind == "B" and BIN[op] >= BIN["equal"] and BIN[op] <= BIN["logical_xor"]):
                            want = "bool"
                        if op == "atan2" and dt in INTS:
                            want = "float64"
                        if odt != want:  # the runner casts first (truediv): not this launcher's case
                            continue
                        exp = from_paddle(r, odt)
                        cases.append((cid, f"{kind}:{name}:{dt}:{lname}:{variant}", odt))
                        line = [cid, kind, code, DT.index(odt), len(oshape), *oshape, len(ins)]
                        for k, (b, (ln, off, st)) in enumerate(zip(bufs, ins)):
                            b.tofile(os.path.join(d, f"in_{cid}_{k}.bin"))
                            line += [DT.index(dt), ln, off, len(oshape), *oshape, *st]
                        line += list(gp)
                        man.write(" ".join(str(x) for x in line) + "\n")
                        exp.tofile(os.path.join(d, f"exp_{cid}.bin"))
                        cid += 1
    # casts: every pair, contiguous and transposed
    for s in DT:
        for t in DT:
            for lname, oshape, ins in layouts("U"):
                ln, off, st = ins[0]
                b = gen_values(s, ln, rng, "cast")
                if s in FLOATS:  # out-of-range and NaN conversions too
                    extra = np.array([300.7, -1.5, 3e9, -3e9, 1e20, -129.9, 65537.2, 70000.0], np.float64)
                    if s == "bfloat16":
                        b[9:17] = bf16_bits(extra.astype(np.float32))
                    else:
                        with np.errstate(over="ignore"):
                            b[9:17] = extra.astype(NP[s])
                r = to_paddle(paddle, view(b, off, oshape, st), s).astype(t)
                exp = from_paddle(r, t)
                cases.append((cid, f"C:cast:{s}->{t}:{lname}:0", t))
                b.tofile(os.path.join(d, f"in_{cid}_0.bin"))
                line = [cid, "C", 0, DT.index(t), len(oshape), *oshape, 1, DT.index(s), ln, off, len(oshape), *oshape, *st,
                        0, 0, 0, 0, 0, 0]
                man.write(" ".join(str(x) for x in line) + "\n")
                exp.tofile(os.path.join(d, f"exp_{cid}.bin"))
                cid += 1
    # broadcast copy (src of fewer dims: the launcher broadcasts)
    for t in ("float32", "int64", "bfloat16"):
        b = gen_values("float32", 29, rng, "cast")
        r = paddle.to_tensor(b).astype(t).expand([37, 29])
        exp = from_paddle(r, t)
        cases.append((cid, f"C:expand:float32->{t}:bcast:0", t))
        b.tofile(os.path.join(d, f"in_{cid}_0.bin"))
        line = [cid, "C", 0, DT.index(t), 2, 37, 29, 1, DT.index("float32"), 29, 0, 1, 29, 1, 0, 0, 0, 0, 0, 0]
        man.write(" ".join(str(x) for x in line) + "\n")
        exp.tofile(os.path.join(d, f"exp_{cid}.bin"))
        cid += 1
    # fills
    for t in DT:
        for v in (0.0, 1.5, -2.75, 3e9, float("nan"), 65519.0, -1.0):
            try:
                ref = np.empty(1037, NP[t])
                # pd_store_from_double: integers through int64, 16-bit floats rounded from double
                if t == "bool":
                    ref[:] = v != 0
                elif t in INTS:
                    iv = np.array([v]).astype(np.int64)[0] if v == v else np.int64(-2**63)
                    ref[:] = np.array([iv], np.int64).astype(NP[t])[0]
                elif t == "bfloat16":
                    ref[:] = bf16_bits(np.float32(v))  # exact for these values
                else:
                    ref[:] = np.array([v]).astype(NP[t])[0]
            except Exception:
                continue
            cases.append((cid, f"F:fill:{t}:{v}:contig:0", t))
            line = [cid, "F", 0, DT.index(t), 1, 1037, 0, v, 0, 0, 0, 0, 0]
            man.write(" ".join(str(x) for x in line) + "\n")
            ref.tofile(os.path.join(d, f"exp_{cid}.bin"))
            cid += 1
    # where
    for t in DT:
        for lname, oshape, ins3 in (("contig", [1037], [(1037, 0, [1])] * 3),
                                    ("bcast", [37, 29], [(37, 0, [1, 0]), (29, 0, [0, 1]), (1, 0, [0, 0])])):
            c = gen_values("bool", ins3[0][0], rng, "where")
            x = gen_values(t, ins3[1][0], rng, "where")
            y = gen_values(t, ins3[2][0], rng, "where")
            cv, xv, yv = (view(b, i[1], oshape, i[2]) for b, i in zip((c, x, y), ins3))
            r = paddle.where(to_paddle(paddle, cv, "bool"), to_paddle(paddle, xv, t), to_paddle(paddle, yv, t))
            exp = from_paddle(r, t)
            cases.append((cid, f"W:where:{t}:{lname}:0", t))
            line = [cid, "W", 0, DT.index(t), len(oshape), *oshape, 3]
            for k, (b, (ln, off, st), dt) in enumerate(zip((c, x, y), ins3, ("bool", t, t))):
                b.tofile(os.path.join(d, f"in_{cid}_{k}.bin"))
                line += [DT.index(dt), ln, off, len(oshape), *oshape, *st]
            line += [0, 0, 0, 0, 0, 0]
            man.write(" ".join(str(x) for x in line) + "\n")
            exp.tofile(os.path.join(d, f"exp_{cid}.bin"))
            cid += 1
    man.close()
    with open(os.path.join(d, "cases.txt"), "w") as f:
        for c in cases:
            f.write(f"{c[0]} {c[1]} {c[2]}\n")
    print(f"{cid} cases; CPU kernel missing (not sent): {len(skipped)}")


def cmp(d, o):
    res = {}
    for line in open(os.path.join(o, "results.txt")):
        i, rc, code, msg = line.rstrip("\n").split(" ", 3)
        res[int(i)] = (int(rc), int(code), msg)
    bad = ok = unsup = 0
    for line in open(os.path.join(d, "cases.txt")):
        i, desc, odt = line.split()
        i = int(i)
        if i not in res:
            print("MISSING", desc)
            bad += 1
            continue
        rc, code, msg = res[i]
        if rc != 0:
            if code == 4:
                unsup += 1
                print("UNSUPPORTED", desc, msg)
            else:
                bad += 1
                print("ERROR", desc, rc, code, msg)
            continue
        exp = np.fromfile(os.path.join(d, f"exp_{i}.bin"), NP[odt])
        got = np.fromfile(os.path.join(o, f"out_{i}.bin"), NP[odt])[: exp.size]
        if odt == "bfloat16":
            exp, got = bits_to_f32(exp), bits_to_f32(got)
        if odt in FLOATS:
            rtol = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-5, "float64": 1e-10}[odt]
            e64, g64 = exp.astype(np.float64), got.astype(np.float64)
            good = np.isclose(g64, e64, rtol=rtol, atol=rtol, equal_nan=True)
        else:
            good = exp == got
        if good.all():
            ok += 1
        else:
            bad += 1
            k = np.flatnonzero(~good)[:4]
            print("MISMATCH", desc, f"{(~good).sum()}/{good.size}", "idx", k.tolist(), "exp", exp[k].tolist(),
                  "got", got[k].tolist())
    print(f"ok {ok}  bad {bad}  unsupported {unsup}")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        cmp(sys.argv[2], sys.argv[3])
