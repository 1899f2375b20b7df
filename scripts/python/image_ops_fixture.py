"""Reference outputs of torchvision's augmentation operations (torchvision.transforms.autoaugment's
_apply_op, which AutoAugment, RandAugment and TrivialAugmentWide call) on uint8 tensors, for
tests/test_image_ops.cpp: writes two input images (RGB 41x29 with a narrow-range green and a
constant blue channel; grey 23x31) as PNG, every op at several magnitudes applied to each, and
ops.txt with one `input op magnitude output` line per case; and tables.txt, the magnitude tables
of RandAugment (31 bins), TrivialAugmentWide (31) and AutoAugment (10) for a 41x29 image, one
`policy op bin magnitude signed` line per entry.
Usage: /usr/bin/python3 scripts/python/image_ops_fixture.py OUTDIR"""
import os
import sys

import torch
from PIL import Image
from torchvision.transforms import InterpolationMode
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
    with open(os.path.join(out, "ops.txt"), "w") as manifest:
        manifest.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "tables.txt"), "w") as table:
        table.write("\n".join(tables()) + "\n")


if __name__ == "__main__":
    main()
