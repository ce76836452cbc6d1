"""Checkpoint compatibility with real PaddlePaddle 2.6.2 (issue 23). The constructions of
tools/oracle/checkpoint_cases.py (layers, recurrent layers in every direction and layer count,
attention and transformers, the vision models) were run by real Paddle, which recorded
(expected/checkpoints.json) each one's ordered state_dict keys with shapes and dtypes and its
outputs with every entry set deterministically from its key and shape. Here Paddle-C builds the
same constructions: the keys must be Paddle's, in Paddle's order; the outputs with those weights
Paddle's (float32 tolerance); and our paddle.save / paddle.load round trip must reproduce them.
The recording also exchanged checkpoints between the two frameworks (Paddle loads ours, we load
Paddle's); the flags are asserted here, and the committed small Paddle-written .pdparams
(expected/checkpoints/) are loaded again. known.CHECKPOINTS lists the models laid out as Paddle
2.3 with other keys than Paddle 2.6.2's; where those are the same tensors renamed, Paddle's keys
must load and give Paddle's outputs. The constructions of known.CHECKPOINTS_LEVEL23 build another
network at each API level (FLAGS_set_to_1d at construction) and run at both, whatever the flag of
the run: with the flag off (Paddle 2.6) everything equals Paddle 2.6.2's, at the default level they
are documented differences; a checkpoint of the other level's network loads where it is the same
tensors renamed and warns, naming the flag, otherwise."""
import contextlib
import json
import os
import sys
import warnings

import pytest

import paddle

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "oracle"))
sys.path.insert(0, HERE)
import checkpoint_cases as C  # noqa: E402
from known import CHECKPOINTS as KNOWN  # noqa: E402  (documented differences, with reasons)
from known import CHECKPOINTS_LEVEL23 as KNOWN23  # noqa: E402  (at the Paddle 2.3 level only)

with open(os.path.join(HERE, "expected", "checkpoints.json")) as f:
    EXPECTED = json.load(f)

def test_every_construction_is_recorded():
    assert sorted(C.CASES) == sorted(EXPECTED["cases"])
    assert EXPECTED["paddle"].startswith("2.6")


@contextlib.contextmanager
def api_level(level):
    """FLAGS_set_to_1d for level "2.3" (on) or "2.6" (off), restored after; None: the run's own."""
    old = paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]
    if level is not None:
        paddle.set_flags({"FLAGS_set_to_1d": level == "2.3"})
    try:
        yield
    finally:
        paddle.set_flags({"FLAGS_set_to_1d": old})


def _known(name):
    """The documented difference of name at the API level in force, or None."""
    if name in KNOWN23 and paddle.get_flags(["FLAGS_set_to_1d"])["FLAGS_set_to_1d"]:
        return KNOWN23[name]
    return KNOWN.get(name)


@pytest.mark.parametrize("name,level", [(n, None) for n in sorted(C.CASES) if n not in KNOWN23]
                         + [(n, lv) for n in sorted(KNOWN23) for lv in ("2.3", "2.6")])
def test_checkpoint_equals_paddles(name, level, tmp_path):
    with api_level(level):
        _check_construction(name, tmp_path)


def _check_construction(name, tmp_path):
    exp = EXPECTED["cases"][name]
    m = C.build(paddle, name)
    if _known(name):
        assert C.keys(m) != exp["keys"], "keys now equal Paddle's: remove it from known.CHECKPOINTS"
        loads, why = _known(name)
        if not loads:
            pytest.skip(why)
        # Paddle's state_dict (its keys with the deterministic values) loads and gives Paddle's outputs
        vals = {k: paddle.to_tensor(C.det_value(k, shape, dt)) for k, shape, dt in exp["keys"]}
        missing, unexpected = m.set_state_dict(vals)
        assert list(missing) == [] and list(unexpected) == []
    else:
        assert C.keys(m) == exp["keys"]
        if "outputs" not in exp:
            return
        C.set_det_weights(paddle, m)
    # saved before the forward (SpectralNorm's power iteration updates its u / v in place)
    path = str(tmp_path / "m.pdparams")
    paddle.save(m.state_dict(), path)
    why = C.agree(exp["outputs"], C.outputs(paddle, m, name))
    assert why is None, why
    # our own save / load round trip into a fresh model
    got = C.load_into(paddle, name, path)
    assert got["missing"] == [] and got["unexpected"] == []
    why = C.agree(exp["outputs"], got["outputs"])
    assert why is None, why


@pytest.mark.parametrize("name", C.CROSS)
def test_checkpoints_exchanged_with_real_paddle(name):
    """Recorded by the oracle run: real Paddle loaded the .pdparams Paddle-C saved and gave its own
    outputs, and Paddle-C loaded the one real Paddle saved and gave Paddle's outputs."""
    cross = EXPECTED["cross"][name]
    exp = EXPECTED["cases"][name]["outputs"]
    for way in ("paddle_loads_ours", "ours_loads_paddles"):
        r = cross[way]
        assert "error" not in r, (way, r.get("error"))
        assert r["agree"] is True and r["missing"] == [] and r["unexpected"] == [], way
        assert C.agree(exp, r["outputs"]) is None, way


@pytest.mark.parametrize("name", sorted(KNOWN23))
def test_other_level_checkpoint(name):
    """A checkpoint of the other API level's network. Where the two levels are the same tensors
    renamed (known entry True: MobileNetV1, InceptionV3) it loads at either level, without a hint,
    and gives the other network's outputs (the deterministic weights depend on the key names, so
    they differed before). Otherwise: nn.Layer's missing / unexpected keys (every key, no value
    copied) and one warning that names FLAGS_set_to_1d."""
    nets = {}
    for level in ("2.3", "2.6"):
        with api_level(level):
            nets[level] = C.build(paddle, name)
            C.set_det_weights(paddle, nets[level])
    for level, other in (("2.3", "2.6"), ("2.6", "2.3")):
        m, sd = nets[level], nets[other].state_dict()
        before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            missing, unexpected = m.set_state_dict(sd)
        if KNOWN23[name][0]:
            assert (list(missing), list(unexpected)) == ([], [])
            assert not [x for x in w if "FLAGS_set_to_1d" in str(x.message)]
            assert [v.shape for v in m.state_dict().values()] == [v.shape for v in sd.values()]
            assert all((a.numpy() == b.numpy()).all() for a, b in zip(m.state_dict().values(), sd.values()))
            assert C.agree(C.outputs(paddle, nets[other], name), C.outputs(paddle, m, name)) is None
            continue
        assert list(missing) == list(m.state_dict()) and sorted(unexpected) == sorted(sd)
        hints = [str(x.message) for x in w if "FLAGS_set_to_1d" in str(x.message)]
        assert len(hints) == 1 and f"Paddle {level}'s network" in hints[0], hints
        assert all((v.numpy() == before[k]).all() for k, v in m.state_dict().items())
        # its own level's checkpoint loads without the hint
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert m.set_state_dict(m.state_dict()) == ([], [])
        assert not [x for x in w if "FLAGS_set_to_1d" in str(x.message)]


@pytest.mark.parametrize("name", C.COMMITTED)
def test_loads_paddle_written_pdparams(name):
    """The .pdparams real Paddle 2.6.2 wrote (committed) give Paddle's outputs here."""
    got = C.load_into(paddle, name, C.pdparams_path(name))
    assert got["missing"] == [] and got["unexpected"] == []
    why = C.agree(EXPECTED["cases"][name]["outputs"], got["outputs"])
    assert why is None, why


def test_group_norm_without_affine_keeps_frozen_parameters():
    """GroupNorm(weight_attr=False, bias_attr=False) has Paddle's weight / bias keys (ones and zeros)
    that get no gradient."""
    m = paddle.nn.GroupNorm(2, 4, weight_attr=False, bias_attr=False)
    assert m.weight.stop_gradient and m.bias.stop_gradient
    x = paddle.to_tensor(C.det_value("x", [2, 4, 3], "float32"), stop_gradient=False)
    m(x).sum().backward()
    assert m.weight.grad is None and x.grad is not None
    assert (m.weight.numpy() == 1).all() and (m.bias.numpy() == 0).all()
