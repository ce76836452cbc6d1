"""paddle.static.nn layers: every case of static_nn_cases.py against real Paddle's results
(tests/python/data/static_nn_oracle.npz from tools/oracle/static_nn.py: parameter names and
shapes, outputs with LoD, gradients), Paddle 2.3's parameter naming, finite-difference gradients,
numpy references for the layers Paddle 2.6 no longer has (crf_decoding, multi_box_head) or whose
sampling differs (nce), and the static-only guards."""
import json
import os

import numpy as np
import pytest

import paddle
from static_nn_cases import CASES, is_sampler_table, param_value, run_case

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(autouse=True)
def _static():
    paddle.enable_static()
    yield
    paddle.disable_static()


@pytest.fixture(scope="module")
def oracle():
    ref = np.load(os.path.join(HERE, "data", "static_nn_oracle.npz"))
    return ref, json.loads(str(ref["meta"]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_paddle(name, oracle):
    ref, meta = oracle
    m = meta[name]
    r = run_case(paddle, name)
    assert [tuple(p) for p in m["params"] if not is_sampler_table(p[0])] == [tuple(p) for p in r["params"]]
    assert len(r["outs"]) == m["n_outs"] and len(r["grads"]) == m["n_grads"]
    for k in range(m["n_outs"]):
        want, got = ref[f"{name}/out{k}"], r["outs"][k]
        assert got.shape == want.shape and got.dtype == want.dtype, f"out{k}"
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"out{k}")
        assert r["lods"][k] == m["lods"][k], f"out{k} lod"
    for k in range(m["n_grads"]):
        np.testing.assert_allclose(r["grads"][k], ref[f"{name}/grad{k}"], rtol=1e-4, atol=1e-4, err_msg=f"grad{k}")


# ---------------------------------------------------------------------------------- helpers
def _build(fn):
    main, start = paddle.static.Program(), paddle.static.Program()
    from paddle.utils import unique_name
    with unique_name.guard(), paddle.static.program_guard(main, start):
        out = fn()
    return main, start, out


def _run(main, start, feed, fetch, scope=None, set_params=True):
    scope = scope or paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(start)
        if set_params:
            for p in main.all_parameters():
                scope.find_var(p.name).get_tensor().set(param_value(p.name, list(p.shape), p.dtype.name))
        return exe.run(main, feed=feed, fetch_list=fetch), scope


def _fd_check(build, feed, wrt, eps=1e-6, rtol=1e-5, atol=1e-6):
    """d sum(out cos(out)) / d feed[wrt] by paddle.static.gradients against central differences (float64)."""
    def fn():
        ins, out = build()
        loss = paddle.sum(out * paddle.cos(out))  # a nonlinear weighting that needs no known shape
        g = paddle.static.gradients([loss], [ins[wrt]])[0]
        return loss, g
    main, start, (loss, g) = _build(fn)
    scope = paddle.static.Scope()
    (lv, gv), scope = _run(main, start, feed, [loss, g], scope)
    base = feed[wrt]
    num = np.zeros(base.shape)
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        flat = base.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            lp = exe.run(main, feed=feed, fetch_list=[loss])[0]
            flat[i] = old - eps
            lm = exe.run(main, feed=feed, fetch_list=[loss])[0]
            flat[i] = old
            num.reshape(-1)[i] = (float(np.sum(lp)) - float(np.sum(lm))) / (2 * eps)
    np.testing.assert_allclose(gv, num, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------------- gradients vs finite differences
def test_fc_gradient_fd():
    def build():
        x = paddle.static.data("x", [3, 2, 2], "float64")
        x.stop_gradient = False
        return {"x": x}, paddle.static.nn.fc(x, 3, activation="tanh")
    _fd_check(build, {"x": np.random.RandomState(1).uniform(-1, 1, (3, 2, 2))}, "x")


def test_conv2d_gradient_fd():
    def build():
        x = paddle.static.data("x", [1, 2, 4, 4], "float64")
        x.stop_gradient = False
        return {"x": x}, paddle.static.nn.conv2d(x, 2, 3, padding=1, groups=2)
    _fd_check(build, {"x": np.random.RandomState(2).uniform(-1, 1, (1, 2, 4, 4))}, "x")


def test_group_norm_gradient_fd():
    def build():
        x = paddle.static.data("x", [-1, 4, 2, 2], "float64")
        x.stop_gradient = False
        return {"x": x}, paddle.static.nn.group_norm(x, 2)
    _fd_check(build, {"x": np.random.RandomState(3).uniform(-1, 1, (2, 4, 2, 2))}, "x", rtol=1e-4, atol=1e-5)


def test_prelu_and_layer_norm_gradient_fd():
    def build():
        x = paddle.static.data("x", [2, 3, 2], "float64")
        x.stop_gradient = False
        y = paddle.static.nn.prelu(x, "element", data_format="NCL")
        return {"x": x}, paddle.static.nn.layer_norm(y, begin_norm_axis=2)
    _fd_check(build, {"x": np.random.RandomState(4).uniform(-1, 1, (2, 3, 2))}, "x", rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------- naming and shapes
def test_parameter_names_follow_paddle_2_3():
    def fn():
        x = paddle.static.data("x", [-1, 4, 3, 3], "float32")
        paddle.static.nn.conv2d(x, 2, 1)
        paddle.static.nn.conv2d(x, 2, 1, bias_attr=False)
        paddle.static.nn.group_norm(x, 2)
        paddle.static.nn.instance_norm(x)
        paddle.static.nn.batch_norm(x)
        paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(name="my_w"))
        paddle.static.nn.layer_norm(x, begin_norm_axis=2)
        paddle.static.nn.data_norm(x, name="dn2", enable_scale_and_shift=True)
    main, _, _ = _build(fn)
    names = [(p.name, list(p.shape)) for p in main.all_parameters()]
    assert names == [("conv2d_0.w_0", [2, 4, 1, 1]), ("conv2d_0.b_0", [2]), ("conv2d_1.w_0", [2, 4, 1, 1]),
                     ("group_norm_0.w_0", [4]), ("group_norm_0.b_0", [4]),
                     ("instance_norm_0.w_0", [4]), ("instance_norm_0.b_0", [4]),
                     ("batch_norm_0.w_0", [4]), ("batch_norm_0.b_0", [4]), ("batch_norm_0.w_1", [4]),
                     ("batch_norm_0.w_2", [4]), ("my_w", [36, 2]), ("fc_0.b_0", [2]),
                     ("layer_norm_0.w_0", [9]), ("layer_norm_0.b_0", [9]),
                     ("dn2.scale_w", [4]), ("dn2.bias", [4]), ("dn2.batch_size", [4]), ("dn2.batch_sum", [4]),
                     ("dn2.batch_square_sum", [4])]
    ops = [op.type for op in main.global_block().ops]
    assert ops.count("conv2d") == 2 and "batch_norm" in ops


def test_batch_norm_updates_moving_statistics():
    def fn():
        x = paddle.static.data("x", [-1, 2], "float32")
        return paddle.static.nn.batch_norm(x, momentum=0.5)
    main, start, out = _build(fn)
    xv = np.array([[1.0, 2.0], [3.0, 6.0]], "float32")
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(start)
        y = exe.run(main, feed={"x": xv}, fetch_list=[out])[0]
        mean = np.array(scope.find_var("batch_norm_0.w_1").get_tensor())
        var = np.array(scope.find_var("batch_norm_0.w_2").get_tensor())
    np.testing.assert_allclose(y, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-5), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(mean, 0.5 * xv.mean(0), rtol=1e-6)
    np.testing.assert_allclose(var, 0.5 + 0.5 * xv.var(0), rtol=1e-5)  # the biased batch variance, as Paddle


def test_data_norm_formula():
    def fn():
        x = paddle.static.data("x", [-1, 3], "float32")
        return paddle.static.nn.data_norm(x)
    main, start, out = _build(fn)
    xv = np.random.RandomState(5).uniform(-1, 1, (4, 3)).astype("float32")
    (y,), _ = _run(main, start, {"x": xv}, [out])
    size, s, sq = (param_value(f"dn.{k}", [3]) for k in ("batch_size", "batch_sum", "batch_square_sum"))
    np.testing.assert_allclose(y, (xv - s / size) * np.sqrt(size / sq), rtol=1e-5, atol=1e-6)


def test_embedding_and_sparse_embedding():
    def fn():
        ids = paddle.static.data("ids", [-1, 2], "int64")
        return [paddle.static.nn.embedding(ids, [5, 3], padding_idx=1),
                paddle.static.nn.sparse_embedding(ids, [5, 3])]
    main, start, outs = _build(fn)
    iv = np.array([[1, 4], [0, 1]], "int64")
    (a, b), _ = _run(main, start, {"ids": iv}, outs)
    w0, w1 = param_value("embedding_0.w_0", [5, 3]), param_value("sparse_embedding_0.w_0", [5, 3])
    want = w0[iv]
    want[iv == 1] = 0
    np.testing.assert_allclose(a, want)
    np.testing.assert_allclose(b, w1[iv])


def _viterbi(x, w):
    alpha, track = w[0] + x[0], []
    for t in range(1, len(x)):
        sc = alpha[:, None] + w[2:]
        track.append(sc.argmax(0))
        alpha = sc.max(0) + x[t]
    path = [int((alpha + w[1]).argmax())]
    for tr in reversed(track):
        path.append(int(tr[path[-1]]))
    return path[::-1]


def test_crf_decoding_viterbi():
    from paddle.static.executor import create_lod_tensor

    def fn():
        e = paddle.static.data("e", [-1, 4], "float32", lod_level=1)
        lab = paddle.static.data("lab", [-1, 1], "int64", lod_level=1)
        paddle.static.create_parameter([6, 4], "float32", name="crfw")
        return [paddle.static.nn.crf_decoding(e, paddle.ParamAttr(name="crfw")),
                paddle.static.nn.crf_decoding(e, "crfw", label=lab)]
    main, start, outs = _build(fn)
    ev = np.random.RandomState(6).uniform(-2, 2, (7, 4)).astype("float32")
    lv = np.array([[0], [1], [2], [3], [0], [1], [2]], "int64")
    (path, hit), _ = _run(main, start, {"e": create_lod_tensor(ev, [[3, 4]]), "lab": create_lod_tensor(lv, [[3, 4]])},
                          outs)
    w = param_value("crfw", [6, 4]).astype("float64")
    want = np.array(_viterbi(ev[:3].astype("float64"), w) + _viterbi(ev[3:].astype("float64"), w)).reshape(-1, 1)
    np.testing.assert_array_equal(path, want)
    np.testing.assert_array_equal(hit, (want == lv).astype("int64"))
    with pytest.raises(ValueError, match="no parameter named"):
        _build(lambda: paddle.static.nn.crf_decoding(paddle.static.data("e2", [-1, 4], "float32"), "missing"))


def test_multi_box_head_shapes_and_layout():
    def fn():
        img = paddle.static.data("img", [-1, 3, 32, 32], "float32")
        a = paddle.static.data("a", [-1, 4, 4, 4], "float32")
        b = paddle.static.data("b", [-1, 4, 2, 2], "float32")
        return paddle.static.nn.multi_box_head([a, b], img, 32, 3, [[2.0], [2.0, 3.0]], min_sizes=[8.0, 16.0],
                                               max_sizes=[16.0, 24.0], flip=True)
    main, start, outs = _build(fn)
    rng = np.random.RandomState(7)
    feed = {"img": rng.rand(2, 3, 32, 32).astype("float32"), "a": rng.rand(2, 4, 4, 4).astype("float32"),
            "b": rng.rand(2, 4, 2, 2).astype("float32")}
    (loc, conf, box, var), _ = _run(main, start, feed, list(outs))
    # priors: layer a has 1 + 1 (max) + 2 (ratio 2 and flipped) = 4, layer b 6 per cell
    n = 4 * 4 * 4 + 2 * 2 * 6
    assert loc.shape == (2, n, 4) and conf.shape == (2, n, 3) and box.shape == (n, 4) and var.shape == (n, 4)
    names = [p.name for p in main.all_parameters()]
    assert names == ["conv2d_0.w_0", "conv2d_0.b_0", "conv2d_1.w_0", "conv2d_1.b_0", "conv2d_2.w_0",
                     "conv2d_2.b_0", "conv2d_3.w_0", "conv2d_3.b_0"]
    # the first layer's locations: its 1x1 conv, NHWC-flattened
    w, bias = param_value("conv2d_0.w_0", [16, 4, 1, 1]), param_value("conv2d_0.b_0", [16])
    c = np.einsum("nchw,oc->nhwo", feed["a"], w[:, :, 0, 0]) + bias
    np.testing.assert_allclose(loc[:, :64].reshape(2, -1), c.reshape(2, -1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(var, np.tile([0.1, 0.1, 0.2, 0.2], (n, 1)), rtol=1e-6)


def test_nce_against_numpy():
    def fn():
        x = paddle.static.data("x", [-1, 4], "float32")
        lab = paddle.static.data("lab", [-1, 2], "int64")
        sw = paddle.static.data("sw", [-1, 1], "float32")
        dist = [0.0] * 6
        dist[4] = 1.0
        return paddle.static.nn.nce(x, lab, 6, sample_weight=sw, num_neg_samples=3, sampler="custom_dist",
                                    custom_dist=dist)
    main, start, cost = _build(fn)
    rng = np.random.RandomState(8)
    xv, lv = rng.uniform(-1, 1, (3, 4)).astype("float32"), np.array([[1, 4], [0, 2], [5, 3]], "int64")
    swv = np.array([[1.0], [0.5], [2.0]], "float32")
    (c,), _ = _run(main, start, {"x": xv, "lab": lv, "sw": swv}, [cost])
    w, b = param_value("nce_0.w_0", [6, 4]), param_value("nce_0.b_0", [6, 1])
    q = np.zeros(6)
    q[4] = 3.0
    want = []
    for i in range(3):
        ids = list(lv[i]) + [4, 4, 4]
        o = 1 / (1 + np.exp(-(w[ids] @ xv[i] + b[ids, 0])))
        t = -np.log(o[:2] / (o[:2] + q[ids[:2]])).sum() - np.log(q[4] / (o[2:] + q[4])).sum()
        want.append(t * swv[i, 0])
    np.testing.assert_allclose(c.reshape(-1), want, rtol=1e-4)
    assert c.shape == (3, 1)


def test_nce_uniform_sampler_runs_and_trains():
    def fn():
        x = paddle.static.data("x", [-1, 4], "float32")
        lab = paddle.static.data("lab", [-1, 1], "int64")
        loss = paddle.mean(paddle.static.nn.nce(x, lab, 20, num_neg_samples=5, sampler="log_uniform", seed=3))
        paddle.optimizer.SGD(0.1).minimize(loss)
        return loss
    main, start, loss = _build(fn)
    rng = np.random.RandomState(9)
    feed = {"x": rng.uniform(-1, 1, (8, 4)).astype("float32"), "lab": rng.randint(0, 20, (8, 1)).astype("int64")}
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe = paddle.static.Executor()
        exe.run(start)
        losses = [float(np.sum(exe.run(main, feed=feed, fetch_list=[loss])[0])) for _ in range(30)]
    assert np.isfinite(losses).all() and losses[-1] < losses[0]


def test_conv2d_transpose_infers_filter_size():
    def fn():
        x = paddle.static.data("x", [-1, 2, 5, 5], "float32")
        return paddle.static.nn.conv2d_transpose(x, 3, output_size=12, stride=2, padding=0)
    main, _, out = _build(fn)
    assert list(out.shape) == [-1, 3, 12, 12]
    assert [list(p.shape) for p in main.all_parameters()] == [[2, 3, 4, 4], [3]]


# ---------------------------------------------------------------------------------- modes
def test_static_only_layers_refuse_dygraph():
    paddle.disable_static()
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    for call in (lambda: paddle.static.nn.fc(x, 2), lambda: paddle.static.nn.embedding(x, [3, 2]),
                 lambda: paddle.static.nn.prelu(x, "all"), lambda: paddle.static.nn.data_norm(x),
                 lambda: paddle.static.nn.sequence_pool(x, "sum"), lambda: paddle.static.Print(x)):
        with pytest.raises(AssertionError):
            call()


def test_layers_that_work_eagerly():
    paddle.disable_static()
    x = paddle.to_tensor(np.random.RandomState(10).rand(2, 3, 5, 5).astype("float32"))
    assert paddle.static.nn.conv2d(x, 4, 3).shape == [2, 4, 3, 3]
    assert paddle.static.nn.group_norm(x, 3).shape == [2, 3, 5, 5]
    assert paddle.static.nn.layer_norm(x).shape == [2, 3, 5, 5]
    y = paddle.static.nn.row_conv(paddle.to_tensor(np.ones((2, 4, 3), "float32")), 1)
    assert y.shape == [2, 4, 3]


def test_api_names():
    import paddle.static.nn as snn
    assert len(snn.__all__) == 40 and all(hasattr(snn, n) for n in snn.__all__)
    assert paddle.static.py_func is snn.py_func
