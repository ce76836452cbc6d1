"""Tests of paddle.vision.transforms: each transform/function against numpy or Pillow references
on numpy HWC arrays, PIL images and CHW Tensors (shapes, dtypes, value ranges), argument
errors, and reproducibility of the random transforms after random.seed (Python's random, as Paddle's
transforms use)."""
import random

import numpy as np
import pytest

import paddle
import paddle.vision.transforms as T
import paddle.vision.transforms.functional as F

Image = pytest.importorskip("PIL.Image")


def rgb(h=10, w=12, seed=0):
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


# ---------------------------------------------------------------- to_tensor / normalize
def test_to_tensor_numpy_pil_tensor():
    a = rgb()
    t = T.ToTensor()(a)
    assert t.shape == [3, 10, 12] and t.dtype == paddle.float32
    np.testing.assert_allclose(t.numpy(), a.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    t2 = F.to_tensor(Image.fromarray(a), data_format='HWC')
    assert t2.shape == [10, 12, 3]
    np.testing.assert_allclose(t2.numpy(), a / 255.0, rtol=1e-6)
    g = F.to_tensor(a[:, :, 0])
    assert g.shape == [1, 10, 12]
    assert F.to_tensor(t) is t
    f = F.to_tensor(np.ones((2, 2, 1), np.float32) * 7)
    assert float(f.numpy().max()) == 7.0  # non-uint8 keeps its values
    with pytest.raises(ValueError):
        T.ToTensor(data_format='NCHW')
    with pytest.raises(TypeError):
        F.to_tensor([1, 2, 3])


def test_normalize_kinds():
    a = rgb().astype(np.float32)
    mean, std = [10.0, 20.0, 30.0], [2.0, 3.0, 4.0]
    out = T.Normalize(mean, std, data_format='HWC')(a)
    np.testing.assert_allclose(out, (a - mean) / np.array(std), rtol=1e-5)
    chw = a.transpose(2, 0, 1)
    out = F.normalize(chw, mean, std)
    np.testing.assert_allclose(out, (chw - np.array(mean)[:, None, None]) / np.array(std)[:, None, None],
                               rtol=1e-5)
    t = F.normalize(paddle.to_tensor(chw), mean, std)
    np.testing.assert_allclose(t.numpy(), out, rtol=1e-5)
    bgr = F.normalize(a, 0.0, 1.0, data_format='HWC', to_rgb=True)
    np.testing.assert_allclose(bgr, a[..., ::-1])
    p = F.normalize(Image.fromarray(rgb()), mean, std, data_format='HWC')
    assert isinstance(p, np.ndarray) and p.dtype == np.float32
    with pytest.raises(ValueError):
        T.Normalize(0.5, 0.0)


# ---------------------------------------------------------------- resize / crop / pad / flip
@pytest.mark.parametrize("interp", ['nearest', 'bilinear', 'bicubic', 'box', 'lanczos', 'hamming'])
def test_resize_pil_matches_pillow(interp):
    im = Image.fromarray(rgb(20, 30))
    out = T.Resize((8, 11), interpolation=interp)(im)
    ref = im.resize((11, 8), getattr(Image, interp.upper()))
    assert out.size == (11, 8)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))


def test_resize_int_keeps_aspect():
    im = Image.fromarray(rgb(20, 30))
    assert F.resize(im, 10).size == (15, 10)
    a = rgb(30, 20)
    assert F.resize(a, 10).shape == (15, 10, 3)
    assert F.resize(a[:, :, :1], (7, 9)).shape == (7, 9, 1)
    assert F.resize(a[:, :, 0], (7, 9)).shape == (7, 9)
    t = F.resize(paddle.to_tensor(a.transpose(2, 0, 1)), (7, 9))
    assert t.shape == [3, 7, 9] and t.dtype == paddle.uint8
    with pytest.raises(TypeError):
        T.Resize((1, 2, 3))
    with pytest.raises(ValueError):
        F.resize(a, 5, interpolation='cubic-ish')


def test_resize_numpy_reference():
    a = rgb(6, 8).astype(np.float32)
    # nearest downscale by 2 picks even pixels (OpenCV's rule)
    np.testing.assert_array_equal(F.resize(a, (3, 4), 'nearest'), a[::2, ::2])
    # bilinear downscale by 2 averages 2x2 blocks with half-pixel centres
    ref = (a[::2, ::2] + a[1::2, ::2] + a[::2, 1::2] + a[1::2, 1::2]) / 4
    np.testing.assert_allclose(F.resize(a, (3, 4), 'bilinear'), ref, rtol=1e-5)
    np.testing.assert_allclose(F.resize(a, (3, 4), 'box'), ref, rtol=1e-5)
    # constant image stays constant under every filter; uint8 stays uint8
    c = np.full((9, 7, 3), 77, np.uint8)
    for interp in ['nearest', 'bilinear', 'bicubic', 'box', 'lanczos', 'hamming']:
        o = F.resize(c, (5, 13), interp)
        assert o.dtype == np.uint8 and (o == 77).all(), interp


def test_center_crop_and_crop():
    a = rgb(10, 12)
    np.testing.assert_array_equal(T.CenterCrop(4)(a), a[3:7, 4:8])
    np.testing.assert_array_equal(np.asarray(T.CenterCrop((4, 6))(Image.fromarray(a))), a[3:7, 3:9])
    t = paddle.to_tensor(a.transpose(2, 0, 1))
    np.testing.assert_array_equal(F.center_crop(t, 4).numpy(), a[3:7, 4:8].transpose(2, 0, 1))
    np.testing.assert_array_equal(F.crop(a, 1, 2, 3, 4), a[1:4, 2:6])
    np.testing.assert_array_equal(F.crop(t, 1, 2, 3, 4).numpy(), a[1:4, 2:6].transpose(2, 0, 1))


@pytest.mark.parametrize("mode", ['constant', 'edge', 'reflect', 'symmetric'])
def test_pad_modes(mode):
    a = rgb(5, 6)
    out = T.Pad((1, 2, 3, 4), fill=9, padding_mode=mode)(a)
    if mode == 'constant':
        ref = np.pad(a, ((2, 4), (1, 3), (0, 0)), constant_values=9)
    else:
        ref = np.pad(a, ((2, 4), (1, 3), (0, 0)), mode=mode)
    np.testing.assert_array_equal(out, ref)
    p = F.pad(Image.fromarray(a), (1, 2, 3, 4), 9, mode)
    np.testing.assert_array_equal(np.asarray(p), ref)
    t = F.pad(paddle.to_tensor(a.transpose(2, 0, 1)), (1, 2, 3, 4), 9, mode)
    np.testing.assert_array_equal(t.numpy(), ref.transpose(2, 0, 1))


def test_pad_args():
    a = rgb(5, 6)
    assert F.pad(a, 2).shape == (9, 10, 3)
    assert F.pad(a, (1, 2)).shape == (9, 8, 3)
    out = F.pad(a, 1, fill=(1, 2, 3))
    assert tuple(out[0, 0]) == (1, 2, 3)
    with pytest.raises(ValueError):
        F.pad(a, (1, 2, 3))
    with pytest.raises(ValueError):
        F.pad(a, 1, padding_mode='wrap')
    with pytest.raises(TypeError):
        F.pad(a, 1.5)


def test_flips():
    a = rgb()
    np.testing.assert_array_equal(F.hflip(a), a[:, ::-1])
    np.testing.assert_array_equal(F.vflip(a), a[::-1])
    np.testing.assert_array_equal(np.asarray(F.hflip(Image.fromarray(a))), a[:, ::-1])
    t = paddle.to_tensor(a.transpose(2, 0, 1))
    np.testing.assert_array_equal(F.vflip(t).numpy(), a[::-1].transpose(2, 0, 1))
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(a), a[:, ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(0.0)(a), a)
    with pytest.raises(ValueError):
        T.RandomHorizontalFlip(1.5)


def test_transpose():
    a = rgb()
    assert T.Transpose()(a).shape == (3, 10, 12)
    assert T.Transpose()(Image.fromarray(a[:, :, 0])).shape == (1, 10, 12)
    t = paddle.to_tensor(a.transpose(2, 0, 1))
    assert T.Transpose((1, 2, 0))(t).shape == [10, 12, 3]


# ---------------------------------------------------------------- colour
def test_color_numpy_vs_pil():
    a = rgb(16, 16)
    im = Image.fromarray(a)
    # Pillow's HSV keeps hue in 8 bits, so hue differs by a few more levels than the others
    for fn, f, tol in [(F.adjust_brightness, 1.4, 1), (F.adjust_contrast, 0.6, 2),
                       (F.adjust_saturation, 1.7, 3), (F.adjust_hue, 0.2, 10)]:
        p = np.asarray(fn(im, f)).astype(np.int64)
        n = fn(a, f)
        assert n.dtype == np.uint8 and n.shape == a.shape
        assert np.abs(p - n).max() <= tol, fn.__name__


def test_color_identities_and_extremes():
    a = rgb()
    np.testing.assert_array_equal(F.adjust_brightness(a, 1.0), a)
    assert (F.adjust_brightness(a, 0.0) == 0).all()
    assert (F.adjust_brightness(a, 10.0) <= 255).all()
    c0 = F.adjust_contrast(a, 0.0)
    assert (c0 == c0[0, 0]).all()
    s0 = F.adjust_saturation(a, 0.0)
    assert (s0[..., 0] == s0[..., 1]).all() and (s0[..., 1] == s0[..., 2]).all()
    assert np.abs(F.adjust_hue(a, 0.0).astype(int) - a).max() <= 1
    t = paddle.to_tensor(a.transpose(2, 0, 1).astype(np.float32) / 255)
    tb = F.adjust_brightness(t, 2.0)
    assert tb.dtype == paddle.float32 and float(tb.numpy().max()) <= 1.0
    th = F.adjust_hue(t, 0.25)
    assert th.shape == [3, 10, 12]
    with pytest.raises(ValueError):
        F.adjust_hue(a, 0.7)
    with pytest.raises(TypeError):
        F.adjust_brightness(a, "x")


def test_grayscale():
    a = rgb()
    g = T.Grayscale()(a)
    ref = np.rint(a @ np.array([0.299, 0.587, 0.114]))
    assert g.shape == (10, 12, 1)
    assert np.abs(g[..., 0].astype(int) - ref).max() <= 1
    g3 = F.to_grayscale(Image.fromarray(a), 3)
    assert g3.mode == 'RGB'
    np.testing.assert_array_equal(np.asarray(g3)[..., 0], np.asarray(Image.fromarray(a).convert('L')))
    t = F.to_grayscale(paddle.to_tensor(a.transpose(2, 0, 1)))
    assert t.shape == [1, 10, 12]
    with pytest.raises(ValueError):
        T.Grayscale(2)


def test_color_transforms_ranges():
    paddle.seed(3)
    a = rgb()
    for tr in [T.BrightnessTransform(0.4), T.ContrastTransform(0.4), T.SaturationTransform(0.4),
               T.HueTransform(0.4), T.ColorJitter(0.4, 0.4, 0.4, 0.1)]:
        out = tr(a)
        assert out.shape == a.shape and out.dtype == np.uint8
        out = tr(Image.fromarray(a))
        assert out.size == (12, 10)
    np.testing.assert_array_equal(T.BrightnessTransform(0)(a), a)
    with pytest.raises(ValueError):
        T.HueTransform(0.6)
    with pytest.raises(ValueError):
        T.BrightnessTransform(-1)
    with pytest.raises(TypeError):
        T.ContrastTransform("a")


# ---------------------------------------------------------------- geometry
def test_rotate_numpy_matches_pil():
    a = rgb(9, 9)
    im = Image.fromarray(a)
    for ang in (90, 180, 270):
        np.testing.assert_array_equal(F.rotate(a, ang), np.asarray(im.rotate(ang)))
    np.testing.assert_array_equal(F.rotate(a, 90), np.rot90(a))
    r = F.rotate(a, 33, expand=True)
    assert r.shape[:2] == np.asarray(im.rotate(33, expand=True)).shape[:2]
    diff = np.abs(F.rotate(a, 33).astype(int) - np.asarray(im.rotate(33)).astype(int))
    assert (diff == 0).mean() > 0.9
    t = F.rotate(paddle.to_tensor(a.transpose(2, 0, 1)), 90)
    np.testing.assert_array_equal(t.numpy(), np.rot90(a).transpose(2, 0, 1))
    f = F.rotate(a, 45, fill=7)
    assert f[0, 0, 0] == 7


def test_affine_and_perspective_identity_and_shift():
    a = rgb(8, 10)
    np.testing.assert_array_equal(F.affine(a, 0, (0, 0), 1.0, 0), a)
    s = F.affine(a, 0, (2, 1), 1.0, 0)
    np.testing.assert_array_equal(s[1:, 2:], a[:-1, :-2])
    assert (s[0] == 0).all()
    p = F.affine(Image.fromarray(a), 0, (2, 1), 1.0, 0)
    np.testing.assert_array_equal(np.asarray(p), s)
    pts = [[0, 0], [9, 0], [9, 7], [0, 7]]
    np.testing.assert_array_equal(F.perspective(a, pts, pts), a)
    np.testing.assert_array_equal(np.asarray(F.perspective(Image.fromarray(a), pts, pts)), a)
    t = F.affine(paddle.to_tensor(a.transpose(2, 0, 1)), 0, (2, 1), 1.0, 0)
    np.testing.assert_array_equal(t.numpy(), s.transpose(2, 0, 1))
    with pytest.raises(TypeError):
        F.affine(a, 0, 3, 1.0, 0)
    with pytest.raises(ValueError):
        F.affine(a, 0, (0, 0), -1.0, 0)


def test_erase():
    a = rgb()
    e = F.erase(a, 1, 2, 3, 4, 0)
    assert (e[1:4, 2:6] == 0).all() and (a[1:4, 2:6] != 0).any()
    t = paddle.to_tensor(a.transpose(2, 0, 1).astype(np.float32))
    et = F.erase(t, 1, 2, 3, 4, np.zeros((3, 3, 4), np.float32))
    assert (et.numpy()[:, 1:4, 2:6] == 0).all()
    ep = F.erase(Image.fromarray(a), 1, 2, 3, 4, np.array([[[5, 6, 7]]]))
    assert tuple(np.asarray(ep)[2, 3]) == (5, 6, 7)


# ---------------------------------------------------------------- random transforms
RANDOM = [
    lambda: T.RandomCrop(6, padding=2, pad_if_needed=True),
    lambda: T.RandomResizedCrop((5, 7), scale=(0.2, 1.0)),
    lambda: T.RandomRotation(30, interpolation='bilinear', expand=True),
    lambda: T.RandomAffine(20, translate=(0.2, 0.2), scale=(0.8, 1.2), shear=10),
    lambda: T.RandomPerspective(prob=1.0),
    lambda: T.RandomErasing(prob=1.0, value='random'),
    lambda: T.ColorJitter(0.3, 0.3, 0.3, 0.1),
    lambda: T.RandomHorizontalFlip(),
]


@pytest.mark.parametrize("make", RANDOM)
def test_random_transforms_follow_python_random_seed(make):
    a = rgb(12, 14)
    tr = make()
    random.seed(42)
    np.random.seed(42)  # RandomErasing's noise on numpy images comes from numpy, as in Paddle
    first = [np.asarray(tr(a)) for _ in range(4)]
    random.seed(42)
    np.random.seed(42)
    second = [np.asarray(tr(a)) for _ in range(4)]
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x, y)
    # PIL and Tensor inputs come back as the same kind
    assert isinstance(tr(Image.fromarray(a)), Image.Image)
    t = tr(paddle.to_tensor(a.transpose(2, 0, 1).astype(np.float32) / 255))
    assert isinstance(t, paddle.Tensor) and t.dtype == paddle.float32 and t.shape[0] == 3


def test_random_crop_shapes_and_content():
    paddle.seed(1)
    a = rgb(10, 12)
    for _ in range(5):
        out = T.RandomCrop((4, 5))(a)
        assert out.shape == (4, 5, 3)
        found = any((a[i:i + 4, j:j + 5] == out).all() for i in range(7) for j in range(8))
        assert found
    assert T.RandomCrop(14, pad_if_needed=True)(a).shape == (14, 14, 3)
    with pytest.raises(ValueError):
        T.RandomCrop(14)(a)
    assert T.RandomResizedCrop(8)(Image.fromarray(a)).size == (8, 8)


def test_random_erasing_value_and_errors():
    paddle.seed(5)
    a = rgb(20, 20)
    out = T.RandomErasing(prob=1.0, value=(1, 2, 3))(a)
    changed = (out != a).any(-1)
    assert changed.any()
    assert (out[changed] == [1, 2, 3]).all()
    with pytest.raises(ValueError):
        T.RandomErasing(value='noise')
    with pytest.raises(ValueError):
        T.RandomErasing(scale=(0.5, 0.1))


def test_random_rotation_errors():
    with pytest.raises(ValueError):
        T.RandomRotation(-3)
    with pytest.raises(ValueError):
        T.RandomRotation((1, 2, 3))
    with pytest.raises(ValueError):
        T.RandomAffine(10, translate=(2, 0))


def test_compose_and_keys():
    a = rgb()
    out = T.Compose([T.Resize((8, 8)), T.ToTensor(), T.Normalize(0.5, 0.5)])(a)
    assert out.shape == [3, 8, 8] and out.dtype == paddle.float32
    assert -1.0 <= float(out.numpy().min()) and float(out.numpy().max()) <= 1.0
    img, label = T.Resize((4, 4))((a, 3))  # items beyond the keys pass through
    assert img.shape == (4, 4, 3) and label == 3

    class Twice(T.BaseTransform):
        def __init__(self):
            super().__init__(keys=('image', 'image'))

        def _apply_image(self, x):
            return x * 2

    assert Twice()((1, 2)) == (2, 4)
    with pytest.raises(NotImplementedError):
        T.Resize(3, keys=('image', 'points'))
    with pytest.raises(ValueError):
        T.Resize(3, keys='image')
