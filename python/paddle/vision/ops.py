"""paddle.vision.ops (Paddle 2.3, plus box_coder / prior_box with their 2.4 signatures): detection
ops over the C kernels of ops/vision.yaml (roi_align / roi_pool / psroi_pool and their layers,
deform_conv2d and DeformConv2D, yolo_box, yolo_loss, nms, box_coder, prior_box) and the image
byte helpers read_file / decode_jpeg (decoded on the CPU with PIL; Paddle decodes on the GPU).
nms returns the kept indices only (Paddle 2.3 padded with zeros and, with scores, returned
positions in the score-sorted order: bugs fixed in 2.4, whose behaviour this follows)."""
import io as _io
import os as _os

import numpy as np

from .._C import _C_ops as _ops
from .._C import Tensor
from ..nn import Layer
from ..nn.initializer import Normal

__all__ = ['yolo_loss', 'yolo_box', 'prior_box', 'box_coder', 'deform_conv2d', 'DeformConv2D', 'read_file',
           'decode_jpeg', 'roi_pool', 'RoIPool', 'psroi_pool', 'PSRoIPool', 'roi_align', 'RoIAlign', 'nms']


def _tensor(v, name, op):
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}: expected {name} to be a paddle.Tensor, received {type(v).__name__}")
    return v


def _int_list(v, name, op):
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{op}: expected {name} to be a list or tuple of ints, received {type(v).__name__}")
    out = []
    for e in v:
        if isinstance(e, bool) or not isinstance(e, (int, np.integer)):
            raise TypeError(f"{op}: expected {name} to hold ints, received {e!r}")
        out.append(int(e))
    return out


def _pair(v, name, op):
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return [int(v), int(v)]
    v = _int_list(v, name, op)
    if len(v) == 1:
        return v * 2
    if len(v) != 2:
        raise ValueError(f"{op}: expected {name} to be an int or 2 ints, received {v}")
    return v


def _output_size(output_size, op, types=(int, tuple, list)):
    if isinstance(output_size, bool) or not isinstance(output_size, types):
        raise TypeError(f"{op}: expected output_size to be an int or a tuple of 2 ints, "
                        f"received {type(output_size).__name__}")
    return _pair(output_size, "output_size", op)


def _rois(x, boxes, boxes_num, op):
    _tensor(x, "x", op)
    _tensor(boxes, "boxes", op)
    if boxes_num is None:
        raise ValueError(f"{op}: boxes_num should not be None in dygraph mode (give the number of boxes "
                         f"of each image as an int32 tensor)")
    _tensor(boxes_num, "boxes_num", op)
    if x.ndim != 4:
        raise ValueError(f"{op}: expected x of shape [N, C, H, W], received shape {x.shape}")


# ---------------------------------------------------------------- RoI pooling
def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=True, name=None):
    """Bilinear RoI Align (Mask R-CNN): [num_boxes, C, h, w]; boxes are [x1, y1, x2, y2] and
    boxes_num the number of boxes of each image. aligned=True shifts boxes by -0.5 pixel."""
    _rois(x, boxes, boxes_num, "roi_align")
    ph, pw = _output_size(output_size, "roi_align", (int, tuple))
    return _ops.roi_align(x, boxes, boxes_num, ph, pw, float(spatial_scale), int(sampling_ratio), bool(aligned))


class RoIAlign(Layer):
    """Layer form of roi_align: RoIAlign(output_size, spatial_scale=1.0)(x, boxes, boxes_num, aligned=True)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x=x, boxes=boxes, boxes_num=boxes_num, output_size=self._output_size,
                         spatial_scale=self._spatial_scale, aligned=aligned)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """RoI max pooling (Fast R-CNN): boxes are rounded after scaling, each of the h x w bins takes
    the max (empty bins give 0). Returns [num_boxes, C, h, w]."""
    _rois(x, boxes, boxes_num, "roi_pool")
    ph, pw = _output_size(output_size, "roi_pool", (int, tuple))
    out, _ = _ops.roi_pool(x, boxes, boxes_num, ph, pw, float(spatial_scale))
    return out


class RoIPool(Layer):
    """Layer form of roi_pool: RoIPool(output_size, spatial_scale=1.0)(x, boxes, boxes_num)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x=x, boxes=boxes, boxes_num=boxes_num, output_size=self._output_size,
                        spatial_scale=self._spatial_scale)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI average pooling (R-FCN): C must equal out_c * h * w; bin (i, j) of
    output channel c averages input channel (c * h + i) * w + j. Returns [num_boxes, out_c, h, w]."""
    _rois(x, boxes, boxes_num, "psroi_pool")
    ph, pw = _output_size(output_size, "psroi_pool")
    if x.shape[1] % (ph * pw):
        raise ValueError(f"psroi_pool: the input channels ({x.shape[1]}) must be a multiple of "
                         f"output_size[0] * output_size[1] ({ph * pw})")
    return _ops.psroi_pool(x, boxes, boxes_num, ph, pw, x.shape[1] // (ph * pw), float(spatial_scale))


class PSRoIPool(Layer):
    """Layer form of psroi_pool: PSRoIPool(output_size, spatial_scale=1.0)(x, boxes, boxes_num)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)

    def extra_repr(self):
        return f"output_size={self.output_size}, spatial_scale={self.spatial_scale}"


# ---------------------------------------------------------------- deformable convolution
def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1,
                  mask=None, name=None):
    """Deformable convolution: v1 when mask is None, v2 (modulated) otherwise. offset is
    [N, 2 * deformable_groups * kh * kw, H_out, W_out] ((dy, dx) pairs per tap), mask
    [N, deformable_groups * kh * kw, H_out, W_out]."""
    op = "deform_conv2d"
    _tensor(x, "x", op)
    _tensor(offset, "offset", op)
    _tensor(weight, "weight", op)
    if mask is not None:
        _tensor(mask, "mask", op)
    out = _ops.deformable_conv(x, offset, weight, mask, _pair(stride, "stride", op), _pair(padding, "padding", op),
                               _pair(dilation, "dilation", op), int(deformable_groups), int(groups), 1)
    if bias is not None:
        out = out + _tensor(bias, "bias", op).reshape([1, -1, 1, 1])
    return out


class DeformConv2D(Layer):
    """Deformable 2-D convolution layer; forward(x, offset, mask=None). The weight defaults to
    Normal(0, sqrt(2 / (kh * kw * in_channels))), the bias to 0."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, deformable_groups=1,
                 groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        if weight_attr is False:
            raise ValueError("DeformConv2D: weight_attr should not be False")
        if in_channels % groups != 0:
            raise ValueError(f"DeformConv2D: in_channels ({in_channels}) must be divisible by groups ({groups})")
        if out_channels % groups != 0:
            raise ValueError(f"DeformConv2D: out_channels ({out_channels}) must be divisible by groups ({groups})")
        op = "DeformConv2D"
        self._in_channels, self._out_channels = in_channels, out_channels
        self._deformable_groups, self._groups = deformable_groups, groups
        self._kernel_size = _pair(kernel_size, "kernel_size", op)
        self._stride = _pair(stride, "stride", op)
        self._padding = _pair(padding, "padding", op)
        self._dilation = _pair(dilation, "dilation", op)
        std = (2.0 / (int(np.prod(self._kernel_size)) * in_channels)) ** 0.5
        self.weight = self.create_parameter([out_channels, in_channels // groups] + self._kernel_size,
                                            attr=weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding, self._dilation,
                             self._deformable_groups, self._groups, mask)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"stride={self._stride}, padding={self._padding}, dilation={self._dilation}, "
                f"deformable_groups={self._deformable_groups}, groups={self._groups}")


# ---------------------------------------------------------------- YOLOv3
def _number(v, name, op):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: expected {name} to be a number, received {type(v).__name__}")
    return float(v)


def _int(v, name, op):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}: expected {name} to be an int, received {type(v).__name__}")
    return int(v)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1., iou_aware=False, iou_aware_factor=0.5):
    """Decodes a YOLOv3 head [N, S * (5 + class_num), H, W] into boxes [N, S * H * W, 4] (x1, y1,
    x2, y2 in image pixels) and scores [N, S * H * W, class_num]; boxes whose confidence is below
    conf_thresh are all zero."""
    op = "yolo_box"
    _tensor(x, "x", op)
    _tensor(img_size, "img_size", op)
    return _ops.yolo_box(x, img_size, _int_list(anchors, "anchors", op), _int(class_num, "class_num", op),
                         _number(conf_thresh, "conf_thresh", op), _int(downsample_ratio, "downsample_ratio", op),
                         bool(clip_bbox), _number(scale_x_y, "scale_x_y", op), bool(iou_aware),
                         _number(iou_aware_factor, "iou_aware_factor", op))


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio, gt_score=None,
              use_label_smooth=True, name=None, scale_x_y=1.):
    """YOLOv3 loss per image ([N]): sigmoid cross entropy on x, y, objectness and classes, L1 on
    w, h (location terms weighted by 2 - w * h and by gt_score); predictions overlapping a gt box
    by more than ignore_thresh are left out of the objectness loss."""
    op = "yolo_loss"
    _tensor(x, "x", op)
    _tensor(gt_box, "gt_box", op)
    _tensor(gt_label, "gt_label", op)
    if gt_score is not None:
        _tensor(gt_score, "gt_score", op)
    if not isinstance(use_label_smooth, bool):
        raise TypeError(f"{op}: expected use_label_smooth to be a bool, received {type(use_label_smooth).__name__}")
    loss, _, _ = _ops.yolo_loss(x, gt_box, gt_label, gt_score, _int_list(anchors, "anchors", op),
                                _int_list(anchor_mask, "anchor_mask", op), _int(class_num, "class_num", op),
                                _number(ignore_thresh, "ignore_thresh", op),
                                _int(downsample_ratio, "downsample_ratio", op), use_label_smooth,
                                _number(scale_x_y, "scale_x_y", op))
    return loss


# ---------------------------------------------------------------- boxes
def _float_list(v, name, op):
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return [float(v)]
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{op}: expected {name} to be a number or a list of numbers, received {type(v).__name__}")
    return [_number(e, name, op) for e in v]


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0], variance=[0.1, 0.1, 0.2, 0.2],
              flip=False, clip=False, steps=[0.0, 0.0], offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD prior boxes for each cell of input [N, C, H, W] against image [N, C, IH, IW]:
    (boxes, variances), both [H, W, num_priors, 4] with normalized [x1, y1, x2, y2]."""
    op = "prior_box"
    _tensor(input, "input", op)
    _tensor(image, "image", op)
    steps = _float_list(steps, "steps", op)
    if len(steps) != 2:
        raise ValueError('prior_box: steps should be (step_w, step_h)')
    maxs = []
    if max_sizes is not None:
        maxs = _float_list(max_sizes, "max_sizes", op)
        if len(maxs) and maxs[0] <= 0:
            maxs = []
    return _ops.prior_box(input, image, _float_list(min_sizes, "min_sizes", op), maxs,
                          _float_list(aspect_ratios, "aspect_ratios", op), _float_list(variance, "variance", op),
                          bool(flip), bool(clip), steps[0], steps[1], _number(offset, "offset", op),
                          bool(min_max_aspect_ratios_order))


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, axis=0,
              name=None):
    """Encodes target boxes [N, 4] against priors [M, 4] into [N, M, 4] offsets, or decodes
    [N, M, 4] offsets back to boxes; prior_box_var is a [M, 4] Tensor or a list of 4 variances."""
    op = "box_coder"
    _tensor(prior_box, "prior_box", op)
    _tensor(target_box, "target_box", op)
    if isinstance(prior_box_var, Tensor):
        return _ops.box_coder(prior_box, prior_box_var, target_box, code_type, bool(box_normalized), int(axis), [])
    if isinstance(prior_box_var, (list, tuple)):
        return _ops.box_coder(prior_box, None, target_box, code_type, bool(box_normalized), int(axis),
                              _float_list(prior_box_var, "prior_box_var", op))
    raise TypeError("box_coder: input prior_box_var must be a Tensor or a list of 4 floats, received "
                    f"{type(prior_box_var).__name__}")


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None, top_k=None):
    """Greedy non-maximum suppression; boxes with IoU > iou_threshold overlap. Without scores the
    boxes are taken in the given order and the kept indices come back in that order; with scores
    the kept indices are sorted by decreasing score; with category_idxs / categories each category
    is suppressed on its own; top_k keeps the first k. Returns int64 indices into boxes."""
    op = "nms"
    _tensor(boxes, "boxes", op)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"nms: expected boxes of shape [num_boxes, 4], received {boxes.shape}")
    thr = _number(iou_threshold, "iou_threshold", op)
    if scores is None:
        return _ops.nms(boxes, thr)
    from ..tensor.to_tensor import to_tensor
    _tensor(scores, "scores", op)
    n = boxes.shape[0]
    if list(scores.shape) != [n] and not (n < 0 and len(scores.shape) == 1):
        raise ValueError(f"nms: expected scores of shape [{n}], received {scores.shape}")
    if top_k is not None:
        top_k = _int(top_k, "top_k", op)
        if top_k < 0 or top_k > n:
            raise ValueError(f"nms: top_k should be in [0, num_boxes = {n}], received {top_k}")
    bx, sc = boxes.numpy(), scores.numpy().astype(np.float64)

    def sorted_nms(idx):  # idx: candidate indices -> kept ones, by decreasing score
        order = idx[np.argsort(-sc[idx], kind="stable")]
        keep = _ops.nms(to_tensor(np.ascontiguousarray(bx[order])), thr).numpy()
        return order[keep]

    if category_idxs is None:
        keep = sorted_nms(np.arange(n))
    else:
        _tensor(category_idxs, "category_idxs", op)
        if categories is None:
            raise ValueError("nms: if category_idxs is given, categories (a list of the unique ids of all "
                             "categories) is necessary")
        cat = category_idxs.numpy().reshape(-1)
        if cat.shape[0] != n:
            raise ValueError(f"nms: expected category_idxs of shape [{n}], received {category_idxs.shape}")
        mask = np.zeros(n, dtype=bool)
        for c in categories:
            idx = np.nonzero(cat == c)[0]
            if idx.size:
                mask[sorted_nms(idx)] = True
        keep = np.nonzero(mask)[0]
        keep = keep[np.argsort(-sc[keep], kind="stable")]
    if top_k is not None:
        keep = keep[:top_k]
    return to_tensor(keep.astype(np.int64))


# ---------------------------------------------------------------- image bytes
def read_file(filename, name=None):
    """The bytes of a file as a 1-D uint8 Tensor."""
    if not isinstance(filename, (str, bytes, _os.PathLike)):
        raise TypeError(f"read_file: expected filename to be a str, received {type(filename).__name__}")
    if not _os.path.isfile(filename):
        raise FileNotFoundError(f"read_file: the file {filename!r} does not exist or is not a regular file")
    from ..tensor.to_tensor import to_tensor
    with open(filename, "rb") as f:
        data = f.read()
    return to_tensor(np.frombuffer(data, dtype=np.uint8).copy())


def decode_jpeg(x, mode='unchanged', name=None):
    """Decodes JPEG bytes (a 1-D uint8 Tensor) into a uint8 [C, H, W] Tensor: mode 'unchanged'
    keeps the file's channels (1 for grayscale, 3 for colour), 'gray' gives 1 channel and 'rgb'
    3 channels. Decoded on the CPU with PIL."""
    op = "decode_jpeg"
    _tensor(x, "x", op)
    if x.dtype.name != "uint8" or x.ndim != 1:
        raise ValueError(f"decode_jpeg: expected a 1-D uint8 tensor of JPEG bytes, received a {x.ndim}-D "
                         f"{x.dtype.name} tensor")
    if mode not in ('unchanged', 'gray', 'rgb'):
        raise ValueError(f"decode_jpeg: expected mode 'unchanged', 'gray' or 'rgb', received {mode!r}")
    from PIL import Image, UnidentifiedImageError
    from ..tensor.to_tensor import to_tensor
    try:
        img = Image.open(_io.BytesIO(x.numpy().tobytes()))
        fmt = img.format
        img.load()
    except (UnidentifiedImageError, OSError, SyntaxError) as e:
        raise ValueError(f"decode_jpeg: the data is not a decodable JPEG image ({e})") from None
    if fmt != "JPEG":
        raise ValueError(f"decode_jpeg: expected JPEG data, received a {fmt} image")
    if mode == 'gray':
        img = img.convert('L')
    elif mode == 'rgb' or img.mode not in ('L', 'RGB'):
        img = img.convert('RGB')
    a = np.asarray(img, dtype=np.uint8)
    a = a[None] if a.ndim == 2 else a.transpose(2, 0, 1)
    return to_tensor(np.ascontiguousarray(a))
