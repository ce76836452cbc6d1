"""paddle.save / paddle.load: the real Paddle files in ../shared/fixtures (pickle protocols 2
and 4, name tables), round trips of state dicts / nested containers / single tensors for every
protocol, atomic writes, and refusal of pickles that reference code or are corrupt."""
import os
import pickle

import numpy as np
import pytest

import paddle

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "paddle_models")
needs_fixtures = pytest.mark.skipif(not os.path.isdir(FIX), reason="../shared/fixtures not present")


@needs_fixtures
def test_loads_real_paddle_files():
    d = paddle.load(os.path.join(FIX, "pdparams_only", "mnist_mlp_pickle2.pdparams"), keep_name_table=True)
    table = d.pop("StructuredToParameterName@@")
    assert list(d) == ["1.weight", "1.bias", "4.weight", "4.bias"]
    assert table["1.weight"] == "linear_0.w_0" and table["4.bias"] == "linear_1.b_0"
    assert d["1.weight"].shape == [784, 512] and d["1.weight"].dtype == paddle.float32
    assert sum(t.size for t in d.values()) == 407050
    assert np.isfinite(d["1.weight"].numpy()).all() and float(d["1.weight"].abs().sum()) > 0
    bn = paddle.load(os.path.join(FIX, "pdparams_only", "tabular_mlp_bn_pickle4.pdparams"))
    assert len(bn) == 24 and "blocks.0.normalization._variance" in bn
    assert (bn["blocks.0.normalization._variance"].numpy() > 0).all()
    lstm = paddle.load(os.path.join(FIX, "pdparams_only", "text_lstm_pickle4.pdparams"), return_numpy=True)
    assert lstm["embedding.weight"].shape == (4411, 128)
    np.testing.assert_array_equal(lstm["lstm.weight_ih_l0"], lstm["lstm.0.cell.weight_ih"])
    clas = paddle.load(os.path.join(FIX, "paddleclas_mbv3_small_3cls", "latest.pdparams"))
    assert len(clas) == 214


def _roundtrip(obj, tmp_path, protocol, **kw):
    p = str(tmp_path / f"x_{protocol}.pdparams")
    paddle.save(obj, p, protocol=protocol)
    return paddle.load(p, **kw)


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_state_dict_roundtrip(tmp_path, protocol):
    lin = paddle.create_parameter([3, 4], "float32")
    sd = {"fc.weight": lin, "fc.bias": paddle.to_tensor([1.0, 2.0, 3.0, 4.0])}
    back = _roundtrip(sd, tmp_path, protocol, keep_name_table=True)
    assert back["StructuredToParameterName@@"]["fc.weight"] == lin.name
    np.testing.assert_array_equal(back["fc.weight"].numpy(), lin.numpy())
    raw = pickle.load(open(tmp_path / f"x_{protocol}.pdparams", "rb"))
    assert isinstance(raw["fc.weight"], np.ndarray)  # Paddle's layout: plain numpy arrays


def test_nested_and_single_tensor(tmp_path):
    obj = {"epoch": 3, "lr": 0.1, "stats": [paddle.to_tensor([1, 2]), {"m": paddle.ones([2])}],
           "name": "run"}
    back = _roundtrip(obj, tmp_path, 4)
    assert back["epoch"] == 3 and back["name"] == "run"
    assert back["stats"][0].tolist() == [1, 2] and back["stats"][1]["m"].tolist() == [1.0, 1.0]
    t = paddle.to_tensor([[1.5, 2.5]])
    t2 = _roundtrip(t, tmp_path, 4)
    assert isinstance(t2, paddle.Tensor) and t2.tolist() == [[1.5, 2.5]] and t2.name == t.name
    assert isinstance(_roundtrip(t, tmp_path, 2, return_numpy=True), np.ndarray)


def test_layer_state_dict_roundtrip(tmp_path):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter([2, 3])

    a, b = Net(), Net()
    p = str(tmp_path / "net.pdparams")
    paddle.save(a.state_dict(), p)
    b.set_state_dict(paddle.load(p))
    np.testing.assert_array_equal(a.w.numpy(), b.w.numpy())


def test_refuses_code_and_corrupt_files(tmp_path):
    evil = tmp_path / "evil.pdparams"

    class Boom:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    with open(evil, "wb") as f:
        pickle.dump({"x": Boom()}, f)
    with pytest.raises(pickle.UnpicklingError, match="never executes code"):
        paddle.load(str(evil))
    assert not (tmp_path / "pwned").exists()
    bad = tmp_path / "bad.pdparams"
    good = tmp_path / "good.pdparams"
    paddle.save({"w": paddle.ones([100])}, str(good))
    data = open(good, "rb").read()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a valid Paddle file"):
        paddle.load(str(bad))
    bad.write_bytes(b"\x00garbage" * 10)
    with pytest.raises((ValueError, pickle.UnpicklingError)):
        paddle.load(str(bad))
    with pytest.raises(ValueError, match="does not exist"):
        paddle.load(str(tmp_path / "nope.pdparams"))


def test_save_errors_and_atomic(tmp_path):
    with pytest.raises(ValueError):
        paddle.save({"a": paddle.ones([1])}, str(tmp_path / "x"), protocol=5)
    with pytest.raises(ValueError):
        paddle.save({"a": paddle.ones([1])}, str(tmp_path) + "/")
    p = tmp_path / "sub" / "m.pdparams"
    paddle.save({"a": paddle.ones([2])}, str(p))
    assert p.exists() and not any(n.name.startswith("m.pdparams.tmp") for n in p.parent.iterdir())
