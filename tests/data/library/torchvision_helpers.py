"""torchvision 0.14's traced helpers as plain functions (issue 21): box ops (ops/boxes.py), the box coder
(models/detection/_utils.py), the anchor generator (anchor_utils.py), resize_boxes, max_by_axis and batch_images (transform.py)
batched_nms's coordinate trick, box_convert's conversions, generalized_box_iou, masks_to_boxes and roi_heads.py's
maskrcnn_inference, expand_boxes and expand_masks, their sizes taken from tensors as the detection models pass them.
torchvision._is_tracing() is torch._C._get_tracing_state(): PyTorch's script compiler folds it to False, JitScope's
keeps the If (its script graph differs from PyTorch's there, which is why these are not in corpus/) and a trace takes
the branch Python's trace takes.
"""
import math
from typing import List, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor


def clip_boxes_to_image(boxes: Tensor, image: Tensor) -> Tensor:
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = image.shape[-2], image.shape[-1]
    if torch._C._get_tracing_state():
        boxes_x = torch.max(boxes_x, torch.tensor(0, dtype=boxes.dtype, device=boxes.device))
        boxes_x = torch.min(boxes_x, torch.tensor(width, dtype=boxes.dtype, device=boxes.device))
        boxes_y = torch.max(boxes_y, torch.tensor(0, dtype=boxes.dtype, device=boxes.device))
        boxes_y = torch.min(boxes_y, torch.tensor(height, dtype=boxes.dtype, device=boxes.device))
    else:
        boxes_x = boxes_x.clamp(min=0, max=width)
        boxes_y = boxes_y.clamp(min=0, max=height)
    clipped_boxes = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped_boxes.reshape(boxes.shape)


def box_area(boxes: Tensor) -> Tensor:
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    return inter / union


def remove_small_boxes(boxes: Tensor) -> Tensor:
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= 0.25) & (hs >= 0.25)
    keep = torch.where(keep)[0]
    return keep


def encode_boxes(reference_boxes: Tensor, proposals: Tensor, weights: Tensor) -> Tensor:
    wx = weights[0]
    wy = weights[1]
    ww = weights[2]
    wh = weights[3]
    proposals_x1 = proposals[:, 0].unsqueeze(1)
    proposals_y1 = proposals[:, 1].unsqueeze(1)
    proposals_x2 = proposals[:, 2].unsqueeze(1)
    proposals_y2 = proposals[:, 3].unsqueeze(1)
    reference_boxes_x1 = reference_boxes[:, 0].unsqueeze(1)
    reference_boxes_y1 = reference_boxes[:, 1].unsqueeze(1)
    reference_boxes_x2 = reference_boxes[:, 2].unsqueeze(1)
    reference_boxes_y2 = reference_boxes[:, 3].unsqueeze(1)
    ex_widths = proposals_x2 - proposals_x1
    ex_heights = proposals_y2 - proposals_y1
    ex_ctr_x = proposals_x1 + 0.5 * ex_widths
    ex_ctr_y = proposals_y1 + 0.5 * ex_heights
    gt_widths = reference_boxes_x2 - reference_boxes_x1
    gt_heights = reference_boxes_y2 - reference_boxes_y1
    gt_ctr_x = reference_boxes_x1 + 0.5 * gt_widths
    gt_ctr_y = reference_boxes_y1 + 0.5 * gt_heights
    targets_dx = wx * (gt_ctr_x - ex_ctr_x) / ex_widths
    targets_dy = wy * (gt_ctr_y - ex_ctr_y) / ex_heights
    targets_dw = ww * torch.log(gt_widths / ex_widths)
    targets_dh = wh * torch.log(gt_heights / ex_heights)
    targets = torch.cat((targets_dx, targets_dy, targets_dw, targets_dh), dim=1)
    return targets


def decode_single(rel_codes: Tensor, boxes: Tensor) -> Tensor:
    boxes = boxes.to(rel_codes.dtype)
    widths = boxes[:, 2] - boxes[:, 0]
    heights = boxes[:, 3] - boxes[:, 1]
    ctr_x = boxes[:, 0] + 0.5 * widths
    ctr_y = boxes[:, 1] + 0.5 * heights
    wx, wy, ww, wh = (10.0, 10.0, 5.0, 5.0)
    dx = rel_codes[:, 0::4] / wx
    dy = rel_codes[:, 1::4] / wy
    dw = rel_codes[:, 2::4] / ww
    dh = rel_codes[:, 3::4] / wh
    dw = torch.clamp(dw, max=math.log(1000.0 / 16))
    dh = torch.clamp(dh, max=math.log(1000.0 / 16))
    pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
    pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
    pred_w = torch.exp(dw) * widths[:, None]
    pred_h = torch.exp(dh) * heights[:, None]
    c_to_c_h = torch.tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
    c_to_c_w = torch.tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w
    pred_boxes1 = pred_ctr_x - c_to_c_w
    pred_boxes2 = pred_ctr_y - c_to_c_h
    pred_boxes3 = pred_ctr_x + c_to_c_w
    pred_boxes4 = pred_ctr_y + c_to_c_h
    pred_boxes = torch.stack((pred_boxes1, pred_boxes2, pred_boxes3, pred_boxes4), dim=2).flatten(1)
    return pred_boxes


def generate_anchors(feature: Tensor) -> Tensor:
    scales = torch.as_tensor([32, 64], dtype=feature.dtype, device=feature.device)
    aspect_ratios = torch.as_tensor([0.5, 1.0, 2.0], dtype=feature.dtype, device=feature.device)
    h_ratios = torch.sqrt(aspect_ratios)
    w_ratios = 1 / h_ratios
    ws = (w_ratios[:, None] * scales[None, :]).view(-1)
    hs = (h_ratios[:, None] * scales[None, :]).view(-1)
    base_anchors = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
    return base_anchors.round()


def grid_anchors(feature: Tensor, image: Tensor) -> Tensor:
    grid_sizes = [feature.shape[-2:]]
    image_size = image.shape[-2:]
    strides = [
        [
            torch.empty((), dtype=torch.int64, device=feature.device).fill_(image_size[0] // g[0]),
            torch.empty((), dtype=torch.int64, device=feature.device).fill_(image_size[1] // g[1]),
        ]
        for g in grid_sizes
    ]
    base_anchors = generate_anchors(feature)
    anchors = []
    for size, stride in zip(grid_sizes, strides):
        grid_height, grid_width = size
        stride_height, stride_width = stride
        shifts_x = torch.arange(0, grid_width, dtype=torch.int32, device=feature.device) * stride_width
        shifts_y = torch.arange(0, grid_height, dtype=torch.int32, device=feature.device) * stride_height
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shift_x = shift_x.reshape(-1)
        shift_y = shift_y.reshape(-1)
        shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
        anchors.append((shifts.view(-1, 1, 4) + base_anchors.view(1, -1, 4)).reshape(-1, 4))
    return torch.cat(anchors)


def resize_boxes(boxes: Tensor, image: Tensor, resized: Tensor) -> Tensor:
    original_size = list(image.shape[-2:])
    new_size = list(resized.shape[-2:])
    ratios = [
        torch.tensor(s, dtype=torch.float32, device=boxes.device)
        / torch.tensor(s_orig, dtype=torch.float32, device=boxes.device)
        for s, s_orig in zip(new_size, original_size)
    ]
    ratio_height, ratio_width = ratios
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    xmin = xmin * ratio_width
    xmax = xmax * ratio_width
    ymin = ymin * ratio_height
    ymax = ymax * ratio_height
    return torch.stack((xmin, ymin, xmax, ymax), dim=1)


def max_by_axis(the_list: List[List[int]]) -> List[int]:
    maxes = the_list[0]
    for sublist in the_list[1:]:
        for index, item in enumerate(sublist):
            maxes[index] = max(maxes[index], item)
    return maxes


def batch_images(first: Tensor, second: Tensor) -> Tensor:
    # GeneralizedRCNNTransform.batch_images without its tracing branch (_onnx_batch_images, which does not script)
    images = [first, second]
    max_size = max_by_axis([list(img.shape) for img in images])
    stride = float(32)
    max_size = list(max_size)
    max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
    max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
    batch_shape = [len(images)] + max_size
    batched_imgs = images[0].new_full(batch_shape, 0)
    for i in range(batched_imgs.shape[0]):
        img = images[i]
        batched_imgs[i, : img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
    return batched_imgs


def batched_nms_offsets(boxes: Tensor, scores: Tensor, idxs: Tensor) -> Tensor:
    # _batched_nms_coordinate_trick up to the nms call (torchvision's nms is an operator of its own library)
    if boxes.numel() == 0:
        return torch.empty((0, 4), dtype=boxes.dtype, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
    boxes_for_nms = boxes + offsets[:, None]
    return boxes_for_nms * scores[:, None]



def box_cxcywh_to_xyxy(boxes: Tensor) -> Tensor:
    cx, cy, w, h = boxes.unbind(-1)
    x1 = cx - 0.5 * w
    y1 = cy - 0.5 * h
    x2 = cx + 0.5 * w
    y2 = cy + 0.5 * h
    boxes = torch.stack((x1, y1, x2, y2), dim=-1)
    return boxes


def box_xyxy_to_cxcywh(boxes: Tensor) -> Tensor:
    x1, y1, x2, y2 = boxes.unbind(-1)
    cx = (x1 + x2) / 2
    cy = (y1 + y2) / 2
    w = x2 - x1
    h = y2 - y1
    boxes = torch.stack((cx, cy, w, h), dim=-1)
    return boxes


def generalized_box_iou(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    iou = inter / union
    lti = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rbi = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    whi = (rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def masks_to_boxes(masks: Tensor) -> Tensor:
    if masks.numel() == 0:
        return torch.zeros((0, 4), device=masks.device, dtype=torch.float)
    n = masks.shape[0]
    bounding_boxes = torch.zeros((n, 4), device=masks.device, dtype=torch.float)
    for index, mask in enumerate(masks):
        y, x = torch.where(mask != 0)
        bounding_boxes[index, 0] = torch.min(x)
        bounding_boxes[index, 1] = torch.min(y)
        bounding_boxes[index, 2] = torch.max(x)
        bounding_boxes[index, 3] = torch.max(y)
    return bounding_boxes


def maskrcnn_inference(x: Tensor, labels: List[Tensor]) -> List[Tensor]:
    # roi_heads.py
    mask_prob = x.sigmoid()
    num_masks = x.shape[0]
    boxes_per_image = [label.shape[0] for label in labels]
    labels = torch.cat(labels)
    index = torch.arange(num_masks, device=labels.device)
    mask_prob = mask_prob[index, labels][:, None]
    mask_prob = mask_prob.split(boxes_per_image, dim=0)
    return mask_prob


def expand_boxes(boxes: Tensor) -> Tensor:
    # roi_heads.py, with the scale fixed; while tracing it is _onnx_expand_boxes
    scale = 1.5
    if torch._C._get_tracing_state():
        w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5
        h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5
        x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
        y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
        w_half = w_half.to(dtype=torch.float32) * scale
        h_half = h_half.to(dtype=torch.float32) * scale
        boxes_exp0 = x_c - w_half
        boxes_exp1 = y_c - h_half
        boxes_exp2 = x_c + w_half
        boxes_exp3 = y_c + h_half
        return torch.stack((boxes_exp0, boxes_exp1, boxes_exp2, boxes_exp3), 1)
    w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5
    h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5
    x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
    y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
    w_half *= scale
    h_half *= scale
    boxes_exp = torch.zeros_like(boxes)
    boxes_exp[:, 0] = x_c - w_half
    boxes_exp[:, 2] = x_c + w_half
    boxes_exp[:, 1] = y_c - h_half
    boxes_exp[:, 3] = y_c + h_half
    return boxes_exp


def expand_masks(mask: Tensor, padding: int = 1) -> Tensor:
    # roi_heads.py; its tracing branch calls expand_masks_tracing_scale (torch.jit.unused), written out here
    M = mask.shape[-1]
    padded_mask = F.pad(mask, [padding, padding, padding, padding])
    if torch._C._get_tracing_state():
        scale = torch.tensor(M + 2 * padding).to(torch.float32) / torch.tensor(M).to(torch.float32)
        return padded_mask * scale
    return padded_mask * (float(M + 2 * padding) / M)

inputs = (torch.rand(5, 4), torch.rand(3, 6, 8))


if __name__ == "__main__":
    # `jitscope-cli check FILE --python --self-check` runs these (tst_pythoncli): JitScope's own trace of every call
    # equals PyTorch's node for node.
    torch.manual_seed(0)
    torch.jit.trace(clip_boxes_to_image, (torch.rand(5, 4), torch.rand(3, 6, 8)),
                    check_inputs=[(torch.rand(3, 4), torch.rand(3, 10, 7))])
    torch.jit.trace(box_iou, (torch.rand(5, 4), torch.rand(3, 4)), check_inputs=[(torch.rand(2, 4), torch.rand(6, 4))])
    torch.jit.trace(remove_small_boxes, (torch.randn(6, 4),), check_inputs=[(torch.randn(4, 4),)])
    boxes = torch.arange(20.0).view(5, 4)
    torch.jit.trace(encode_boxes, (boxes, boxes, torch.ones(4)))
    torch.jit.trace(decode_single, (torch.rand(5, 4), torch.rand(5, 4)),
                    check_inputs=[(torch.rand(3, 8), torch.rand(3, 4))])
    torch.jit.trace(generate_anchors, (torch.rand(1, 2, 4, 4),))
    torch.jit.trace(grid_anchors, (torch.rand(1, 2, 4, 5), torch.rand(1, 3, 16, 20)),
                    check_inputs=[(torch.rand(1, 2, 3, 3), torch.rand(1, 3, 12, 12))])
    torch.jit.trace(resize_boxes, (torch.rand(5, 4), torch.rand(3, 6, 8), torch.rand(3, 12, 16)),
                    check_inputs=[(torch.rand(2, 4), torch.rand(3, 5, 5), torch.rand(3, 10, 15))])
    torch.jit.trace(batch_images, (torch.rand(3, 20, 30), torch.rand(3, 25, 18)),
                    check_inputs=[(torch.rand(3, 40, 33), torch.rand(3, 10, 10))], check_trace=False)
    torch.jit.trace(batched_nms_offsets, (torch.rand(5, 4), torch.rand(5), torch.tensor([0, 1, 0, 2, 1])),
                    check_inputs=[(torch.rand(3, 4), torch.rand(3), torch.tensor([1, 1, 0]))])
    torch.jit.trace(generalized_box_iou, (boxes, boxes[:3] + 1.0), check_inputs=[(boxes[:2], boxes + 2.0)])
    torch.jit.trace(expand_masks, (torch.rand(2, 1, 4, 4),), check_inputs=[(torch.rand(3, 1, 6, 6),)])
