"""torchvision's region operators as plain numpy loops: the reference of tests/integration/
test_cpu_torchvision_ops.py where torchvision itself does not import (PyPI's torchvision is built for
CUDA torch; beside this machine's CPU torch it fails to load). Where torchvision imports (the GPU
machine), the test compares with its own kernels instead, and these loops are checked against them too.

Written from torchvision's documented algorithm (torchvision.ops: roi_align, ps_roi_align, roi_pool,
ps_roi_pool, nms, deform_conv2d) with every quantity in the inputs' own numpy scalar type T
(np.float32 or np.float64): numpy's float32 scalar arithmetic rounds each operation as a C++ float does,
so bin edges taken by floor / ceil / round land where torchvision's float kernels put them. With
np.float16 (or ml_dtypes' bfloat16) each operation rounds to that type, as c10::Half's arithmetic in
torchvision's CUDA half kernels does (nms's ratio follows that kernel's float32 accumulation).
"""

from __future__ import annotations

import math

import numpy as np


def _bilinear(plane, y, x, T):
    """roi_align's sample: zero beyond one pixel outside the plane, clamped to its edge within it."""
    height, width = plane.shape
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return T(0)
    y, x = max(y, T(0)), max(x, T(0))
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = T(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = T(x_low)
    else:
        x_high = x_low + 1
    ly, lx = T(y - T(y_low)), T(x - T(x_low))
    hy, hx = T(T(1) - ly), T(T(1) - lx)
    return T(T(T(T(hy * hx) * plane[y_low, x_low] + T(hy * lx) * plane[y_low, x_high])
               + T(ly * hx) * plane[y_high, x_low]) + T(ly * lx) * plane[y_high, x_high])


def _align_bins(roi, scale, offset, at_least_one, ph_count, pw_count, sampling_ratio, T):
    start_w, start_h = T(roi[1] * scale - offset), T(roi[2] * scale - offset)
    roi_w = T(T(roi[3] * scale - offset) - start_w)
    roi_h = T(T(roi[4] * scale - offset) - start_h)
    if at_least_one:
        roi_w, roi_h = max(roi_w, T(1)), max(roi_h, T(1))
    bin_h, bin_w = T(roi_h / T(ph_count)), T(roi_w / T(pw_count))
    grid_h = sampling_ratio if sampling_ratio > 0 else math.ceil(T(roi_h / T(ph_count)))
    grid_w = sampling_ratio if sampling_ratio > 0 else math.ceil(T(roi_w / T(pw_count)))
    return int(roi[0]), start_h, start_w, bin_h, bin_w, grid_h, grid_w


def _bin_mean(plane, bins, ph, pw, count, T):
    _, start_h, start_w, bin_h, bin_w, grid_h, grid_w = bins
    total = T(0)
    for iy in range(grid_h):
        y = T(T(start_h + T(T(ph) * bin_h)) + T(T(T(iy + 0.5) * bin_h) / T(grid_h)))
        for ix in range(grid_w):
            x = T(T(start_w + T(T(pw) * bin_w)) + T(T(T(ix + 0.5) * bin_w) / T(grid_w)))
            total = T(total + _bilinear(plane, y, x, T))
    with np.errstate(invalid="ignore", divide="ignore"):
        return T(total / count)


def roi_align(x: np.ndarray, rois: np.ndarray, scale, ph_count, pw_count, sampling_ratio, aligned):
    T = x.dtype.type
    out = np.zeros((len(rois), x.shape[1], ph_count, pw_count), dtype=x.dtype)
    for n, roi in enumerate(rois):
        bins = _align_bins(roi, T(scale), T(0.5) if aligned else T(0), not aligned, ph_count, pw_count,
                           sampling_ratio, T)
        count = T(max(bins[5] * bins[6], 1))
        for c in range(x.shape[1]):
            for ph in range(ph_count):
                for pw in range(pw_count):
                    out[n, c, ph, pw] = _bin_mean(x[bins[0], c], bins, ph, pw, count, T)
    return out


def ps_roi_align(x, rois, scale, ph_count, pw_count, sampling_ratio):
    T = x.dtype.type
    channels_out = x.shape[1] // (ph_count * pw_count)
    out = np.zeros((len(rois), channels_out, ph_count, pw_count), dtype=x.dtype)
    mapping = np.zeros(out.shape, dtype=np.int32)
    for n, roi in enumerate(rois):
        bins = _align_bins(roi, T(scale), T(0.5), False, ph_count, pw_count, sampling_ratio, T)
        count = T(bins[5] * bins[6])
        for c_out in range(channels_out):
            for ph in range(ph_count):
                for pw in range(pw_count):
                    c_in = (c_out * ph_count + ph) * pw_count + pw
                    out[n, c_out, ph, pw] = _bin_mean(x[bins[0], c_in], bins, ph, pw, count, T)
                    mapping[n, c_out, ph, pw] = c_in
    return out, mapping


def _pool_bin(ph, pw, bin_h, bin_w, start_h, start_w, limit_h, limit_w, T):
    def clip(v, limit):
        return min(max(v, 0), limit)
    return (clip(math.floor(T(T(ph) * bin_h)) + start_h, limit_h), clip(math.ceil(T(T(ph + 1) * bin_h)) + start_h, limit_h),
            clip(math.floor(T(T(pw) * bin_w)) + start_w, limit_w), clip(math.ceil(T(T(pw + 1) * bin_w)) + start_w, limit_w))


def _round(v) -> int:
    """C's round: halves away from zero (Python's round goes to even); in float64, where adding the half
    to a float32 value is exact."""
    return math.floor(abs(float(v)) + 0.5) * (1 if v >= 0 else -1)


def roi_pool(x, rois, scale, ph_count, pw_count):
    T = x.dtype.type
    out = np.zeros((len(rois), x.shape[1], ph_count, pw_count), dtype=x.dtype)
    argmax = np.zeros(out.shape, dtype=np.int32)
    height, width = x.shape[2:]
    for n, roi in enumerate(rois):
        start_w, start_h = _round(T(roi[1] * T(scale))), _round(T(roi[2] * T(scale)))
        roi_w = max(_round(T(roi[3] * T(scale))) - start_w + 1, 1)
        roi_h = max(_round(T(roi[4] * T(scale))) - start_h + 1, 1)
        bin_h, bin_w = T(T(roi_h) / T(ph_count)), T(T(roi_w) / T(pw_count))
        for ph in range(ph_count):
            for pw in range(pw_count):
                h0, h1, w0, w1 = _pool_bin(ph, pw, bin_h, bin_w, start_h, start_w, height, width, T)
                empty = h1 <= h0 or w1 <= w0
                for c in range(x.shape[1]):
                    with np.errstate(over="ignore"):  # -FLT_MAX is -inf in half, as in c10::Half
                        best, where = (T(0) if empty else T(-np.finfo(np.float32).max)), -1
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            if x[int(roi[0]), c, h, w] > best:
                                best, where = x[int(roi[0]), c, h, w], h * width + w
                    out[n, c, ph, pw], argmax[n, c, ph, pw] = best, where
    return out, argmax


def ps_roi_pool(x, rois, scale, ph_count, pw_count):
    T = x.dtype.type
    channels_out = x.shape[1] // (ph_count * pw_count)
    out = np.zeros((len(rois), channels_out, ph_count, pw_count), dtype=x.dtype)
    mapping = np.zeros(out.shape, dtype=np.int32)
    height, width = x.shape[2:]
    for n, roi in enumerate(rois):
        start_w, start_h = _round(T(roi[1] * T(scale))), _round(T(roi[2] * T(scale)))
        roi_w = max(_round(T(roi[3] * T(scale))) - start_w, 1)
        roi_h = max(_round(T(roi[4] * T(scale))) - start_h, 1)
        bin_h, bin_w = T(T(roi_h) / T(ph_count)), T(T(roi_w) / T(pw_count))
        for c_out in range(channels_out):
            for ph in range(ph_count):
                for pw in range(pw_count):
                    h0, h1, w0, w1 = _pool_bin(ph, pw, bin_h, bin_w, start_h, start_w, height - 1, width - 1, T)
                    c_in = (c_out * ph_count + ph) * pw_count + pw
                    total = T(0)
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            total = T(total + x[int(roi[0]), c_in, h, w])
                    empty = h1 <= h0 or w1 <= w0
                    out[n, c_out, ph, pw] = T(0) if empty else T(total / T((h1 - h0) * (w1 - w0)))
                    mapping[n, c_out, ph, pw] = c_in
    return out, mapping


def nms(boxes, scores, threshold):
    T = boxes.dtype.type
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: equal scores keep index order
    area = [T(T(b[2] - b[0]) * T(b[3] - b[1])) for b in boxes]
    suppressed, keep = set(), []
    for a, i in enumerate(order):
        if i in suppressed:
            continue
        keep.append(i)
        for j in order[a + 1:]:
            if j in suppressed:
                continue
            w = max(T(0), T(min(boxes[i][2], boxes[j][2]) - max(boxes[i][0], boxes[j][0])))
            h = max(T(0), T(min(boxes[i][3], boxes[j][3]) - max(boxes[i][1], boxes[j][1])))
            with np.errstate(invalid="ignore", divide="ignore"):
                if np.dtype(T).itemsize == 2:  # torchvision's CUDA kernel on half boxes: see _half_iou
                    if _half_iou(boxes[i], boxes[j], w, h, T) > np.float32(threshold):
                        suppressed.add(j)
                elif T(T(w * h) / T(T(area[i] + area[j]) - T(w * h))) > threshold:
                    suppressed.add(j)
    return np.array(keep, dtype=np.int64)


def _half_iou(a, b, w, h, T):
    """IoU as torchvision's CUDA nms computes it for 16-bit boxes: the overlap's sides in T, everything
    after in float32 (at::acc_type), each area's width widened before its subtraction, its height after."""
    f = np.float32
    inter = f(w) * f(h)
    area_a = (f(a[2]) - f(a[0])) * f(T(a[3] - a[1]))
    area_b = (f(b[2]) - f(b[0])) * f(T(b[3] - b[1]))
    return inter / (area_a + area_b - inter)


def _deform_sample(plane, y, x, T):
    height, width = plane.shape
    if y <= -1 or height <= y or x <= -1 or width <= x:
        return T(0)
    y_low, x_low = math.floor(y), math.floor(x)
    y_high, x_high = y_low + 1, x_low + 1
    ly, lx = T(y - T(y_low)), T(x - T(x_low))
    hy, hx = T(T(1) - ly), T(T(1) - lx)

    def at(h, w):
        return plane[h, w] if 0 <= h < height and 0 <= w < width else T(0)
    return T(T(T(T(hy * hx) * at(y_low, x_low) + T(hy * lx) * at(y_low, x_high)) + T(ly * hx) * at(y_high, x_low))
             + T(ly * lx) * at(y_high, x_high))


def deform_conv2d(x, weight, offset, mask, bias, stride, padding, dilation, groups, offset_groups, use_mask):
    """The convolution of deformed samples; the weighted sum in float64 (torchvision's is a GEMM in T:
    the test's tolerance covers the order)."""
    T = x.dtype.type
    batch, in_c, height, width = x.shape
    out_c, group_in, kh, kw = weight.shape
    out_h = (height + 2 * padding[0] - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    out_w = (width + 2 * padding[1] - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    columns = np.zeros((batch, in_c, kh, kw, out_h, out_w), dtype=x.dtype)
    per_group = in_c // offset_groups
    for b in range(batch):
        for c in range(in_c):
            g = c // per_group
            for i in range(kh):
                for j in range(kw):
                    tap = i * kw + j
                    for oy in range(out_h):
                        for ox in range(out_w):
                            dy = offset[b, g * 2 * kh * kw + 2 * tap, oy, ox]
                            dx = offset[b, g * 2 * kh * kw + 2 * tap + 1, oy, ox]
                            y = T(T(oy * stride[0] - padding[0] + i * dilation[0]) + dy)
                            xx = T(T(ox * stride[1] - padding[1] + j * dilation[1]) + dx)
                            m = mask[b, g * kh * kw + tap, oy, ox] if use_mask else T(1)
                            columns[b, c, i, j, oy, ox] = T(m * _deform_sample(x[b, c], y, xx, T))
    out = np.zeros((batch, out_c, out_h, out_w), dtype=np.float64)
    per_out = out_c // groups
    for oc in range(out_c):
        g = oc // per_out
        cols = columns[:, g * group_in:(g + 1) * group_in].astype(np.float64)
        out[:, oc] = np.einsum("bcijyx,cij->byx", cols, weight[oc].astype(np.float64))
    return (out.astype(x.dtype) + bias.reshape(1, -1, 1, 1)).astype(x.dtype)
