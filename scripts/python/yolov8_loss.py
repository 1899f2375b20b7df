"""YOLOv8's training loss (task-aligned assignment, CIoU, DFL, BCE) over a whole batch at once,
the way a PyTorch training loop computes it: dense tensors for the assignment, then boolean
selection of the foreground anchors, whose count changes from batch to batch. It is the loss the
PyTorch side of bench_compile.py trains YOLOv8n with, so that both sides do the same work per step.

  yolov8_loss.py check

compares it with detection_loss_fixture.reference_loss (the image-by-image formulation the C++
loss is tested against) on that fixture's inputs and on random ones, and exits non-zero when
they differ.
"""
import sys

import torch

from detection_loss_fixture import ALPHA, BETA, GAINS, REG_MAX, STRIDES, TOPK, complete_iou


class DetectionLoss:
    """loss(levels, targets) -> (total, parts [box, cls, dfl]); targets [B, M, 5] rows class, cx,
    cy, w, h in pixels, class -1 = padding. Anchor grids are kept per feature-map size."""

    def __init__(self, classes):
        self.classes = classes
        self.grids = {}

    def anchor_grid(self, levels):
        key = tuple(level.shape[2:] for level in levels) + (levels[0].device,)
        if key not in self.grids:
            centres, strides = [], []
            for level, stride in zip(levels, STRIDES):
                height, width = level.shape[2:]
                y, x = torch.meshgrid(torch.arange(height, device=level.device),
                                      torch.arange(width, device=level.device), indexing="ij")
                centres.append(torch.stack([x, y], -1).reshape(-1, 2).float() + 0.5)
                strides.append(torch.full((height * width,), float(stride), device=level.device))
            self.grids[key] = torch.cat(centres), torch.cat(strides)
        return self.grids[key]

    @torch.no_grad()
    def assign(self, gt, labels, valid, centres_px, boxes_px, probabilities):
        """Owner box per anchor [B, A], foreground mask [B, A] and score targets [B, A, C]."""
        margins = torch.cat([centres_px[None, None] - gt[:, :, None, :2], gt[:, :, None, 2:] - centres_px[None, None]],
                            -1)
        inside = (margins.amin(-1) > 1e-9) & valid[:, :, None]  # [B, M, A]
        iou = complete_iou(gt[:, :, None, :], boxes_px[:, None, :, :]).clamp(min=0)
        overlap = iou * inside
        class_probability = probabilities.permute(0, 2, 1).gather(
            1, labels.clamp(min=0)[:, :, None].expand(-1, -1, probabilities.shape[1]))
        metric = class_probability ** ALPHA * iou ** BETA * inside
        top = metric.topk(min(TOPK, metric.shape[-1]), -1).indices
        claims = torch.zeros_like(inside).scatter_(-1, top, True) & inside
        claimants = claims.sum(1)  # [B, A]
        # An anchor several boxes claim goes to the one it overlaps most.
        owner = torch.where(claimants > 1, overlap.argmax(1), claims.float().argmax(1))
        foreground = claimants > 0
        owned = (owner[:, None, :] == torch.arange(gt.shape[1], device=gt.device)[None, :, None]) & foreground[:, None]
        owned_metric = metric * owned
        best_metric = owned_metric.amax(-1, keepdim=True)
        best_overlap = (overlap * owned).amax(-1, keepdim=True)
        score = (owned_metric * best_overlap / (best_metric + 1e-9)).amax(1)  # [B, A]
        owner_label = labels.gather(1, owner).clamp(min=0)
        scores = torch.nn.functional.one_hot(owner_label, self.classes).float() * (score * foreground)[..., None]
        return owner, foreground, scores

    def __call__(self, levels, targets):
        batch = levels[0].shape[0]
        centres, strides = self.anchor_grid(levels)
        outputs = torch.cat([level.float().reshape(batch, level.shape[1], -1) for level in levels], 2).permute(0, 2, 1)
        anchors = outputs.shape[1]
        box_logits = outputs[..., :4 * REG_MAX].reshape(batch, anchors, 4, REG_MAX)
        class_logits = outputs[..., 4 * REG_MAX:]
        bins = torch.arange(REG_MAX, dtype=torch.float, device=outputs.device)
        distances = (box_logits.softmax(-1) * bins).sum(-1)
        predicted = torch.cat([centres - distances[..., :2], centres + distances[..., 2:]], -1)  # grid units

        labels = targets[..., 0].long()
        valid = labels >= 0
        gt = torch.cat([targets[..., 1:3] - targets[..., 3:5] / 2, targets[..., 1:3] + targets[..., 3:5] / 2], -1)
        owner, foreground, target_scores = self.assign(
            gt, labels, valid, centres * strides[:, None], predicted.detach() * strides[:, None],
            class_logits.detach().sigmoid())
        score_sum = target_scores.sum().clamp(min=1)
        cls_sum = torch.nn.functional.binary_cross_entropy_with_logits(class_logits, target_scores, reduction="sum")

        weight = target_scores.sum(-1)[foreground]
        target = (gt.gather(1, owner[..., None].expand(-1, -1, 4)) / strides[:, None])[foreground]
        box_sum = ((1 - complete_iou(predicted[foreground], target)) * weight).sum()
        anchor_centres = centres.expand(batch, -1, -1)[foreground]
        sides = torch.cat([anchor_centres - target[:, :2], target[:, 2:] - anchor_centres], -1).clamp(0, REG_MAX - 1.01)
        low = sides.long()
        upper_share = sides - low
        log_p = box_logits[foreground].log_softmax(-1)
        side_losses = -(log_p.gather(-1, low[..., None])[..., 0] * (1 - upper_share)
                        + log_p.gather(-1, (low + 1)[..., None])[..., 0] * upper_share)
        dfl_sum = (side_losses.mean(-1) * weight).sum()
        parts = torch.stack([box_sum * GAINS[0], cls_sum * GAINS[1], dfl_sum * GAINS[2]]) / score_sum * batch
        return parts.sum(), parts.detach()


def check():
    import detection_loss_fixture as fixture
    torch.manual_seed(0)
    failures = 0
    for case in range(4):
        batch, size = 2, 64 if case == 0 else 96
        levels = []
        for stride in STRIDES:
            level = torch.randn(batch, 4 * REG_MAX + fixture.CLASSES, size // stride, size // stride)
            level[:, :4 * REG_MAX] -= 0.4 * torch.arange(REG_MAX, dtype=torch.float).repeat(4)[None, :, None, None]
            levels.append(level)
        targets = torch.full((batch, 4, 5), 0.0)
        targets[..., 0] = -1
        for b in range(batch):
            for m in range(int(torch.randint(1, 5, ()))):
                cx, cy = (torch.rand(2) * 0.6 + 0.2) * size
                w, h = (torch.rand(2) * 0.4 + 0.1) * size
                targets[b, m] = torch.tensor([float(torch.randint(0, fixture.CLASSES, ())), cx, cy, w, h])
        expected, _ = fixture.reference_loss(levels, targets)
        _, parts = DetectionLoss(fixture.CLASSES)(levels, targets)
        close = torch.allclose(parts, expected, rtol=1e-4, atol=1e-5)
        print(f"case {case}: batched {parts.tolist()} reference {expected.tolist()} {'ok' if close else 'DIFFER'}")
        failures += not close
    return failures


if __name__ == "__main__":
    if sys.argv[1:] != ["check"]:
        sys.exit(__doc__)
    sys.exit(1 if check() else 0)
