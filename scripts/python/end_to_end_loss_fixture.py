"""Reference values for tests/test_end_to_end_loss.cpp: YOLO26's end-to-end loss as Ultralytics 8.4
trains it (utils/loss.py E2ELoss over v8DetectionLoss, utils/tal.py TaskAlignedAssigner), written
the straightforward way, one image and one box at a time, like detection_loss_fixture.py:

- two branches of head outputs without distance bins (reg_max 1: a side's output is its distance);
- the one-to-many branch assigned with top-10 candidates, the one-to-one branch with top-7 and then
  only each box's single best positive (topk2 = 1);
- candidates chosen with the small-target rule: a box side under 8 px (the finest stride) counts as
  16 px about the box's centre, for candidate selection only;
- the third loss term an L1 of the side distances in pixels over the input's width or height;
- total = w * one-to-many + (1 - w) * one-to-one, w falling from 0.8 at the first epoch to 0.1 at
  the last; the logged parts are the one-to-one branch's.

  end_to_end_loss_fixture.py OUT.pt

writes a plain dict: "levels" (six head outputs [B, 4 + C, H, W]: one-to-many, then one-to-one),
"targets" ([B, M, 5]), "epoch", "epochs", "total", "parts" (the one-to-one [box, cls, l1] times B)
and "gradients" (of the total, per level).
"""
import sys

import torch

from detection_loss_fixture import anchor_grid, assign, complete_iou

STRIDES = (8, 16, 32)
CLASSES = 3
GAINS = (7.5, 0.5, 1.5)
SMALL, GROWN = 8.0, 16.0


def grown(box):
    """The small-target rule: a side under 8 px counts as 16 px about the box's centre."""
    centre, size = (box[:2] + box[2:]) / 2, box[2:] - box[:2]
    size = torch.where(size < SMALL, torch.full_like(size, GROWN), size)
    return torch.cat([centre - size / 2, centre + size / 2])


def branch_loss(levels, targets, topk, topk2):
    batch = levels[0].shape[0]
    height, width = levels[0].shape[2] * STRIDES[0], levels[0].shape[3] * STRIDES[0]
    centres, strides = anchor_grid(levels)
    outputs = torch.cat([level.reshape(batch, level.shape[1], -1) for level in levels], 2).permute(0, 2, 1)
    anchors = outputs.shape[1]
    distances, class_logits = outputs[..., :4], outputs[..., 4:]
    predicted = torch.cat([centres - distances[..., :2], centres + distances[..., 2:]], -1)  # grid units
    per_side = torch.tensor([1 / width, 1 / height, 1 / width, 1 / height])
    target_scores = torch.zeros(batch, anchors, CLASSES)
    box_sum, l1_sum = torch.zeros(()), torch.zeros(())
    for b in range(batch):
        rows = targets[b][targets[b, :, 0] >= 0]
        labels = rows[:, 0].long()
        gt = torch.cat([rows[:, 1:3] - rows[:, 3:5] / 2, rows[:, 1:3] + rows[:, 3:5] / 2], 1)
        owner, scores = assign(gt, labels, centres * strides[:, None], (predicted[b] * strides[:, None]).detach(),
                               class_logits[b].detach().sigmoid(), topk, topk2, grown)
        target_scores[b] = scores
        for a in (owner >= 0).nonzero().flatten().tolist():
            weight = scores[a].sum()
            target = gt[owner[a]] / strides[a]
            box_sum += (1 - complete_iou(predicted[b, a], target)) * weight
            sides = torch.cat([centres[a] - target[:2], target[2:] - centres[a]])  # unclamped
            l1_sum += ((distances[b, a] - sides) * strides[a] * per_side).abs().mean() * weight
    score_sum = max(float(target_scores.sum()), 1.0)
    cls_sum = torch.nn.functional.binary_cross_entropy_with_logits(class_logits, target_scores, reduction="sum")
    return torch.stack([box_sum * GAINS[0], cls_sum * GAINS[1], l1_sum * GAINS[2]]) / score_sum * batch


def main(path):
    torch.manual_seed(1)
    batch, size, epoch, epochs = 2, 64, 3, 10
    levels = []
    for _ in range(2):  # one-to-many, then one-to-one
        for stride in STRIDES:
            cells = size // stride
            level = torch.randn(batch, 4 + CLASSES, cells, cells)
            level[:, :4] = level[:, :4].abs() * 1.5 + 0.5  # positive distances, boxes of a few cells
            levels.append(level.requires_grad_())
    padding = [-1.0, 0.0, 0.0, 0.0, 0.0]
    targets = torch.tensor([
        [[0, 20, 22, 24, 20], [2, 30, 26, 30, 36], [1, 48, 44, 20, 30], [0, 12, 50, 6, 5]],
        [[1, 34, 30, 40, 44], [2, 52, 12, 7, 14], padding, padding],
    ])
    many = branch_loss(levels[:3], targets, 10, None)
    one = branch_loss(levels[3:], targets, 7, 1)
    weight = max(1 - epoch / max(epochs - 1, 1), 0) * (0.8 - 0.1) + 0.1
    total = many.sum() * weight + one.sum() * (1 - weight)
    total.backward()
    torch.save({"levels": [level.detach() for level in levels], "targets": targets, "epoch": epoch,
                "epochs": epochs, "total": total.detach(), "parts": one.detach(),
                "gradients": [level.grad for level in levels]}, path)


if __name__ == "__main__":
    main(sys.argv[1])
