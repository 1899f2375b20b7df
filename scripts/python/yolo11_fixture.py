"""Ultralytics' YOLO11 detection and YOLO -cls models, as reference data for tests/test_yolo11.cpp.

  yolo11_fixture.py OUTDIR

No Ultralytics package exists here, so the network is written from Ultralytics' definitions
(nn/modules/conv.py Conv and DWConv, nn/modules/block.py Bottleneck, C2f, C3, C3k, C3k2, SPPF,
Attention, PSABlock, C2PSA, DFL, nn/modules/head.py Detect with legacy=False) and built the way
nn/tasks.py parse_model builds cfg/models/11/yolo11.yaml, yolo11-cls.yaml and v8/yolov8-cls.yaml
(with head.py Classify), independently of the C++ model. Writes
  OUTDIR/counts.pt     {"yolo11n": parameters, "yolo11n-cls": …, "yolov8n-cls": …} at 80 classes,
                       and the state-dict entry counts under "<name>.entries"
  OUTDIR/yolo11n.pt    a plain dict: "input" [2, 3, 64, 96] and "outputs", the Detect layer's raw
                       per-stride maps [B, 64 + nc, H, W] in eval mode, 5 classes
  OUTDIR/yolo11n_sd.pt the weights as Ultralytics users export them (keys "model.0.conv.weight" …)
  OUTDIR/yolo11n-cls.pt, yolo11n-cls_sd.pt  the same for yolo11n-cls at 5 classes, input
                       [2, 3, 40, 56], "outputs" [the logits] (Classify's training-mode output)
  OUTDIR/yolo26n.pt, yolo26n_sd.pt, yolov5nu.pt, yolov5nu_sd.pt  the same for yolo26n (6 maps:
                       one-to-many, then one-to-one) and yolov5nu
  OUTDIR/yolo26n_grads.pt  "input", "probes" (one random tensor per output map) and "gradients":
                       every parameter's gradient of sum(output * probe) over the maps, in eval
                       mode with yolo26n_sd.pt's weights (the one-to-one branch reads detached
                       features, so the backbone's gradients come from the one-to-many maps alone)
"""
import copy
import math
import os
import sys

import torch
from torch import nn

from yolov8_fixture import randomize  # He init and varied norm statistics

# cfg/models/11/yolo11.yaml: [from, repeats, module, args]
BACKBONE = [
    [-1, 1, "Conv", [64, 3, 2]],
    [-1, 1, "Conv", [128, 3, 2]],
    [-1, 2, "C3k2", [256, False, 0.25]],
    [-1, 1, "Conv", [256, 3, 2]],
    [-1, 2, "C3k2", [512, False, 0.25]],
    [-1, 1, "Conv", [512, 3, 2]],
    [-1, 2, "C3k2", [512, True]],
    [-1, 1, "Conv", [1024, 3, 2]],
    [-1, 2, "C3k2", [1024, True]],
    [-1, 1, "SPPF", [1024, 5]],
    [-1, 2, "C2PSA", [1024]],
]
HEAD = [
    [-1, 1, "Upsample", [None, 2, "nearest"]],
    [[-1, 6], 1, "Concat", [1]],
    [-1, 2, "C3k2", [512, False]],
    [-1, 1, "Upsample", [None, 2, "nearest"]],
    [[-1, 4], 1, "Concat", [1]],
    [-1, 2, "C3k2", [256, False]],
    [-1, 1, "Conv", [256, 3, 2]],
    [[-1, 13], 1, "Concat", [1]],
    [-1, 2, "C3k2", [512, False]],
    [-1, 1, "Conv", [512, 3, 2]],
    [[-1, 10], 1, "Concat", [1]],
    [-1, 2, "C3k2", [1024, True]],
    [[16, 19, 22], 1, "Detect", ["nc"]],
]
CLS_HEAD = [[-1, 1, "Classify", ["nc"]]]
# cfg/models/11/yolo11-cls.yaml: the backbone with C2PSA in SPPF's place.
YOLO11_CLS = BACKBONE[:9] + [[-1, 2, "C2PSA", [1024]]] + CLS_HEAD
# cfg/models/v8/yolov8-cls.yaml
YOLOV8_CLS = [
    [-1, 1, "Conv", [64, 3, 2]],
    [-1, 1, "Conv", [128, 3, 2]],
    [-1, 3, "C2f", [128, True]],
    [-1, 1, "Conv", [256, 3, 2]],
    [-1, 6, "C2f", [256, True]],
    [-1, 1, "Conv", [512, 3, 2]],
    [-1, 6, "C2f", [512, True]],
    [-1, 1, "Conv", [1024, 3, 2]],
    [-1, 3, "C2f", [1024, True]],
] + CLS_HEAD
V8_CLS_SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 1024), "l": (1.00, 1.00, 1024),
                 "x": (1.00, 1.25, 1024)}
SCALES = {"n": (0.50, 0.25, 1024), "s": (0.50, 0.50, 1024), "m": (0.50, 1.00, 512), "l": (1.00, 1.00, 512),
          "x": (1.00, 1.50, 512)}


def autopad(k, p=None, d=1):
    if d > 1:
        k = d * (k - 1) + 1 if isinstance(k, int) else [d * (x - 1) + 1 for x in k]
    if p is None:
        p = k // 2 if isinstance(k, int) else [x // 2 for x in k]
    return p


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, d=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p, d), groups=g, dilation=d, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU() if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


def DWConv(c1, c2, k=1, s=1, act=True):
    return Conv(c1, c2, k, s, g=math.gcd(c1, c2), act=act)


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, g=1, k=(3, 3), e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, k[0], 1)
        self.cv2 = Conv(c_, c2, k[1], 1, g=g)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        return x + self.cv2(self.cv1(x)) if self.add else self.cv2(self.cv1(x))


class C2f(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=False, g=1, e=0.5):
        super().__init__()
        self.c = int(c2 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, self.c, shortcut, g, k=((3, 3), (3, 3)), e=1.0) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True, g=1, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, 1, 1)
        self.cv2 = Conv(c1, c_, 1, 1)
        self.cv3 = Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, k=((1, 1), (3, 3)), e=1.0) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class C3k(C3):
    def __init__(self, c1, c2, n=1, shortcut=True, g=1, e=0.5, k=3):
        super().__init__(c1, c2, n, shortcut, g, e)
        c_ = int(c2 * e)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, k=(k, k), e=1.0) for _ in range(n)))


class C3k2(C2f):
    def __init__(self, c1, c2, n=1, c3k=False, e=0.5, attn=False, g=1, shortcut=True):
        super().__init__(c1, c2, n, shortcut, g, e)
        self.m = nn.ModuleList(
            nn.Sequential(Bottleneck(self.c, self.c, shortcut, g),
                          PSABlock(self.c, attn_ratio=0.5, num_heads=max(self.c // 64, 1))) if attn
            else C3k(self.c, self.c, 2, shortcut, g) if c3k else Bottleneck(self.c, self.c, shortcut, g)
            for _ in range(n))


class SPPF(nn.Module):
    """8.4's SPPF: n chained pools, an optional shortcut, cv1 unactivated (parse_model restores the activation
    for rows without n and shortcut, Ultralytics PR #26040)."""

    def __init__(self, c1, c2, k=5, n=3, shortcut=False):
        super().__init__()
        c_ = c1 // 2
        self.cv1 = Conv(c1, c_, 1, 1, act=False)
        self.cv2 = Conv(c_ * (n + 1), c2, 1, 1)
        self.m = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)
        self.n = n
        self.add = shortcut and c1 == c2

    def forward(self, x):
        y = [self.cv1(x)]
        y.extend(self.m(y[-1]) for _ in range(self.n))
        y = self.cv2(torch.cat(y, 1))
        return y + x if self.add else y


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, attn_ratio=0.5):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.key_dim = int(self.head_dim * attn_ratio)
        self.scale = self.key_dim ** -0.5
        h = dim + self.key_dim * num_heads * 2
        self.qkv = Conv(dim, h, 1, act=False)
        self.proj = Conv(dim, dim, 1, act=False)
        self.pe = Conv(dim, dim, 3, 1, g=dim, act=False)

    def forward(self, x):
        B, C, H, W = x.shape
        q, k, v = self.qkv(x).view(B, self.num_heads, self.key_dim * 2 + self.head_dim, H * W).split(
            [self.key_dim, self.key_dim, self.head_dim], dim=2)
        attn = ((q.transpose(-2, -1) @ k) * self.scale).softmax(dim=-1)
        x = (v @ attn.transpose(-2, -1)).view(B, C, H, W) + self.pe(v.reshape(B, C, H, W))
        return self.proj(x)


class PSABlock(nn.Module):
    def __init__(self, c, attn_ratio=0.5, num_heads=4, shortcut=True):
        super().__init__()
        self.attn = Attention(c, attn_ratio=attn_ratio, num_heads=num_heads)
        self.ffn = nn.Sequential(Conv(c, c * 2, 1), Conv(c * 2, c, 1, act=False))
        self.add = shortcut

    def forward(self, x):
        x = x + self.attn(x) if self.add else self.attn(x)
        return x + self.ffn(x) if self.add else self.ffn(x)


class C2PSA(nn.Module):
    def __init__(self, c1, c2, n=1, e=0.5):
        super().__init__()
        assert c1 == c2
        self.c = int(c1 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv(2 * self.c, c1, 1)
        self.m = nn.Sequential(*(PSABlock(self.c, attn_ratio=0.5, num_heads=self.c // 64) for _ in range(n)))

    def forward(self, x):
        a, b = self.cv1(x).split((self.c, self.c), dim=1)
        return self.cv2(torch.cat((a, self.m(b)), 1))


class Concat(nn.Module):
    def forward(self, x):
        return torch.cat(x, 1)


class Classify(nn.Module):
    def __init__(self, c1, c2):
        super().__init__()
        c_ = 1280  # efficientnet_b0 size
        self.conv = Conv(c1, c_, 1, 1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(p=0.0, inplace=True)
        self.linear = nn.Linear(c_, c2)

    def forward(self, x):
        return self.linear(self.drop(self.pool(self.conv(x)).flatten(1)))


class DFL(nn.Module):
    def __init__(self, c1=16):
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = torch.arange(c1, dtype=torch.float).view(1, c1, 1, 1)


class Detect(nn.Module):
    """head.py Detect of 8.4: legacy (YOLOv5u/v8) or depthwise class branches, reg_max 16 or 1 (no DFL), and the
    end-to-end one-to-one copies of both branches."""
    legacy = False

    def __init__(self, nc=80, reg_max=16, end2end=False, ch=()):
        super().__init__()
        self.reg_max = reg_max
        c2, c3 = max((16, ch[0] // 4, reg_max * 4)), max(ch[0], min(nc, 100))
        self.cv2 = nn.ModuleList(nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * reg_max, 1)) for x in ch)
        self.cv3 = (nn.ModuleList(nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for x in ch)
                    if self.legacy else nn.ModuleList(
            nn.Sequential(nn.Sequential(DWConv(x, x, 3), Conv(x, c3, 1)), nn.Sequential(DWConv(c3, c3, 3), Conv(c3, c3, 1)),
                          nn.Conv2d(c3, nc, 1)) for x in ch))
        self.dfl = DFL(reg_max) if reg_max > 1 else nn.Identity()
        self.end2end = end2end
        if end2end:
            self.one2one_cv2 = copy.deepcopy(self.cv2)
            self.one2one_cv3 = copy.deepcopy(self.cv3)

    def forward(self, x):
        """The raw per-level maps: one-to-many, then (end2end) one-to-one on detached features."""
        levels = [torch.cat((self.cv2[i](x[i]), self.cv3[i](x[i])), 1) for i in range(len(x))]
        if self.end2end:
            levels += [torch.cat((self.one2one_cv2[i](x[i].detach()), self.one2one_cv3[i](x[i].detach())), 1)
                       for i in range(len(x))]
        return levels


def make_divisible(x, divisor):
    return math.ceil(x / divisor) * divisor


class YoloModel(nn.Module):
    """parse_model over a layer list at one scale, as nn/tasks.py of 8.4 does it."""

    def __init__(self, scale, nc, layer_list=BACKBONE + HEAD, scales=SCALES, reg_max=16, end2end=False):
        super().__init__()
        depth, width, max_channels = scales[scale]
        ch, layers, self.froms = [3], [], []
        legacy = True
        for i, (f, n, m, args) in enumerate(layer_list):
            row_args = len(args)
            args = [nc if a == "nc" else a for a in args]
            n = max(round(n * depth), 1) if n > 1 else n
            if m in ("Conv", "C2f", "C3", "C3k2", "SPPF", "C2PSA", "Classify"):
                c1, c2 = ch[f], args[0]
                if c2 != nc:
                    c2 = make_divisible(min(c2, max_channels) * width, 8)
                args = [c1, c2, *args[1:]]
                if m in ("C2f", "C3", "C3k2", "C2PSA"):
                    args.insert(2, n)
                    n = 1
                if m == "C3k2":
                    legacy = False
                    if scale in "mlx":
                        args[3] = True
                module = {"Conv": Conv, "C2f": C2f, "C3": C3, "C3k2": C3k2, "SPPF": SPPF, "C2PSA": C2PSA,
                          "Classify": Classify}[m](*args)
                if m == "SPPF" and row_args <= 2:  # a pre-YOLO26 row keeps cv1's activation
                    module.cv1.act = nn.SiLU()
            elif m == "Concat":
                c2 = sum(ch[x] for x in f)
                module = Concat()
            elif m == "Detect":
                Detect.legacy = legacy
                module = Detect(nc, reg_max, end2end, [ch[x] for x in f])
            else:
                c2 = ch[f]
                module = nn.Upsample(*args)
            assert n == 1
            layers.append(module)
            self.froms.append(f)
            if i == 0:
                ch = []
            ch.append(c2)
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        y = []
        for m, f in zip(self.model, self.froms):
            if f != -1:
                x = y[f] if isinstance(f, int) else [x if j == -1 else y[j] for j in f]
            x = m(x)
            y.append(x)
        return x


# cfg/models/26/yolo26.yaml (nc 80, end2end True, reg_max 1): YOLO11's layers with SPPF's pools and
# shortcut, C3k blocks in the neck and attention in the last C3k2.
YOLO26 = BACKBONE[:9] + [[-1, 1, "SPPF", [1024, 5, 3, True]], BACKBONE[10]] + [
    [f, n, m, [args[0], True] if m == "C3k2" else args] for f, n, m, args in HEAD[:11]] + [
    [-1, 1, "C3k2", [1024, True, 0.5, True]], HEAD[12]]
# cfg/models/v5/yolov5.yaml: YOLOv5u, the C3 backbone with the anchor-free head.
YOLOV5 = [
    [-1, 1, "Conv", [64, 6, 2, 2]],
    [-1, 1, "Conv", [128, 3, 2]],
    [-1, 3, "C3", [128]],
    [-1, 1, "Conv", [256, 3, 2]],
    [-1, 6, "C3", [256]],
    [-1, 1, "Conv", [512, 3, 2]],
    [-1, 9, "C3", [512]],
    [-1, 1, "Conv", [1024, 3, 2]],
    [-1, 3, "C3", [1024]],
    [-1, 1, "SPPF", [1024, 5]],
    [-1, 1, "Conv", [512, 1, 1]],
    [-1, 1, "Upsample", [None, 2, "nearest"]],
    [[-1, 6], 1, "Concat", [1]],
    [-1, 3, "C3", [512, False]],
    [-1, 1, "Conv", [256, 1, 1]],
    [-1, 1, "Upsample", [None, 2, "nearest"]],
    [[-1, 4], 1, "Concat", [1]],
    [-1, 3, "C3", [256, False]],
    [-1, 1, "Conv", [256, 3, 2]],
    [[-1, 14], 1, "Concat", [1]],
    [-1, 3, "C3", [512, False]],
    [-1, 1, "Conv", [512, 3, 2]],
    [[-1, 10], 1, "Concat", [1]],
    [-1, 3, "C3", [1024, False]],
    [[17, 20, 23], 1, "Detect", ["nc"]],
]
V5_SCALES = {"n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 1024), "l": (1.00, 1.00, 1024),
             "x": (1.33, 1.25, 1024)}

# name -> (layers, scales, reg_max, end2end)
MODELS = {"yolo11": (BACKBONE + HEAD, SCALES, 16, False), "yolo11-cls": (YOLO11_CLS, SCALES, 16, False),
          "yolov8-cls": (YOLOV8_CLS, V8_CLS_SCALES, 16, False), "yolo26": (YOLO26, SCALES, 1, True),
          "yolov5u": (YOLOV5, V5_SCALES, 16, False)}


def save_reference(out_dir, name, model, batch):
    randomize(model)
    with torch.no_grad():
        outputs = model(batch)
    torch.save({"input": batch, "outputs": outputs if isinstance(outputs, list) else [outputs]},
               os.path.join(out_dir, name + ".pt"))
    torch.save(dict(model.state_dict()), os.path.join(out_dir, name + "_sd.pt"))


def save_gradients(out_dir, name, model, batch):
    torch.manual_seed(1)
    outputs = model(batch)
    probes = [torch.randn_like(output) for output in outputs]
    model.zero_grad()
    sum((output * probe).sum() for output, probe in zip(outputs, probes)).backward()
    gradients = {key: parameter.grad.clone() for key, parameter in model.named_parameters()}
    torch.save({"input": batch, "probes": probes, "gradients": gradients}, os.path.join(out_dir, name + "_grads.pt"))


def main(out_dir):
    counts = {}
    for family, (layer_list, scales, reg_max, end2end) in MODELS.items():
        for scale in "nsmlx":
            model = YoloModel(scale, 80, layer_list, scales, reg_max, end2end)
            name = family.replace("-", scale + "-", 1) if "-" in family else family + scale  # yolo11n-cls
            name = name.replace("yolov5u" + scale, "yolov5" + scale + "u")  # yolov5nu
            counts[name] = sum(p.numel() for p in model.parameters())
            counts[name + ".entries"] = len(model.state_dict())
    torch.save(counts, os.path.join(out_dir, "counts.pt"))
    torch.manual_seed(0)
    save_reference(out_dir, "yolo11n", YoloModel("n", 5).eval(), torch.rand(2, 3, 64, 96))
    save_reference(out_dir, "yolo11n-cls", YoloModel("n", 5, YOLO11_CLS).eval(), torch.rand(2, 3, 40, 56))
    yolo26n = YoloModel("n", 5, YOLO26, SCALES, 1, True).eval()
    save_reference(out_dir, "yolo26n", yolo26n, torch.rand(2, 3, 64, 96))
    save_gradients(out_dir, "yolo26n", yolo26n, torch.rand(2, 3, 64, 96))
    save_reference(out_dir, "yolov5nu", YoloModel("n", 5, YOLOV5, V5_SCALES).eval(), torch.rand(2, 3, 64, 96))


if __name__ == "__main__":
    main(sys.argv[1])
