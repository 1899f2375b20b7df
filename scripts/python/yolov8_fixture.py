"""Ultralytics' YOLOv8n, as reference data for tests/test_yolov8.cpp.

  yolov8_fixture.py OUTDIR

No Ultralytics package exists here, so the network is written from Ultralytics' definitions
(nn/modules/conv.py Conv, nn/modules/block.py C2f, Bottleneck, SPPF, DFL, nn/modules/head.py
Detect, cfg/models/v8/yolov8.yaml with the n scale: depth 0.33, width 0.25, max channels 1024),
independently of the C++ model: same module indices and names, same wiring (the Concat inputs
and the order of their parts), 5 classes. Writes
  OUTDIR/yolov8n.pt     a plain dict: "input" [2, 3, 64, 96] and "outputs", the Detect
                        layer's raw per-stride maps [B, 64 + nc, H, W] in eval mode
  OUTDIR/yolov8n_sd.pt  the weights as Ultralytics users export them,
                        torch.save(dict(model.model.state_dict()), ...) where model.model is the
                        DetectionModel, which YOLOv8 here stands for: keys "model.0.conv.weight", ...
"""
import math
import os
import sys

import torch
from torch import nn


def width(channels):
    """make_divisible(min(c, max_channels) * width, 8)."""
    return int(math.ceil(min(channels, 1024) * 0.25 / 8) * 8)


def depth(repeats):
    return max(round(repeats * 0.33), 1)


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut):
        super().__init__()
        self.cv1 = Conv(c1, c2, 3)
        self.cv2 = Conv(c2, c2, 3)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, c1, c2, n, shortcut):
        super().__init__()
        self.c = c2 // 2
        self.cv1 = Conv(c1, 2 * self.c, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2):
        super().__init__()
        hidden = c1 // 2
        self.cv1 = Conv(c1, hidden, 1)
        self.cv2 = Conv(hidden * 4, c2, 1)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        y = [self.cv1(x)]
        y.extend(self.m(y[-1]) for _ in range(3))
        return self.cv2(torch.cat(y, 1))


class DFL(nn.Module):
    def __init__(self, reg_max=16):
        super().__init__()
        self.conv = nn.Conv2d(reg_max, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = torch.arange(reg_max, dtype=torch.float).view(1, reg_max, 1, 1)


class Detect(nn.Module):
    def __init__(self, nc, channels, reg_max=16):
        super().__init__()
        c2 = max(16, channels[0] // 4, reg_max * 4)
        c3 = max(channels[0], min(nc, 100))
        self.cv2 = nn.ModuleList(
            nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * reg_max, 1)) for c in channels)
        self.cv3 = nn.ModuleList(nn.Sequential(Conv(c, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for c in channels)
        self.dfl = DFL(reg_max)

    def forward(self, levels):
        return [torch.cat((box(x), cls(x)), 1) for box, cls, x in zip(self.cv2, self.cv3, levels)]


class YOLOv8(nn.Module):
    def __init__(self, nc):
        super().__init__()
        c = {k: width(k) for k in (64, 128, 256, 512, 1024)}
        self.model = nn.Sequential(
            Conv(3, c[64], 3, 2),                                 # 0
            Conv(c[64], c[128], 3, 2),                            # 1
            C2f(c[128], c[128], depth(3), True),                  # 2
            Conv(c[128], c[256], 3, 2),                           # 3
            C2f(c[256], c[256], depth(6), True),                  # 4  P3
            Conv(c[256], c[512], 3, 2),                           # 5
            C2f(c[512], c[512], depth(6), True),                  # 6  P4
            Conv(c[512], c[1024], 3, 2),                          # 7
            C2f(c[1024], c[1024], depth(3), True),                # 8
            SPPF(c[1024], c[1024]),                               # 9  P5
            nn.Upsample(None, 2, "nearest"),                      # 10
            nn.Identity(),                                        # 11 Concat [-1, 6]
            C2f(c[1024] + c[512], c[512], depth(3), False),       # 12
            nn.Upsample(None, 2, "nearest"),                      # 13
            nn.Identity(),                                        # 14 Concat [-1, 4]
            C2f(c[512] + c[256], c[256], depth(3), False),        # 15 out P3
            Conv(c[256], c[256], 3, 2),                           # 16
            nn.Identity(),                                        # 17 Concat [-1, 12]
            C2f(c[256] + c[512], c[512], depth(3), False),        # 18 out P4
            Conv(c[512], c[512], 3, 2),                           # 19
            nn.Identity(),                                        # 20 Concat [-1, 9]
            C2f(c[512] + c[1024], c[1024], depth(3), False),      # 21 out P5
            Detect(nc, (c[256], c[512], c[1024])))                # 22

    def forward(self, x):
        m = self.model
        saved = {}
        for i in range(10):
            x = m[i](x)
            saved[i] = x
        x = torch.cat([m[10](x), saved[6]], 1)
        saved[12] = x = m[12](x)
        x = torch.cat([m[13](x), saved[4]], 1)
        p3 = x = m[15](x)
        x = torch.cat([m[16](x), saved[12]], 1)
        p4 = x = m[18](x)
        x = torch.cat([m[19](x), saved[9]], 1)
        p5 = m[21](x)
        return m[22]([p3, p4, p5])


@torch.no_grad()
def randomize(model):
    """PyTorch's default init shrinks activations layer by layer until the outputs are little more
    than the last biases; He init and varied norm statistics keep every layer's contribution visible."""
    for module in model.modules():
        if isinstance(module, nn.Conv2d) and module.weight.requires_grad:
            nn.init.kaiming_normal_(module.weight)
        if isinstance(module, nn.BatchNorm2d):
            module.weight.uniform_(0.5, 1.5)
            module.bias.uniform_(-0.2, 0.2)
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)


def main(out_dir):
    torch.manual_seed(0)
    model = YOLOv8(5).eval()
    randomize(model)
    with torch.no_grad():
        batch = torch.rand(2, 3, 64, 96)
        outputs = model(batch)
    torch.save({"input": batch, "outputs": outputs}, os.path.join(out_dir, "yolov8n.pt"))
    torch.save(dict(model.state_dict()), os.path.join(out_dir, "yolov8n_sd.pt"))


if __name__ == "__main__":
    main(sys.argv[1])
