"""numpy references for the detection / vision ops (ops/vision.yaml): plain loops written from
Paddle's documented semantics (roi_align, roi_pool, psroi_pool, deformable_conv, yolo_box,
yolov3 loss, nms, box_coder, prior_box). Gradient references of the nonlinear ops are central
differences of these loops (num_vjp). Used by the sweep cases and tests/python/test_vision_ops.py."""
import math

import numpy as np


# ---------------------------------------------------------------- helpers
def batch_ids(boxes_num, nroi):
    ids = []
    for b, k in enumerate(np.asarray(boxes_num).reshape(-1)):
        ids += [b] * int(k)
    assert len(ids) == nroi
    return ids


def num_vjp(f, arrays, dout, wrt, eps=1e-6):
    """d/d arrays[wrt] of sum(f(*arrays) * dout) by central differences (float64)."""
    arrays = [np.array(a, dtype=np.float64) if (a is not None and np.asarray(a).dtype.kind == "f") else a
              for a in arrays]
    a = arrays[wrt]
    g = np.zeros_like(a)
    flat, gf = a.reshape(-1), g.reshape(-1)
    dout = np.asarray(dout, dtype=np.float64)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        fp = float((np.asarray(f(*arrays), dtype=np.float64) * dout).sum())
        flat[i] = old - eps
        fm = float((np.asarray(f(*arrays), dtype=np.float64) * dout).sum())
        flat[i] = old
        gf[i] = (fp - fm) / (2 * eps)
    return g


def _c_round(v):
    """C's round(): halves away from zero."""
    return math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)


# ---------------------------------------------------------------- roi_align
def _roi_align_taps(H, W, box, ph, pw, spatial_scale, sampling_ratio, aligned):
    """For each output bin (py, px): list of (flat input index, weight) and the sample count."""
    off = 0.5 if aligned else 0.0
    x1, y1, x2, y2 = [float(v) * spatial_scale - off for v in box]
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = max(rw, 1.0), max(rh, 1.0)
    bh, bw = rh / ph, rw / pw
    gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rh / ph))
    gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rw / pw))
    count = max(gh * gw, 1)
    taps = {}
    for py in range(ph):
        for px in range(pw):
            lst = []
            for iy in range(gh):
                y = y1 + py * bh + (iy + 0.5) * bh / gh
                for ix in range(gw):
                    x = x1 + px * bw + (ix + 0.5) * bw / gw
                    if y < -1.0 or y > H or x < -1.0 or x > W:
                        continue
                    y, x = max(y, 0.0), max(x, 0.0)
                    yl, xl = int(y), int(x)
                    if yl >= H - 1:
                        yl = yh = H - 1
                        y = float(yl)
                    else:
                        yh = yl + 1
                    if xl >= W - 1:
                        xl = xh = W - 1
                        x = float(xl)
                    else:
                        xh = xl + 1
                    ly, lx = y - yl, x - xl
                    hy, hx = 1 - ly, 1 - lx
                    lst += [(yl * W + xl, hy * hx / count), (yl * W + xh, hy * lx / count),
                            (yh * W + xl, ly * hx / count), (yh * W + xh, ly * lx / count)]
            taps[py, px] = lst
    return taps


def roi_align(x, boxes, boxes_num, pooled_height=1, pooled_width=1, spatial_scale=1.0, sampling_ratio=-1,
              aligned=False):
    N, C, H, W = x.shape
    R = boxes.shape[0]
    ids = batch_ids(boxes_num, R)
    out = np.zeros((R, C, pooled_height, pooled_width), dtype=np.float64)
    for r in range(R):
        taps = _roi_align_taps(H, W, boxes[r], pooled_height, pooled_width, spatial_scale, sampling_ratio,
                               aligned)
        plane = x[ids[r]].reshape(C, -1).astype(np.float64)
        for (py, px), lst in taps.items():
            for idx, wgt in lst:
                out[r, :, py, px] += wgt * plane[:, idx]
    return out.astype(x.dtype)


def roi_align_grad(boxes, boxes_num, out_grad, x_shape, pooled_height=1, pooled_width=1, spatial_scale=1.0,
                   sampling_ratio=-1, aligned=False):
    N, C, H, W = x_shape
    g = np.zeros((N, C, H * W), dtype=np.float64)
    ids = batch_ids(boxes_num, boxes.shape[0])
    for r in range(boxes.shape[0]):
        taps = _roi_align_taps(H, W, boxes[r], pooled_height, pooled_width, spatial_scale, sampling_ratio,
                               aligned)
        for (py, px), lst in taps.items():
            for idx, wgt in lst:
                g[ids[r], :, idx] += wgt * out_grad[r, :, py, px]
    return g.reshape(x_shape).astype(out_grad.dtype)


# ---------------------------------------------------------------- roi_pool
def roi_pool(x, boxes, boxes_num, pooled_height=1, pooled_width=1, spatial_scale=1.0):
    """-> (out, argmax): max over each bin of the rounded box; argmax is the flat index in the
    (H, W) plane, -1 for empty bins (whose value is 0). Bin sizes in float32 as Paddle."""
    N, C, H, W = x.shape
    R = boxes.shape[0]
    ids = batch_ids(boxes_num, R)
    out = np.zeros((R, C, pooled_height, pooled_width), dtype=x.dtype)
    am = np.full((R, C, pooled_height, pooled_width), -1, dtype=np.int64)
    f32 = np.float32
    for r in range(R):
        sw, sh, ew, eh = [_c_round(float(v) * spatial_scale) for v in boxes[r]]
        rh, rw = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bh, bw = f32(rh) / f32(pooled_height), f32(rw) / f32(pooled_width)
        for py in range(pooled_height):
            for px in range(pooled_width):
                hs = min(max(int(math.floor(f32(py) * bh)) + sh, 0), H)
                he = min(max(int(math.ceil(f32(py + 1) * bh)) + sh, 0), H)
                ws = min(max(int(math.floor(f32(px) * bw)) + sw, 0), W)
                we = min(max(int(math.ceil(f32(px + 1) * bw)) + sw, 0), W)
                if he <= hs or we <= ws:
                    continue
                for c in range(C):
                    win = x[ids[r], c, hs:he, ws:we]
                    k = int(np.argmax(win))
                    out[r, c, py, px] = win.reshape(-1)[k]
                    am[r, c, py, px] = (hs + k // (we - ws)) * W + ws + k % (we - ws)
    return out, am


def roi_pool_grad(boxes_num, arg_max, out_grad, x_shape):
    N, C, H, W = x_shape
    g = np.zeros((N, C, H * W), dtype=np.float64)
    ids = batch_ids(boxes_num, arg_max.shape[0])
    for r in range(arg_max.shape[0]):
        for c in range(C):
            for v, a in zip(out_grad[r, c].reshape(-1), arg_max[r, c].reshape(-1)):
                if a >= 0:
                    g[ids[r], c, a] += v
    return g.reshape(x_shape).astype(out_grad.dtype)


# ---------------------------------------------------------------- psroi_pool
def _psroi_bins(H, W, box, ph, pw, spatial_scale):
    sw = _c_round(float(box[0])) * spatial_scale
    sh = _c_round(float(box[1])) * spatial_scale
    ew = (_c_round(float(box[2])) + 1.0) * spatial_scale
    eh = (_c_round(float(box[3])) + 1.0) * spatial_scale
    rh, rw = max(eh - sh, 0.1), max(ew - sw, 0.1)
    bh, bw = rh / ph, rw / pw
    bins = {}
    for py in range(ph):
        for px in range(pw):
            hs = min(max(int(math.floor(py * bh + sh)), 0), H)
            ws = min(max(int(math.floor(px * bw + sw)), 0), W)
            he = min(max(int(math.ceil((py + 1) * bh + sh)), 0), H)
            we = min(max(int(math.ceil((px + 1) * bw + sw)), 0), W)
            bins[py, px] = (hs, he, ws, we)
    return bins


def psroi_pool(x, boxes, boxes_num, pooled_height=1, pooled_width=1, output_channels=1, spatial_scale=1.0):
    N, C, H, W = x.shape
    R = boxes.shape[0]
    ids = batch_ids(boxes_num, R)
    out = np.zeros((R, output_channels, pooled_height, pooled_width), dtype=np.float64)
    for r in range(R):
        for (py, px), (hs, he, ws, we) in _psroi_bins(H, W, boxes[r], pooled_height, pooled_width,
                                                      spatial_scale).items():
            if he <= hs or we <= ws:
                continue
            for c in range(output_channels):
                ic = (c * pooled_height + py) * pooled_width + px
                out[r, c, py, px] = x[ids[r], ic, hs:he, ws:we].astype(np.float64).mean()
    return out.astype(x.dtype)


def psroi_pool_grad(boxes, boxes_num, out_grad, x_shape, pooled_height=1, pooled_width=1, output_channels=1,
                    spatial_scale=1.0):
    N, C, H, W = x_shape
    g = np.zeros(x_shape, dtype=np.float64)
    ids = batch_ids(boxes_num, boxes.shape[0])
    for r in range(boxes.shape[0]):
        for (py, px), (hs, he, ws, we) in _psroi_bins(H, W, boxes[r], pooled_height, pooled_width,
                                                      spatial_scale).items():
            if he <= hs or we <= ws:
                continue
            area = (he - hs) * (we - ws)
            for c in range(output_channels):
                ic = (c * pooled_height + py) * pooled_width + px
                g[ids[r], ic, hs:he, ws:we] += out_grad[r, c, py, px] / area
    return g.astype(out_grad.dtype)


# ---------------------------------------------------------------- deformable conv
def _bilinear_zero(img, h, w):
    """Bilinear sample of a (H, W) plane; corners outside the plane read 0; 0 when the point is
    not inside (-1, H) x (-1, W)."""
    H, W = img.shape
    if not (h > -1 and w > -1 and h < H and w < W):
        return 0.0
    h0, w0 = math.floor(h), math.floor(w)
    lh, lw = h - h0, w - w0
    v = 0.0
    for dy, wy in ((0, 1 - lh), (1, lh)):
        for dx, wx in ((0, 1 - lw), (1, lw)):
            yy, xx = h0 + dy, w0 + dx
            if 0 <= yy < H and 0 <= xx < W:
                v += wy * wx * float(img[yy, xx])
    return v


def deform_conv(x, offset, filter, mask=None, strides=(1, 1), paddings=(0, 0), dilations=(1, 1),
                deformable_groups=1, groups=1, im2col_step=1):
    """y[n, m, ho, wo] = sum_{c, i, j} w[m, c, i, j] * x(p + p_ij + offset_ij) * mask_ij."""
    N, C, H, W = x.shape
    M, Cg, kh, kw = filter.shape
    sh, sw = strides
    ph, pw = paddings
    dh, dw = dilations
    Ho = (H + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    Wo = (W + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    K = kh * kw
    cpd = C // deformable_groups
    Mg = M // groups
    col = np.zeros((N, C, K, Ho, Wo), dtype=np.float64)
    for n in range(N):
        for c in range(C):
            g = c // cpd
            for i in range(kh):
                for j in range(kw):
                    k = i * kw + j
                    for ho in range(Ho):
                        for wo in range(Wo):
                            hh = ho * sh - ph + i * dh + float(offset[n, g * 2 * K + 2 * k, ho, wo])
                            ww = wo * sw - pw + j * dw + float(offset[n, g * 2 * K + 2 * k + 1, ho, wo])
                            m = 1.0 if mask is None else float(mask[n, g * K + k, ho, wo])
                            col[n, c, k, ho, wo] = _bilinear_zero(x[n, c], hh, ww) * m
    out = np.zeros((N, M, Ho, Wo), dtype=np.float64)
    for m in range(M):
        gi = m // Mg
        cs = gi * Cg
        out[:, m] = np.einsum("nckhw,ck->nhw", col[:, cs:cs + Cg], filter[m].reshape(Cg, K).astype(np.float64))
    return out.astype(x.dtype)


def deform_conv_grad(x, offset, filter, mask, out_grad, strides=(1, 1), paddings=(0, 0), dilations=(1, 1),
                     deformable_groups=1, groups=1, im2col_step=1):
    """(dx, doffset, dfilter, dmask) by central differences of deform_conv (a missing mask is
    all ones; its gradient is still returned)."""
    m = np.ones((offset.shape[0], offset.shape[1] // 2) + offset.shape[2:]) if mask is None else mask

    def f(a, b, c, d):
        return deform_conv(a, b, c, d, strides, paddings, dilations, deformable_groups, groups)
    args = [x, offset, filter, m]
    dt = out_grad.dtype
    return tuple(num_vjp(f, args, out_grad, i).astype(dt) for i in range(4))


# ---------------------------------------------------------------- yolo_box
def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, scale_x_y=1.0,
             iou_aware=False, iou_aware_factor=0.5):
    N, C, H, W = x.shape
    an = len(anchors) // 2
    bias = -0.5 * (scale_x_y - 1.0)
    boxes = np.zeros((N, an * H * W, 4), dtype=np.float64)
    scores = np.zeros((N, an * H * W, class_num), dtype=np.float64)
    for n in range(N):
        ih, iw = int(img_size[n, 0]), int(img_size[n, 1])
        xs = x[n].astype(np.float64)
        if iou_aware:
            ious, xs = xs[:an], xs[an:]
        xs = xs.reshape(an, 5 + class_num, H, W)
        for a in range(an):
            for k in range(H):
                for l in range(W):
                    conf = _sig(xs[a, 4, k, l])
                    if iou_aware:
                        conf = conf ** (1 - iou_aware_factor) * _sig(ious[a, k, l]) ** iou_aware_factor
                    if conf < conf_thresh:
                        continue
                    cx = (l + _sig(xs[a, 0, k, l]) * scale_x_y + bias) * iw / W
                    cy = (k + _sig(xs[a, 1, k, l]) * scale_x_y + bias) * ih / H
                    bw = math.exp(xs[a, 2, k, l]) * anchors[2 * a] * iw / (downsample_ratio * W)
                    bh = math.exp(xs[a, 3, k, l]) * anchors[2 * a + 1] * ih / (downsample_ratio * H)
                    b = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip_bbox:
                        b = [max(b[0], 0), max(b[1], 0), min(b[2], iw - 1), min(b[3], ih - 1)]
                    i = a * H * W + k * W + l
                    boxes[n, i] = b
                    scores[n, i] = [conf * _sig(xs[a, 5 + c, k, l]) for c in range(class_num)]
    return boxes.astype(x.dtype), scores.astype(x.dtype)


# ---------------------------------------------------------------- yolov3 loss
def _sce(v, label):
    return max(v, 0.0) - v * label + math.log(1.0 + math.exp(-abs(v)))


def _iou_cwh(a, b):
    def ov(c1, w1, c2, w2):
        return min(c1 + w1 / 2, c2 + w2 / 2) - max(c1 - w1 / 2, c2 - w2 / 2)
    w, h = ov(a[0], a[2], b[0], b[2]), ov(a[1], a[3], b[1], b[3])
    inter = 0.0 if (w < 0 or h < 0) else w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def yolo_loss(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio,
              use_label_smooth=True, scale_x_y=1.0):
    """-> (loss [N], objectness_mask [N, mask_num, H, W], gt_match_mask [N, B] int32)."""
    N, C, H, W = x.shape
    B = gt_box.shape[1]
    mn = len(anchor_mask)
    an = len(anchors) // 2
    isz = downsample_ratio * H
    bias = -0.5 * (scale_x_y - 1.0)
    pos, neg = 1.0, 0.0
    if use_label_smooth:
        sw = min(1.0 / class_num, 1.0 / 40)
        pos, neg = 1.0 - sw, sw
    xs = x.astype(np.float64).reshape(N, mn, 5 + class_num, H, W)
    score = np.ones((N, B)) if gt_score is None else gt_score.astype(np.float64)
    loss = np.zeros(N)
    obj = np.zeros((N, mn, H, W))
    match = np.zeros((N, B), dtype=np.int32)
    for n in range(N):
        valid = [not (gt_box[n, t, 2] < 1e-6 or gt_box[n, t, 3] < 1e-6) for t in range(B)]
        for j in range(mn):
            a = anchor_mask[j]
            for k in range(H):
                for l in range(W):
                    p = ((l + _sig(xs[n, j, 0, k, l]) * scale_x_y + bias) / H,
                         (k + _sig(xs[n, j, 1, k, l]) * scale_x_y + bias) / H,
                         math.exp(xs[n, j, 2, k, l]) * anchors[2 * a] / isz,
                         math.exp(xs[n, j, 3, k, l]) * anchors[2 * a + 1] / isz)
                    best = 0.0
                    for t in range(B):
                        if valid[t]:
                            best = max(best, _iou_cwh(p, [float(v) for v in gt_box[n, t]]))
                    if best > ignore_thresh:
                        obj[n, j, k, l] = -1
        for t in range(B):
            if not valid[t]:
                match[n, t] = -1
                continue
            gx, gy, gw, gh = [float(v) for v in gt_box[n, t]]
            gi = min(max(int(gx * W), 0), W - 1)
            gj = min(max(int(gy * H), 0), H - 1)
            best, bn = 0.0, 0
            for a in range(an):
                iou = _iou_cwh((0, 0, anchors[2 * a] / isz, anchors[2 * a + 1] / isz), (0, 0, gw, gh))
                if iou > best:
                    best, bn = iou, a
            mi = anchor_mask.index(bn) if bn in anchor_mask else -1
            match[n, t] = mi
            if mi < 0:
                continue
            s = score[n, t]
            tx, ty = gx * H - gi, gy * H - gj
            tw = math.log(gw * isz / anchors[2 * bn])
            th = math.log(gh * isz / anchors[2 * bn + 1])
            sc = (2.0 - gw * gh) * s
            e = xs[n, mi, :, gj, gi]
            loss[n] += (_sce(e[0], tx) + _sce(e[1], ty) + abs(e[2] - tw) + abs(e[3] - th)) * sc
            obj[n, mi, gj, gi] = s
            lab = int(gt_label[n, t])
            loss[n] += sum(_sce(e[5 + c], pos if c == lab else neg) for c in range(class_num)) * s
        for j in range(mn):
            for k in range(H):
                for l in range(W):
                    o = obj[n, j, k, l]
                    if o > 1e-5:
                        loss[n] += _sce(xs[n, j, 4, k, l], 1.0) * o
                    elif o > -0.5:
                        loss[n] += _sce(xs[n, j, 4, k, l], 0.0)
    return loss.astype(x.dtype), obj.astype(x.dtype), match


def yolo_loss_grad(x, gt_box, gt_label, gt_score, loss_grad, anchors, anchor_mask, class_num, ignore_thresh,
                   downsample_ratio, use_label_smooth=True, scale_x_y=1.0):
    def f(a):
        return yolo_loss(a, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh,
                         downsample_ratio, use_label_smooth, scale_x_y)[0]
    return num_vjp(f, [x], loss_grad, 0).astype(x.dtype)


# ---------------------------------------------------------------- nms / box_coder / prior_box
def iou_xyxy(a, b):
    iw = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def nms(boxes, threshold=1.0):
    """Greedy NMS in the given order: keep a box unless a kept earlier box has IoU > threshold."""
    keep = []
    for i in range(boxes.shape[0]):
        if all(iou_xyxy(boxes[k], boxes[i]) <= threshold for k in keep):
            keep.append(i)
    return np.array(keep, dtype=np.int64)


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True,
              axis=0, variance=()):
    p = prior_box.astype(np.float64)
    t = target_box.astype(np.float64)
    one = 0.0 if box_normalized else 1.0
    pw, ph = p[:, 2] - p[:, 0] + one, p[:, 3] - p[:, 1] + one
    pcx, pcy = p[:, 0] + pw / 2, p[:, 1] + ph / 2
    if prior_box_var is not None:
        var = prior_box_var.astype(np.float64)
    elif len(variance):
        var = np.tile(np.asarray(variance, dtype=np.float64), (p.shape[0], 1))
    else:
        var = np.ones_like(p)
    if code_type == "encode_center_size":
        out = np.zeros((t.shape[0], p.shape[0], 4))
        for i in range(t.shape[0]):
            tw, th = t[i, 2] - t[i, 0] + one, t[i, 3] - t[i, 1] + one
            tcx, tcy = (t[i, 0] + t[i, 2]) / 2, (t[i, 1] + t[i, 3]) / 2
            for j in range(p.shape[0]):
                out[i, j] = [(tcx - pcx[j]) / pw[j] / var[j, 0], (tcy - pcy[j]) / ph[j] / var[j, 1],
                             math.log(abs(tw / pw[j])) / var[j, 2], math.log(abs(th / ph[j])) / var[j, 3]]
        return out.astype(prior_box.dtype)
    out = np.zeros_like(t)
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            q = j if axis == 0 else i
            cx = var[q, 0] * t[i, j, 0] * pw[q] + pcx[q]
            cy = var[q, 1] * t[i, j, 1] * ph[q] + pcy[q]
            w = math.exp(var[q, 2] * t[i, j, 2]) * pw[q]
            h = math.exp(var[q, 3] * t[i, j, 3]) * ph[q]
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - one, cy + h / 2 - one]
    return out.astype(prior_box.dtype)


def prior_box(input, image, min_sizes, max_sizes=(), aspect_ratios=(1.0,), variances=(0.1, 0.1, 0.2, 0.2),
              flip=False, clip=False, step_w=0.0, step_h=0.0, offset=0.5, min_max_aspect_ratios_order=False):
    H, W = input.shape[2], input.shape[3]
    IH, IW = image.shape[2], image.shape[3]
    ars = [1.0]
    for a in aspect_ratios:
        if all(abs(a - e) >= 1e-6 for e in ars):
            ars.append(a)
            if flip:
                ars.append(1.0 / a)
    if step_w == 0 or step_h == 0:
        sw, sh = IW / W, IH / H
    else:
        sw, sh = step_w, step_h
    out = []
    for h in range(H):
        for w in range(W):
            cx, cy = (w + offset) * sw, (h + offset) * sh
            cell = []
            for s, ms in enumerate(min_sizes):
                def box(bw, bh):
                    return [(cx - bw) / IW, (cy - bh) / IH, (cx + bw) / IW, (cy + bh) / IH]
                sq = [box(math.sqrt(ms * max_sizes[s]) / 2, math.sqrt(ms * max_sizes[s]) / 2)] if len(max_sizes) else []
                if min_max_aspect_ratios_order:
                    cell.append(box(ms / 2, ms / 2))
                    cell += sq
                    cell += [box(ms * math.sqrt(a) / 2, ms / math.sqrt(a) / 2) for a in ars if abs(a - 1) >= 1e-6]
                else:
                    cell += [box(ms * math.sqrt(a) / 2, ms / math.sqrt(a) / 2) for a in ars]
                    cell += sq
            out.append(cell)
    b = np.array(out, dtype=np.float64).reshape(H, W, -1, 4)
    if clip:
        b = np.clip(b, 0.0, 1.0)
    v = np.broadcast_to(np.asarray(variances, dtype=np.float64), b.shape)
    return b.astype(input.dtype), v.astype(input.dtype)


def multiclass_nms3(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold=0.3, normalized=True,
                    nms_eta=1.0, background_label=0):
    """Paddle's multiclass_nms3 for scores [N, C, M] and boxes [N, M, 4]: (out, index, rois_num)."""
    off = 0.0 if normalized else 1.0

    def iou(a, b):
        if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
            return 0.0
        iw = min(a[2], b[2]) - max(a[0], b[0]) + off
        ih = min(a[3], b[3]) - max(a[1], b[1]) + off

        def area(x):
            return 0.0 if x[2] < x[0] or x[3] < x[1] else (x[2] - x[0] + off) * (x[3] - x[1] + off)
        return iw * ih / (area(a) + area(b) - iw * ih)

    rows, index, counts = [], [], []
    N, C, M = scores.shape
    for n in range(N):
        dets = []
        for c in range(C):
            if c == background_label:
                continue
            cand = sorted([(scores[n, c, i], i) for i in range(M) if scores[n, c, i] > score_threshold],
                          key=lambda t: -t[0])
            if nms_top_k > -1:
                cand = cand[:nms_top_k]
            kept, thr = [], nms_threshold
            for s, i in cand:
                if all(iou(bboxes[n, i], bboxes[n, k]) <= thr for _, k in kept):
                    kept.append((s, i))
                    if nms_eta < 1 and thr > 0.5:
                        thr *= nms_eta
            dets += [(s, c, i) for s, i in kept]
        if keep_top_k > -1 and len(dets) > keep_top_k:
            dets = sorted(dets, key=lambda t: -t[0])[:keep_top_k]
            dets = [d for c in range(C) for d in dets if d[1] == c]
        for s, c, i in dets:
            rows.append([c, s] + list(bboxes[n, i]))
            index.append([n * M + i])
        counts.append(len(dets))
    out = np.array(rows, dtype=bboxes.dtype).reshape(-1, 6)
    return out, np.array(index, dtype=np.int32).reshape(-1, 1), np.array(counts, dtype=np.int32)
