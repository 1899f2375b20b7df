"""Reference values for tests/test_detection_loss.cpp: YOLOv8's task-aligned assignment and
detection loss written the straightforward way, one image and one box at a time with boolean
selection, so the dense fixed-shape C++ version is checked against an independent formulation.

  detection_loss_fixture.py OUT.pt

writes a plain dict: "levels" (list of three head outputs [B, 4*16+C, H, W] for a 64x64 input at
strides 8/16/32), "targets" ([B, M, 5] rows class, cx, cy, w, h in pixels, class -1 = padding),
"target_scores" ([B, A, C]), "parts" ([3]: box, cls, dfl, gains applied, times B) and "gradients"
(the gradient of the parts' sum with respect to each of "levels", by autograd). As in Ultralytics,
the assignment sees detached predictions: the targets it makes are constants to the loss.
"""
import math
import sys

import torch

REG_MAX = 16
STRIDES = (8, 16, 32)
CLASSES = 3
TOPK, ALPHA, BETA = 10, 0.5, 6.0
GAINS = (7.5, 0.5, 1.5)


def complete_iou(a, b, eps=1e-7):
    """CIoU of xyxy boxes (Zheng et al. 2020) with eps added to the heights, the union and the
    enclosing diagonal, and the aspect-ratio weight treated as a constant."""
    ax1, ay1, ax2, ay2 = a.unbind(-1)
    bx1, by1, bx2, by2 = b.unbind(-1)
    aw, ah = ax2 - ax1, ay2 - ay1 + eps
    bw, bh = bx2 - bx1, by2 - by1 + eps
    overlap_w = (torch.minimum(ax2, bx2) - torch.maximum(ax1, bx1)).clamp(min=0)
    overlap_h = (torch.minimum(ay2, by2) - torch.maximum(ay1, by1)).clamp(min=0)
    inter = overlap_w * overlap_h
    iou = inter / (aw * ah + bw * bh - inter + eps)
    outer_w = torch.maximum(ax2, bx2) - torch.minimum(ax1, bx1)
    outer_h = torch.maximum(ay2, by2) - torch.minimum(ay1, by1)
    diagonal = outer_w ** 2 + outer_h ** 2 + eps
    centres = ((ax1 + ax2 - bx1 - bx2) ** 2 + (ay1 + ay2 - by1 - by2) ** 2) / 4
    shape = 4 / math.pi ** 2 * (torch.atan(bw / bh) - torch.atan(aw / ah)) ** 2
    weight = (shape / (shape - iou + (1 + eps))).detach()
    return iou - (centres / diagonal + shape * weight)


def anchor_grid(levels):
    centres, strides = [], []
    for level, stride in zip(levels, STRIDES):
        height, width = level.shape[2:]
        for y in range(height):
            for x in range(width):
                centres.append((x + 0.5, y + 0.5))
                strides.append(float(stride))
    return torch.tensor(centres), torch.tensor(strides)


def assign(gt, labels, centres_px, boxes_px, probabilities, topk=TOPK, topk2=None, reach=lambda box: box):
    """Owner box index per anchor (-1 = background) and the score target of each anchor. `reach`
    gives the box that candidate selection sees (8.4's small-target rule grows it); with `topk2`,
    each box keeps only its best topk2 positives after conflicts are resolved (8.4's one-to-one)."""
    anchors = centres_px.shape[0]
    count = gt.shape[0]
    metric = torch.zeros(count, anchors)
    overlap = torch.zeros(count, anchors)
    claims = torch.zeros(count, anchors, dtype=torch.bool)
    for g in range(count):
        box = reach(gt[g])
        margins = torch.stack([centres_px[:, 0] - box[0], centres_px[:, 1] - box[1],
                               box[2] - centres_px[:, 0], box[3] - centres_px[:, 1]], 1)
        inside = margins.min(1).values > 1e-9
        iou = complete_iou(gt[g].expand(anchors, 4), boxes_px).clamp(min=0)
        overlap[g] = torch.where(inside, iou, torch.zeros(()))
        metric[g] = torch.where(inside, probabilities[:, labels[g]] ** ALPHA * iou ** BETA, torch.zeros(()))
        claims[g, metric[g].topk(min(topk, anchors)).indices] = True
        claims[g] &= inside
    owner = torch.full((anchors,), -1, dtype=torch.long)
    for a in range(anchors):
        claimants = [g for g in range(count) if claims[g, a]]
        if len(claimants) == 1:
            owner[a] = claimants[0]
        elif len(claimants) > 1:
            owner[a] = int(overlap[:, a].argmax())
    for g in range(count if topk2 else 0):
        mine = (owner == g).nonzero().flatten()
        if len(mine) > topk2:
            owner[mine[metric[g, mine].argsort(descending=True)][topk2:]] = -1
    scores = torch.zeros(anchors, CLASSES)
    for g in range(count):
        mine = owner == g
        if mine.any():
            best_metric = metric[g][mine].max()
            best_overlap = overlap[g][mine].max()
            scores[mine, labels[g]] = metric[g][mine] * best_overlap / (best_metric + 1e-9)
    return owner, scores


def reference_loss(levels, targets):
    batch = levels[0].shape[0]
    centres, strides = anchor_grid(levels)
    outputs = torch.cat([level.reshape(batch, level.shape[1], -1) for level in levels], 2).permute(0, 2, 1)
    anchors = outputs.shape[1]
    box_logits = outputs[..., :4 * REG_MAX].reshape(batch, anchors, 4, REG_MAX)
    class_logits = outputs[..., 4 * REG_MAX:]
    distances = (box_logits.softmax(-1) * torch.arange(REG_MAX, dtype=torch.float)).sum(-1)
    predicted = torch.cat([centres - distances[..., :2], centres + distances[..., 2:]], -1)  # grid units

    target_scores = torch.zeros(batch, anchors, CLASSES)
    box_sum, dfl_sum = torch.zeros(()), torch.zeros(())
    for b in range(batch):
        rows = targets[b][targets[b, :, 0] >= 0]
        labels = rows[:, 0].long()
        gt = torch.cat([rows[:, 1:3] - rows[:, 3:5] / 2, rows[:, 1:3] + rows[:, 3:5] / 2], 1)
        owner, scores = assign(gt, labels, centres * strides[:, None], (predicted[b] * strides[:, None]).detach(),
                               class_logits[b].detach().sigmoid())
        target_scores[b] = scores
        for a in (owner >= 0).nonzero().flatten().tolist():
            weight = scores[a].sum()
            target = gt[owner[a]] / strides[a]
            box_sum += (1 - complete_iou(predicted[b, a], target)) * weight
            sides = torch.cat([centres[a] - target[:2], target[2:] - centres[a]]).clamp(0, REG_MAX - 1 - 0.01)
            side_losses = []
            for side in range(4):
                low = int(sides[side])
                upper_share = sides[side] - low
                log_p = box_logits[b, a, side].log_softmax(-1)
                side_losses.append(-(log_p[low] * (1 - upper_share) + log_p[low + 1] * upper_share))
            dfl_sum += torch.stack(side_losses).mean() * weight
    score_sum = max(float(target_scores.sum()), 1.0)
    cls_sum = torch.nn.functional.binary_cross_entropy_with_logits(class_logits, target_scores, reduction="sum")
    parts = torch.stack([box_sum * GAINS[0], cls_sum * GAINS[1], dfl_sum * GAINS[2]]) / score_sum * batch
    return parts, target_scores


def main(path):
    torch.manual_seed(0)
    batch, size = 2, 64
    levels = []
    for stride in STRIDES:
        cells = size // stride
        level = torch.randn(batch, 4 * REG_MAX + CLASSES, cells, cells)
        # Favour short distances so predicted boxes are about as large as the targets.
        level[:, :4 * REG_MAX] -= 0.4 * torch.arange(REG_MAX, dtype=torch.float).repeat(4)[None, :, None, None]
        levels.append(level.requires_grad_())
    padding = [-1.0, 0.0, 0.0, 0.0, 0.0]
    targets = torch.tensor([
        [[0, 20, 22, 24, 20], [2, 30, 26, 30, 36], [1, 48, 44, 20, 30], [0, 12, 50, 18, 14]],
        [[1, 34, 30, 40, 44], padding, padding, padding],
    ])
    parts, target_scores = reference_loss(levels, targets)
    parts.sum().backward()
    torch.save({"levels": [level.detach() for level in levels], "targets": targets, "target_scores": target_scores,
                "parts": parts.detach(), "gradients": [level.grad for level in levels]}, path)


if __name__ == "__main__":
    main(sys.argv[1])
