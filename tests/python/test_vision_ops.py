"""paddle.vision.ops: nms against a plain numpy greedy NMS (scores, categories, top_k), the RoI
layers against the numpy references of tests/ops/ref_vision.py and closed forms, deform_conv2d
against conv2d (zero offsets) and shifted inputs (integer offsets), yolo_box / yolo_loss
through the Python API, decode_jpeg against PIL, read_file round trips, and the argument
errors Paddle raises."""
import os
import sys

import numpy as np
import pytest
from PIL import Image

import paddle
import paddle.nn.functional as F
from paddle.vision import ops

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import ref_vision  # noqa: E402


def T(a, sg=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = sg
    return t


def random_boxes(rng, n, scale=10.0):
    xy = rng.uniform(0, scale, (n, 2))
    wh = rng.uniform(0.5, scale / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype("float32")


def greedy_nms(boxes, scores, thr):
    """Textbook NMS: repeatedly take the best remaining box, drop those overlapping it by IoU > thr."""
    def iou(a, b):
        iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        inter = iw * ih
        return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)
    remaining = list(np.argsort(-scores, kind="stable"))
    keep = []
    while remaining:
        i = remaining.pop(0)
        keep.append(i)
        remaining = [j for j in remaining if iou(boxes[i], boxes[j]) <= thr]
    return np.array(keep, dtype=np.int64)


# ---------------------------------------------------------------- nms
def test_module_surface():
    for n in ["nms", "roi_align", "RoIAlign", "roi_pool", "RoIPool", "psroi_pool", "PSRoIPool", "deform_conv2d",
              "DeformConv2D", "yolo_box", "yolo_loss", "read_file", "decode_jpeg", "box_coder", "prior_box"]:
        assert n in ops.__all__ and callable(getattr(paddle.vision.ops, n))


def test_nms_without_scores_keeps_input_order():
    rng = np.random.default_rng(0)
    b = random_boxes(rng, 40)
    for thr in (0.1, 0.3, 0.7):
        got = ops.nms(T(b), thr).numpy()
        # without scores the boxes are taken as already sorted: scores decreasing with the index
        np.testing.assert_array_equal(got, greedy_nms(b, -np.arange(40.0), thr))
    assert ops.nms(T(b), 0.3).dtype == paddle.int64


def test_nms_with_scores_returns_original_indices_by_score():
    rng = np.random.default_rng(1)
    b = random_boxes(rng, 50)
    s = rng.permutation(50).astype("float32")
    got = ops.nms(T(b), 0.4, T(s)).numpy()
    np.testing.assert_array_equal(got, greedy_nms(b, s, 0.4))
    assert np.all(np.diff(s[got]) < 0)
    np.testing.assert_array_equal(ops.nms(T(b), 0.4, T(s), top_k=3).numpy(), greedy_nms(b, s, 0.4)[:3])


def test_nms_by_category_and_top_k():
    rng = np.random.default_rng(2)
    b = random_boxes(rng, 60, 6.0)
    s = rng.permutation(60).astype("float32")
    cat = rng.integers(0, 3, 60).astype("int64")
    want = np.concatenate([np.nonzero(cat == c)[0][greedy_nms(b[cat == c], s[cat == c], 0.3)] for c in range(3)])
    want = want[np.argsort(-s[want], kind="stable")]
    got = ops.nms(T(b), 0.3, T(s), T(cat), [0, 1, 2]).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ops.nms(T(b), 0.3, T(s), T(cat), [0, 1, 2], 5).numpy(), want[:5])
    # a category left out of `categories` contributes nothing
    got1 = ops.nms(T(b), 0.3, T(s), T(cat), [1]).numpy()
    assert set(got1) == set(want[cat[want] == 1])


def test_nms_errors():
    b = T(np.array([[0, 0, 1, 1], [0, 0, 1, 1]], "float32"))
    with pytest.raises(ValueError, match="nms"):
        ops.nms(T(np.zeros((3, 5), "float32")))
    with pytest.raises(ValueError, match="categories"):
        ops.nms(b, 0.5, T(np.array([1.0, 2.0], "float32")), T(np.array([0, 0], "int64")))
    with pytest.raises(ValueError, match="top_k"):
        ops.nms(b, 0.5, T(np.array([1.0, 2.0], "float32")), T(np.array([0, 0], "int64")), [0], 3)
    with pytest.raises(ValueError, match="iou_threshold"):
        ops.nms(b, 1.5)
    with pytest.raises(TypeError, match="boxes"):
        ops.nms(np.zeros((2, 4)))


# ---------------------------------------------------------------- RoI ops
def test_roi_align_on_a_linear_plane_matches_the_closed_form():
    # bilinear sampling of a linear function is exact, so each bin is the function at its centre
    H, W = 6, 8
    plane = np.add.outer(2.0 * np.arange(H), 0.5 * np.arange(W))  # f(y, x) = 2y + 0.5x
    x = np.stack([plane, -plane])[None].astype("float64")
    box = np.array([[1.0, 0.5, 6.0, 4.5]])
    for aligned in (True, False):
        out = ops.roi_align(T(x), T(box), T(np.array([1], "int32")), (2, 2), sampling_ratio=2,
                            aligned=aligned).numpy()
        off = 0.5 if aligned else 0.0
        x1, y1, x2, y2 = box[0] - off
        for i in range(2):
            for j in range(2):
                cy = y1 + (i + 0.5) * (y2 - y1) / 2
                cx = x1 + (j + 0.5) * (x2 - x1) / 2
                assert out[0, 0, i, j] == pytest.approx(2 * cy + 0.5 * cx, abs=1e-12)
                assert out[0, 1, i, j] == pytest.approx(-(2 * cy + 0.5 * cx), abs=1e-12)


def test_roi_layers_match_functional_and_reference():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 10, 9)).astype("float32")
    boxes = np.array([[0.5, 1.0, 6.2, 7.9], [2.0, 2.0, 8.5, 9.0], [1.2, 0.3, 4.4, 3.1]], "float32")
    num = np.array([2, 1], "int32")
    ra = ops.RoIAlign((2, 3), spatial_scale=0.8)(T(x), T(boxes), T(num)).numpy()
    np.testing.assert_allclose(ra, ref_vision.roi_align(x, boxes, num, 2, 3, 0.8, -1, True), rtol=1e-5, atol=1e-5)
    rp = ops.RoIPool(3, 0.8)(T(x), T(boxes), T(num)).numpy()
    np.testing.assert_array_equal(rp, ref_vision.roi_pool(x, boxes, num, 3, 3, 0.8)[0])
    np.testing.assert_array_equal(rp, ops.roi_pool(T(x), T(boxes), T(num), 3, 0.8).numpy())
    ps = ops.PSRoIPool(2, 1.0)(T(x), T(boxes), T(num)).numpy()
    assert ps.shape == (3, 2, 2, 2)
    np.testing.assert_allclose(ps, ref_vision.psroi_pool(x, boxes, num, 2, 2, 2, 1.0), rtol=1e-5, atol=1e-5)
    assert "output_size" in repr(ops.RoIAlign(7))


def test_roi_align_backward_and_roi_pool_backward():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 6, 6))
    boxes = np.array([[0.3, 0.4, 4.1, 5.2], [1.5, 1.0, 5.5, 4.0]])
    num = np.array([1, 1], "int32")
    xt = T(x, sg=False)
    ops.roi_align(xt, T(boxes), T(num), 2).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), ref_vision.roi_align_grad(boxes, num, np.ones((2, 3, 2, 2)),
                                                                          x.shape, 2, 2, 1.0, -1, True), atol=1e-12)
    # roi_pool: each bin's gradient lands on its argmax
    xt2 = T(x, sg=False)
    ops.roi_pool(xt2, T(boxes), T(num), 2).sum().backward()
    _, am = ref_vision.roi_pool(x, boxes, num, 2, 2, 1.0)
    np.testing.assert_allclose(xt2.grad.numpy(), ref_vision.roi_pool_grad(num, am, np.ones(am.shape), x.shape))


def test_roi_errors():
    x = T(np.zeros((2, 4, 5, 5), "float32"))
    b = T(np.array([[0, 0, 2, 2], [1, 1, 3, 3]], "float32"))
    with pytest.raises(ValueError, match="boxes_num"):
        ops.roi_align(x, b, None, 2)
    with pytest.raises(TypeError, match="output_size"):
        ops.roi_align(x, b, T(np.array([1, 1], "int32")), "2")
    with pytest.raises(ValueError, match="roi_align.*sum"):
        ops.roi_align(x, b, T(np.array([1, 2], "int32")), 2)
    with pytest.raises(ValueError, match="roi_pool.*boxes_num"):
        ops.roi_pool(x, b, T(np.array([2], "int32")), 2)
    with pytest.raises(ValueError, match="roi_align.*boxes"):
        ops.roi_align(x, T(np.zeros((2, 5), "float32")), T(np.array([1, 1], "int32")), 2)
    with pytest.raises(ValueError, match="psroi_pool"):
        ops.psroi_pool(x, b, T(np.array([1, 1], "int32")), 3)
    with pytest.raises(TypeError, match="boxes_num"):
        ops.roi_align(x, b, T(np.array([1.0, 1.0], "float32")), 2)
    with pytest.raises(ValueError, match="finite"):
        ops.roi_align(x, T(np.array([[0, 0, np.inf, 2], [1, 1, 3, 3]], "float32")), T(np.array([1, 1], "int32")), 2)


# ---------------------------------------------------------------- deformable convolution
@pytest.mark.parametrize("stride,padding,dilation,groups", [(1, 0, 1, 1), (2, 1, 1, 2), (1, 2, 2, 1)])
def test_deform_conv2d_zero_offset_equals_conv2d(stride, padding, dilation, groups):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 9, 8)).astype("float64")
    w = rng.standard_normal((6, 4 // groups, 3, 3))
    bias = rng.standard_normal(6)
    ref = F.conv2d(T(x), T(w), T(bias), stride, padding, dilation, groups).numpy()
    Ho, Wo = ref.shape[2:]
    off = np.zeros((2, 18, Ho, Wo))
    got1 = ops.deform_conv2d(T(x), T(off), T(w), T(bias), stride, padding, dilation, 1, groups).numpy()
    got2 = ops.deform_conv2d(T(x), T(off), T(w), T(bias), stride, padding, dilation, 1, groups,
                             mask=T(np.ones((2, 9, Ho, Wo)))).numpy()
    np.testing.assert_allclose(got1, ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got2, ref, rtol=1e-10, atol=1e-10)


def test_deform_conv2d_integer_offsets_shift_the_input_and_mask_scales():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 7, 7))
    w = rng.standard_normal((3, 2, 3, 3))
    off = np.zeros((1, 18, 5, 5))
    off[:, 1::2] = 1.0  # every tap moves one pixel right: the same as convolving x shifted left
    shifted = np.zeros_like(x)
    shifted[..., :-1] = x[..., 1:]
    ref = F.conv2d(T(shifted), T(w)).numpy()
    np.testing.assert_allclose(ops.deform_conv2d(T(x), T(off), T(w)).numpy(), ref, atol=1e-10)
    half = ops.deform_conv2d(T(x), T(off), T(w), mask=T(np.full((1, 9, 5, 5), 0.5))).numpy()
    np.testing.assert_allclose(half, 0.5 * ref, atol=1e-10)


def test_deform_conv2d_layer_and_backward():
    paddle.seed(7)
    m = ops.DeformConv2D(4, 6, 3, padding=1, deformable_groups=2, groups=2)
    assert m.weight.shape == [6, 2, 3, 3] and m.bias.shape == [6]
    np.testing.assert_array_equal(m.bias.numpy(), 0)
    assert abs(float(m.weight.numpy().std()) - (2.0 / 36) ** 0.5) < 0.12
    rng = np.random.default_rng(7)
    x = T(rng.standard_normal((1, 4, 5, 5)).astype("float32"), sg=False)
    off = T(rng.uniform(-1, 1, (1, 36, 5, 5)).astype("float32"), sg=False)
    mask = T(rng.uniform(0, 1, (1, 18, 5, 5)).astype("float32"), sg=False)
    y = m(x, off, mask)
    ref = ref_vision.deform_conv(x.numpy(), off.numpy(), m.weight.numpy(), mask.numpy(), (1, 1), (1, 1), (1, 1), 2, 2)
    np.testing.assert_allclose(y.numpy(), ref + m.bias.numpy()[None, :, None, None], rtol=1e-4, atol=1e-4)
    y.sum().backward()
    for t in (x, off, mask, m.weight, m.bias):
        assert t.grad is not None and t.grad.shape == t.shape
    np.testing.assert_allclose(m.bias.grad.numpy(), np.full(6, 25.0), rtol=1e-6)
    assert m(x, off).shape == [1, 6, 5, 5]  # DCN v1


def test_deform_conv2d_errors():
    x = T(np.zeros((1, 4, 5, 5), "float32"))
    w = T(np.zeros((2, 4, 3, 3), "float32"))
    with pytest.raises(ValueError, match="deformable_conv.*offset"):
        ops.deform_conv2d(x, T(np.zeros((1, 18, 4, 4), "float32")), w)
    with pytest.raises(ValueError, match="deformable_conv.*mask"):
        ops.deform_conv2d(x, T(np.zeros((1, 18, 3, 3), "float32")), w, mask=T(np.zeros((1, 8, 3, 3), "float32")))
    with pytest.raises(ValueError, match="divisible by groups"):
        ops.DeformConv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="deformable_groups"):
        ops.deform_conv2d(x, T(np.zeros((1, 54, 3, 3), "float32")), w, deformable_groups=3)


# ---------------------------------------------------------------- yolo
def test_yolo_box_single_cell_closed_form():
    # one anchor, one class, a 1x1 grid: every output follows the documented formulas
    tx, ty, tw, th, to, tc = 0.3, -0.2, 0.1, -0.4, 2.0, 0.5
    x = np.array([tx, ty, tw, th, to, tc], "float64").reshape(1, 6, 1, 1)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    boxes, scores = ops.yolo_box(T(x), T(np.array([[100, 200]], "int32")), [20, 40], 1, 0.1, 32, clip_bbox=False)
    cx, cy = sig(tx) * 200, sig(ty) * 100
    bw, bh = np.exp(tw) * 20 * 200 / 32, np.exp(th) * 40 * 100 / 32
    np.testing.assert_allclose(boxes.numpy()[0, 0], [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2])
    np.testing.assert_allclose(scores.numpy()[0, 0], [sig(to) * sig(tc)])
    # below conf_thresh: zero box and scores; clip_bbox clips to the image
    b2, s2 = ops.yolo_box(T(x), T(np.array([[100, 200]], "int32")), [20, 40], 1, 0.95, 32)
    assert not b2.numpy().any() and not s2.numpy().any()
    b3, _ = ops.yolo_box(T(x), T(np.array([[100, 200]], "int32")), [400, 400], 1, 0.1, 32)
    np.testing.assert_allclose(b3.numpy()[0, 0], [0, 0, 199, 99])


def test_yolo_loss_api_and_gradient():
    rng = np.random.default_rng(8)
    x = rng.uniform(-1, 1, (2, 14, 4, 4))
    gt_box = np.array([[[0.3, 0.4, 0.3, 0.5], [0.6, 0.7, 0.5, 0.4]], [[0.2, 0.2, 0.4, 0.6], [0, 0, 0, 0]]])
    gt_label = np.array([[0, 1], [1, 0]], "int32")
    args = dict(anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[1, 2], class_num=2, ignore_thresh=0.6,
                downsample_ratio=8)
    xt = T(x, sg=False)
    loss = ops.yolo_loss(xt, T(gt_box), T(gt_label), **args)
    ref = ref_vision.yolo_loss(x, gt_box, gt_label, None, args["anchors"], args["anchor_mask"], 2, 0.6, 8)[0]
    np.testing.assert_allclose(loss.numpy(), ref, rtol=1e-10)
    loss.sum().backward()
    num = ref_vision.yolo_loss_grad(x, gt_box, gt_label, None, np.ones(2), args["anchors"], args["anchor_mask"],
                                    2, 0.6, 8)
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=1e-5, atol=1e-6)
    score = np.array([[0.5, 1.0], [0.25, 1.0]])
    l2 = ops.yolo_loss(T(x), T(gt_box), T(gt_label), gt_score=T(score), use_label_smooth=False, scale_x_y=1.2,
                       **args)
    ref2 = ref_vision.yolo_loss(x, gt_box, gt_label, score, args["anchors"], args["anchor_mask"], 2, 0.6, 8, False,
                                1.2)[0]
    np.testing.assert_allclose(l2.numpy(), ref2, rtol=1e-10)


def test_yolo_errors():
    x = T(np.zeros((1, 14, 4, 4), "float32"))
    with pytest.raises(ValueError, match="yolo_box.*channels"):
        ops.yolo_box(x, T(np.ones((1, 2), "int32")), [10, 13], 2, 0.1, 8)
    with pytest.raises(TypeError, match="anchors"):
        ops.yolo_box(x, T(np.ones((1, 2), "int32")), 10, 2, 0.1, 8)
    with pytest.raises(TypeError, match="anchors"):
        ops.yolo_loss(x, T(np.zeros((1, 2, 4), "float32")), T(np.zeros((1, 2), "int32")), "10,13", [0], 2, 0.5, 8)
    with pytest.raises(ValueError, match="anchor_mask"):
        ops.yolo_loss(x, T(np.zeros((1, 2, 4), "float32")), T(np.zeros((1, 2), "int32")), [10, 13, 16, 30], [0, 5],
                      2, 0.5, 8)
    with pytest.raises(ValueError, match="gt_label"):
        ops.yolo_loss(x, T(np.zeros((1, 2, 4), "float32")), T(np.zeros((1, 3), "int32")), [10, 13, 16, 30], [0, 1],
                      2, 0.5, 8)


# ---------------------------------------------------------------- boxes
def test_box_coder_encode_decode_round_trip_and_errors():
    rng = np.random.default_rng(9)
    prior = random_boxes(rng, 5, 1.0).astype("float64")
    var = [0.1, 0.1, 0.2, 0.2]
    target = random_boxes(rng, 3, 1.0).astype("float64")
    enc = ops.box_coder(T(prior), var, T(target))
    np.testing.assert_allclose(enc.numpy(), ref_vision.box_coder(prior, None, target, variance=var), rtol=1e-12)
    dec = ops.box_coder(T(prior), var, enc, "decode_center_size").numpy()
    np.testing.assert_allclose(dec, np.broadcast_to(target[:, None], (3, 5, 4)), rtol=1e-10, atol=1e-12)
    with pytest.raises(TypeError, match="prior_box_var"):
        ops.box_coder(T(prior), None, T(target))
    with pytest.raises(ValueError, match="code_type"):
        ops.box_coder(T(prior), var, T(target), "encode")


def test_prior_box_counts_and_errors():
    inp, img = T(np.zeros((1, 3, 4, 5), "float32")), T(np.zeros((1, 3, 32, 40), "float32"))
    box, var = ops.prior_box(inp, img, [4.0, 8.0], [6.0, 12.0], [2.0, 3.0], flip=True)
    assert box.shape == [4, 5, 2 * 5 + 2, 4] and var.shape == box.shape  # ratios 1, 2, 1/2, 3, 1/3
    np.testing.assert_allclose(var.numpy()[1, 2, 3], [0.1, 0.1, 0.2, 0.2], rtol=1e-6)
    # first prior of cell (0, 0): a min_size square around the cell centre (steps 8 x 8)
    np.testing.assert_allclose(box.numpy()[0, 0, 0], [(4 - 2) / 40, (4 - 2) / 32, (4 + 2) / 40, (4 + 2) / 32],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="steps"):
        ops.prior_box(inp, img, [4.0], steps=[1.0])
    with pytest.raises(ValueError, match="max_sizes"):
        ops.prior_box(inp, img, [4.0, 8.0], [6.0])


# ---------------------------------------------------------------- image bytes
def test_read_file_round_trip(tmp_path):
    data = bytes(range(256)) * 3 + b"paddle"
    p = tmp_path / "blob.bin"
    p.write_bytes(data)
    t = ops.read_file(str(p))
    assert t.dtype == paddle.uint8 and t.shape == [len(data)]
    assert t.numpy().tobytes() == data
    (tmp_path / "empty").write_bytes(b"")
    assert ops.read_file(str(tmp_path / "empty")).shape == [0]
    with pytest.raises(FileNotFoundError, match="read_file"):
        ops.read_file(str(tmp_path / "missing.jpg"))
    with pytest.raises(TypeError, match="filename"):
        ops.read_file(3)


def test_decode_jpeg_against_pil(tmp_path):
    rng = np.random.default_rng(10)
    rgb = (rng.random((20, 30, 3)) * 255).astype("uint8")
    p = tmp_path / "img.jpg"
    Image.fromarray(rgb).save(p, quality=90)
    ref = np.asarray(Image.open(p).convert("RGB"))
    raw = ops.read_file(str(p))
    out = ops.decode_jpeg(raw)
    assert out.dtype == paddle.uint8 and out.shape == [3, 20, 30]
    np.testing.assert_array_equal(out.numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.decode_jpeg(raw, "rgb").numpy(), ref.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.decode_jpeg(raw, "gray").numpy()[0], np.asarray(Image.open(p).convert("L")))
    g = tmp_path / "gray.jpg"
    Image.fromarray(rgb[..., 0]).save(g)
    gref = np.asarray(Image.open(g))
    graw = ops.read_file(str(g))
    np.testing.assert_array_equal(ops.decode_jpeg(graw).numpy(), gref[None])
    np.testing.assert_array_equal(ops.decode_jpeg(graw, "rgb").numpy(), np.stack([gref] * 3))


def test_decode_jpeg_errors(tmp_path):
    with pytest.raises(ValueError, match="mode"):
        ops.decode_jpeg(T(np.zeros(4, "uint8")), "bgr")
    with pytest.raises(ValueError, match="uint8"):
        ops.decode_jpeg(T(np.zeros(4, "float32")))
    with pytest.raises(ValueError, match="JPEG"):
        ops.decode_jpeg(T(np.frombuffer(b"not an image at all", "uint8").copy()))
    p = tmp_path / "img.png"
    Image.fromarray(np.zeros((4, 4, 3), "uint8")).save(p)
    with pytest.raises(ValueError, match="JPEG"):
        ops.decode_jpeg(ops.read_file(str(p)))
