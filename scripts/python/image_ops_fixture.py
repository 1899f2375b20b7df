"""Reference outputs of torchvision's augmentation operations (torchvision.transforms.autoaugment's
_apply_op, which AutoAugment, RandAugment and TrivialAugmentWide call) on uint8 tensors, for
tests/test_image_ops.cpp: writes two input images (RGB 41x29 with a narrow-range green and a
constant blue channel; grey 23x31) as PNG, every op at several magnitudes applied to each, and
ops.txt with one `input op magnitude output` line per case; and tables.txt, the magnitude tables
of RandAugment (31 bins), TrivialAugmentWide (31) and AutoAugment (10) for a 41x29 image, one
`policy op bin magnitude signed` line per entry; and jitter.txt, ColorJitter's adjustments
(torchvision.transforms.functional.adjust_brightness, _contrast, _saturation, _hue) applied in a
given order with given factors, one `input order brightness contrast saturation hue output` line
per case (order as comma-separated adjustment numbers, `-` for an adjustment left out); the hue
as torchvision 0.15 and later compute it (adjust_hue below).
Usage: /usr/bin/python3 scripts/python/image_ops_fixture.py OUTDIR"""
import os
import sys

import torch
import torchvision
from PIL import Image
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as F
from torchvision.transforms.autoaugment import AutoAugment, RandAugment, TrivialAugmentWide, _apply_op

CASES = [
    ("Identity", [0.0]),
    ("ShearX", [0.09, -0.09, 0.3, -0.99]),
    ("ShearY", [0.09, -0.3, 0.99]),
    ("TranslateX", [5.7, -13.0, 30.0]),
    ("TranslateY", [4.0, -9.9]),
    ("Rotate", [9.0, -30.0, 135.0]),
    ("Brightness", [0.27, -0.27, 0.99, -0.9]),
    ("Color", [0.27, -0.6, 0.99]),
    ("Contrast", [0.27, -0.5, 0.99]),
    ("Sharpness", [0.27, -0.27, 0.99, -0.99]),
    ("Posterize", [7.0, 4.0, 2.0]),
    ("Solarize", [178.5, 0.0, 255.0, 93.5]),
    ("AutoContrast", [0.0]),
    ("Equalize", [0.0]),
    ("Invert", [0.0]),
]


# (order, brightness, contrast, saturation, hue): ColorJitter's fn_idx and its four factors, None
# for an adjustment that is off. Ultralytics' classification defaults draw brightness and contrast
# from [0.6, 1.4], saturation from [0.3, 1.7] and hue from [-0.015, 0.015].
JITTER_CASES = [
    ((3, 0, 1, 2), None, None, None, 0.015),
    ((3, 0, 1, 2), None, None, None, -0.0123),
    ((3, 0, 1, 2), None, None, None, 0.2),
    ((3, 0, 1, 2), None, None, None, -0.45),
    ((3, 0, 1, 2), None, None, None, 0.5),
    ((0, 1, 2, 3), 1.37, 0.62, 1.61, 0.011),
    ((2, 3, 1, 0), 0.6, 1.4, 0.3, -0.015),
    ((1, 0, 3, 2), 1.05, 1.23, 0.93, 0.007),
    ((3, 2, 0, 1), 0.81, None, 1.7, -0.003),
]
def adjust_hue(image, factor):
    """torchvision's adjust_hue as 0.15 and later compute it: back to uint8 through
    convert_image_dtype (x * 255.999, truncated). 0.14 (Debian bookworm's) truncated x * 255
    instead, one level lower in about half the pixels; there it is rebuilt from 0.14's own HSV
    conversions and convert_image_dtype, so the reference is the current one on either."""
    if tuple(int(part) for part in torchvision.__version__.split(".")[:2]) >= (0, 15):
        return F.adjust_hue(image, factor)
    from torchvision.transforms import functional_tensor as F_t
    if image.shape[-3] == 1:
        return image
    h, s, v = F_t._rgb2hsv(F_t.convert_image_dtype(image, torch.float32)).unbind(dim=-3)
    turned = torch.stack(((h + factor) % 1.0, s, v), dim=-3)
    return F_t.convert_image_dtype(F_t._hsv2rgb(turned), image.dtype)


ADJUST = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, adjust_hue)


def jitter(image, order, factors):
    for index in order:
        if factors[index] is not None:
            image = ADJUST[index](image, factors[index])
    return image


def inputs():
    generator = torch.Generator().manual_seed(7)
    y, x = torch.meshgrid(torch.arange(29.0), torch.arange(41.0), indexing="ij")
    noise = torch.randint(0, 60, (3, 29, 41), generator=generator).float()
    red = (x * 5 + y * 2 + noise[0]).clamp(0, 255)
    green = (40 + (x + y) * 1.5 + noise[1] / 2).clamp(0, 180)
    blue = torch.full_like(red, 77.0)
    rgb = torch.stack([red, green, blue]).to(torch.uint8)
    gy, gx = torch.meshgrid(torch.arange(31.0), torch.arange(23.0), indexing="ij")
    grey = ((gx * 9 - gy * 4 + 120 + torch.randint(0, 40, (31, 23), generator=generator)) % 256).to(torch.uint8)
    return {"rgb.png": rgb, "grey.png": grey.unsqueeze(0)}


def save(image, path):
    array = image.permute(1, 2, 0).numpy()
    Image.fromarray(array[:, :, 0] if array.shape[2] == 1 else array).save(path)


def tables():
    size = (29, 41)  # height, width
    spaces = {"randaugment": RandAugment()._augmentation_space(31, size),
              "trivialaugment": TrivialAugmentWide()._augmentation_space(31),
              "autoaugment": AutoAugment()._augmentation_space(10, size)}
    lines = []
    for policy, space in spaces.items():
        for op, (magnitudes, signed) in space.items():
            values = magnitudes.tolist() if magnitudes.ndim > 0 else [float(magnitudes)]
            lines += [f"{policy} {op} {b} {float(value)!r} {int(signed)}" for b, value in enumerate(values)]
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, image in inputs().items():
        save(image, os.path.join(out, name))
        for op, magnitudes in CASES:
            for k, magnitude in enumerate(magnitudes):
                result = _apply_op(image, op, magnitude, InterpolationMode.NEAREST, None)
                output = f"{name[:-4]}-{op}-{k}.png"
                save(result, os.path.join(out, output))
                lines.append(f"{name} {op} {magnitude!r} {output}")
    jitter_lines = []
    for name, image in inputs().items():
        for k, (order, *factors) in enumerate(JITTER_CASES):
            output = f"{name[:-4]}-jitter-{k}.png"
            save(jitter(image, order, factors), os.path.join(out, output))
            fields = ["-" if factor is None else repr(factor) for factor in factors]
            jitter_lines.append(f"{name} {','.join(map(str, order))} {' '.join(fields)} {output}")
    with open(os.path.join(out, "jitter.txt"), "w") as manifest:
        manifest.write("\n".join(jitter_lines) + "\n")
    with open(os.path.join(out, "ops.txt"), "w") as manifest:
        manifest.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "tables.txt"), "w") as table:
        table.write("\n".join(tables()) + "\n")


if __name__ == "__main__":
    main()
