"""Custom C operators (issue 20): paddle.utils.cpp_extension.load/setup compile a library written
against pd_extension.h (examples/custom_op/relu_op.c); its operators run eagerly with autograd
(checked against numpy and finite differences), record into static programs in Paddle's
custom-operator form, survive paddle.jit.save/load and paddle.inference, and serve from a C
program through the C inference API, loaded by path or linked in."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import paddle
from paddle.utils import cpp_extension

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "custom_op")
PY = sys.executable


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("custom_ops"))


@pytest.fixture(scope="module")
def ops(build_dir):
    return cpp_extension.load(name="pc_custom_ops", sources=[os.path.join(EXAMPLE, "relu_op.c")],
                              build_directory=build_dir)


def _lib(build_dir):
    return os.path.join(build_dir, "pc_custom_ops", "libpc_custom_ops.so")


def test_module_and_forward(ops):
    assert sorted(ops.__all__) == ["custom_relu", "custom_scale_add"]
    rng = np.random.default_rng(0)
    for dt in ("float32", "float64"):
        xv = rng.standard_normal((3, 5)).astype(dt)
        y = ops.custom_relu(paddle.to_tensor(xv))
        assert y.dtype == paddle.to_tensor(xv).dtype and y.shape == [3, 5]
        np.testing.assert_array_equal(y.numpy(), np.maximum(xv, 0))
    # a non-contiguous input is handed over contiguous
    xv = rng.standard_normal((4, 6)).astype("float32")
    xt = paddle.to_tensor(xv).transpose([1, 0])
    np.testing.assert_array_equal(ops.custom_relu(xt).numpy(), np.maximum(xv.T, 0))
    a, b = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal((2, 3)).astype("float32")
    o0, o1 = ops.custom_scale_add(paddle.to_tensor(a), paddle.to_tensor(b), 2.5, False)
    np.testing.assert_allclose(o0.numpy(), 2.5 * a, rtol=1e-6)
    np.testing.assert_allclose(o1.numpy(), a * b, rtol=1e-6)
    o0, _ = ops.custom_scale_add(paddle.to_tensor(a), paddle.to_tensor(b), alpha=-1.0, use_bias=True)
    np.testing.assert_allclose(o0.numpy(), b - a, rtol=1e-6)


def test_gradients_against_finite_differences(ops):
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((4, 3))
    xv[np.abs(xv) < 0.05] = 0.5  # away from relu's kink
    x = paddle.to_tensor(xv, stop_gradient=False)
    w = rng.standard_normal((4, 3))
    (ops.custom_relu(x) * paddle.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w * (xv > 0))

    a = rng.standard_normal((2, 3)).astype("float32")
    b = rng.standard_normal((2, 3)).astype("float32")

    def loss(av, bv):
        at, bt = paddle.to_tensor(av, stop_gradient=False), paddle.to_tensor(bv, stop_gradient=False)
        o0, o1 = ops.custom_scale_add(at, bt, 1.5, True)
        return (o0 * o0 + 3.0 * o1).sum(), at, bt

    lv, at, bt = loss(a, b)
    lv.backward()
    eps = 1e-2
    for t, which in ((at, 0), (bt, 1)):
        num = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            args_p, args_m = [a.copy(), b.copy()], [a.copy(), b.copy()]
            args_p[which][i] += eps
            args_m[which][i] -= eps
            num[i] = (float(loss(*args_p)[0]) - float(loss(*args_m)[0])) / (2 * eps)
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=2e-2, atol=2e-2)


def test_one_output_without_gradient_gets_zeros(ops):
    a = paddle.to_tensor(np.ones((2, 2), "float32"), stop_gradient=False)
    b = paddle.to_tensor(np.full((2, 2), 3.0, "float32"), stop_gradient=False)
    o0, _ = ops.custom_scale_add(a, b, 2.0, True)
    o0.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((2, 2), 2.0))
    np.testing.assert_allclose(b.grad.numpy(), np.ones((2, 2)))


def test_bad_calls(ops):
    x = paddle.to_tensor(np.ones((2, 2), "float32"))
    with pytest.raises(TypeError, match="custom_scale_add"):
        ops.custom_scale_add(x, x, 1.0)
    with pytest.raises(TypeError, match="use_bias must be a bool"):
        ops.custom_scale_add(x, x, 1.0, 1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        ops.custom_relu(x, beta=1)
    # the kernel's own message reaches the user
    with pytest.raises(ValueError, match="float32 and float64 only"):
        ops.custom_relu(paddle.to_tensor(np.ones((2,), "int32")))
    # the infer function's message too
    with pytest.raises(ValueError, match="same shape"):
        ops.custom_scale_add(x, paddle.to_tensor(np.ones((3,), "float32")), 1.0, True)


def _compile(tmp, name, src):
    p = os.path.join(tmp, name + ".c")
    with open(p, "w") as f:
        f.write(textwrap.dedent(src))
    return p


def test_library_errors(tmp_path, ops):
    d = str(tmp_path)
    with pytest.raises(RuntimeError, match="cannot load the operator library"):
        cpp_extension.load_op_library(os.path.join(d, "missing.so"))
    no_table = _compile(d, "no_table", "int nothing(void) { return 0; }\n")
    with pytest.raises(RuntimeError, match="PD_CUSTOM_OP_LIBRARY"):
        cpp_extension.load(name="no_table", sources=[no_table], build_directory=d)
    clash = _compile(d, "clash", """
        #include "pd_extension.h"
        static int fwd(PD_ExtContext *c) { (void)c; return 0; }
        static const char *const in[] = {"X"}, *const out[] = {"Out"};
        static const PD_CustomOp ops[] = {{"custom_relu", 1, in, 1, out, 0, 0, 0, fwd, 0}};
        PD_CUSTOM_OP_LIBRARY(ops)
        """)
    with pytest.raises(RuntimeError, match="already registered"):
        cpp_extension.load(name="clash", sources=[clash], build_directory=d)
    builtin = _compile(d, "builtin", """
        #include "pd_extension.h"
        static int fwd(PD_ExtContext *c) { (void)c; return 0; }
        static const char *const in[] = {"X"}, *const out[] = {"Out"};
        static const PD_CustomOp ops[] = {{"relu", 1, in, 1, out, 0, 0, 0, fwd, 0}};
        PD_CUSTOM_OP_LIBRARY(ops)
        """)
    with pytest.raises(RuntimeError, match="built-in"):
        cpp_extension.load(name="builtin", sources=[builtin], build_directory=d)
    bad_attr = _compile(d, "bad_attr", """
        #include "pd_extension.h"
        static int fwd(PD_ExtContext *c) { (void)c; return 0; }
        static const char *const in[] = {"X"}, *const out[] = {"Out"}, *const at[] = {"name: std::string"};
        static const PD_CustomOp ops[] = {{"pc_strattr", 1, in, 1, out, 1, at, 0, fwd, 0}};
        PD_CUSTOM_OP_LIBRARY(ops)
        """)
    with pytest.raises(NotImplementedError, match="supported: int, int64, float, bool"):
        cpp_extension.load(name="bad_attr", sources=[bad_attr], build_directory=d)
    broken = _compile(d, "broken", "this is not C\n")
    with pytest.raises(RuntimeError, match="Compiling the custom operator failed"):
        cpp_extension.load(name="broken", sources=[broken], build_directory=d)
    with pytest.raises(NotImplementedError, match="CUDA"):
        cpp_extension.load(name="cu", sources=[os.path.join(d, "k.cu")], build_directory=d,
                           extra_cuda_cflags=["-O2"])


def test_no_backward_raises(tmp_path):
    d = str(tmp_path)
    src = _compile(d, "nobw", """
        #include <string.h>
        #include "pd_extension.h"
        static int fwd(PD_ExtContext *c) {
          memcpy(c->outs[0].data, c->ins[0].data, (size_t)c->ins[0].numel * 4);
          return 0;
        }
        static const char *const in[] = {"X"}, *const out[] = {"Out"};
        static const PD_CustomOp ops[] = {{"pc_copy_nobw", 1, in, 1, out, 0, 0, 0, fwd, 0}};
        PD_CUSTOM_OP_LIBRARY(ops)
        """)
    m = cpp_extension.load(name="nobw", sources=[src], build_directory=d)
    x = paddle.to_tensor(np.arange(4, dtype="float32"), stop_gradient=False)
    y = m.pc_copy_nobw(x)
    np.testing.assert_array_equal(y.numpy(), np.arange(4))
    with pytest.raises(NotImplementedError, match="no backward function"):
        y.sum().backward()


def test_static_program_form_and_gradients(ops):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 4], "float32")
            x.stop_gradient = False
            y = ops.custom_relu(x)
            o0, o1 = ops.custom_scale_add(y, x, 2.0, False)
            loss = paddle.mean(o0 + o1)
            (gx,) = paddle.static.gradients([loss], [x])
        types = [op.type for op in main.global_block().ops]
        assert types[:2] == ["custom_relu", "custom_scale_add"]
        assert "custom_scale_add_grad" in types and "custom_relu_grad" in types
        op = main.global_block().ops[1]
        assert op.input("X") == [y.name] and op.input("Y") == ["x"]
        assert op.attr("alpha") == 2.0 and op.attr("use_bias") is False
        g = main.global_block().ops[types.index("custom_scale_add_grad")]
        assert g.input("Out0@GRAD") and g.output("X@GRAD") and g.output("Y@GRAD")
        exe = paddle.static.Executor()
        exe.run(startup)
        xv = np.random.default_rng(2).standard_normal((3, 4)).astype("float32")
        yv, gv = exe.run(main, feed={"x": xv}, fetch_list=[y, gx])
        r = np.maximum(xv, 0)
        np.testing.assert_array_equal(yv, r)
        # loss = mean(2 relu(x) + relu(x) x): d/dx = (2 [x>0] + [x>0] x + relu(x)) / n
        np.testing.assert_allclose(gv, (2 * (xv > 0) + (xv > 0) * xv + r) / xv.size, rtol=1e-5, atol=1e-7)
    finally:
        paddle.disable_static()


class _Net(paddle.nn.Layer):
    def __init__(self, ops):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.ops = ops

    def forward(self, x):
        return self.ops.custom_relu(self.fc(x))


@pytest.fixture(scope="module")
def saved(ops, build_dir):
    paddle.seed(3)
    net = _Net(ops)
    xv = np.random.default_rng(4).standard_normal((5, 4)).astype("float32")
    ref = net(paddle.to_tensor(xv)).numpy()
    st = paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    np.testing.assert_allclose(st(paddle.to_tensor(xv)).numpy(), ref, rtol=1e-6)
    prefix = os.path.join(build_dir, "model", "inference")
    paddle.jit.save(st, prefix)
    xv.tofile(os.path.join(build_dir, "x.f32"))
    return prefix, xv, ref


def test_jit_save_load_and_inference(saved):
    prefix, xv, ref = saved
    ld = paddle.jit.load(prefix)
    np.testing.assert_allclose(ld(paddle.to_tensor(xv)).numpy(), ref, rtol=1e-6)
    cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    p = paddle.inference.create_predictor(cfg)
    h = p.get_input_handle(p.get_input_names()[0])
    h.copy_from_cpu(xv)
    p.run()
    np.testing.assert_allclose(p.get_output_handle(p.get_output_names()[0]).copy_to_cpu(), ref, rtol=1e-6)


def _fresh(code, cwd):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([PY, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_fresh_process_needs_the_library(saved, build_dir):
    prefix, xv, ref = saved
    r = _fresh(f"import paddle; m = paddle.jit.load({prefix!r}); m(paddle.ones([2, 4]))", build_dir)
    assert r.returncode != 0 and "custom_relu" in r.stderr and "load its library" in r.stderr, r.stderr
    code = (f"import numpy as np, paddle\n"
            f"paddle.utils.cpp_extension.load_op_library({_lib(build_dir)!r})\n"
            f"m = paddle.jit.load({prefix!r})\n"
            f"x = np.fromfile({os.path.join(build_dir, 'x.f32')!r}, 'float32').reshape(5, 4)\n"
            f"np.save('fresh_out.npy', m(paddle.to_tensor(x)).numpy())\n")
    r = _fresh(code, build_dir)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(os.path.join(build_dir, "fresh_out.npy")), ref, rtol=1e-6)


def _pkgconfig():
    libs = paddle.sysconfig.get_lib()
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(libs, "pkgconfig"))
    out = subprocess.run(["pkg-config", "--cflags", "--libs", "paddle_inference_c"], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return out


@pytest.mark.skipif(shutil.which("pkg-config") is None, reason="pkg-config is installed by scripts/deps.sh")
def test_serve_from_c(saved, build_dir):
    prefix, xv, ref = saved
    src = os.path.join(EXAMPLE, "serve_custom_op.c")
    lib = _lib(build_dir)
    libdir = os.path.dirname(lib)
    by_path = os.path.join(build_dir, "serve_by_path")
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", src, "-o", by_path] + _pkgconfig(), check=True)
    linked = os.path.join(build_dir, "serve_linked")
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", src, "-o", linked, "-Wl,--no-as-needed", f"-L{libdir}",
                    "-lpc_custom_ops", f"-Wl,-rpath,{libdir}"] + _pkgconfig(), check=True)
    args = [prefix + ".pdmodel", prefix + ".pdiparams", os.path.join(build_dir, "x.f32"), "5", "4"]
    for cmd in ([by_path] + args + [lib], [linked] + args):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        got = np.array([float(v) for v in r.stdout.split()], "float32").reshape(ref.shape)
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    # without the library the C API says which operator it lacks
    r = subprocess.run([by_path] + args, capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "custom_relu" in r.stderr


def test_setup_builds_an_importable_package(tmp_path):
    d = str(tmp_path)
    shutil.copy(os.path.join(EXAMPLE, "relu_op.c"), d)
    with open(os.path.join(d, "setup.py"), "w") as f:
        f.write("from paddle.utils.cpp_extension import CppExtension, setup\n"
                "setup(name='pc_setup_ops', ext_modules=CppExtension(sources=['relu_op.c']))\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([PY, "setup.py", "-q", "build", "--build-lib", "out"], cwd=d, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    code = ("import numpy as np, paddle, pc_setup_ops\n"
            "y = pc_setup_ops.custom_relu(paddle.to_tensor(np.array([-1.0, 2.0], 'float32')))\n"
            "print(y.numpy().tolist())\n")
    env["PYTHONPATH"] = os.path.join(d, "out") + os.pathsep + env["PYTHONPATH"]
    r = subprocess.run([PY, "-c", code], cwd=d, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[0.0, 2.0]"
