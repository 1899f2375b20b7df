"""Reference outputs of EasyOCR's contrast adjustment of text lines (trainer/dataset.py:
contrast_grey and adjust_contrast_grey, which its AlignCollate applies to each line, made grey
with PIL's convert("L"), when contrast_adjust > 0), for tests/test_contrast_stretch.cpp.
Writes input PNGs, the adjusted line for each (input, target) as PNG, and cases.txt with one
`input target output` line per case. The arithmetic follows EasyOCR's: numpy percentiles 90 and
10, contrast (high - low) / (high + low), and below the target (img - low + 25) * (200 / (high -
low)) on the int image, clipped to [0, 255] and cast to uint8.
Usage: /usr/bin/python3 scripts/python/contrast_fixture.py OUTDIR"""
import os
import sys

import numpy as np
from PIL import Image


def easyocr_adjusted(image, target):
    grey = np.array(image.convert("L"))
    high = np.percentile(grey, 90)
    low = np.percentile(grey, 10)
    with np.errstate(divide="ignore", invalid="ignore"):
        contrast = (high - low) / (high + low)
        if contrast < target:
            values = grey.astype(int)
            ratio = 200.0 / (high - low)
            values = (values - low + 25) * ratio
            grey = np.maximum(np.full(values.shape, 0), np.minimum(np.full(values.shape, 255), values)).astype(np.uint8)
    return Image.fromarray(grey, "L")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    inputs = {
        # A faint line: ink at 120..140 on paper at 150..170.
        "faint.png": np.where(rng.random((32, 97)) < 0.3, rng.integers(120, 141, (32, 97)),
                              rng.integers(150, 171, (32, 97))).astype(np.uint8),
        "sharp.png": np.where(rng.random((32, 61)) < 0.3, 10, 240).astype(np.uint8),
        "flat.png": np.full((16, 40), 128, np.uint8),
        "black.png": np.zeros((16, 40), np.uint8),
        "odd.png": rng.integers(90, 110, (7, 13)).astype(np.uint8),
        "faint_rgb.png": np.stack([rng.integers(100, 160, (24, 53)) for _ in range(3)], axis=2).astype(np.uint8),
    }
    cases = []
    for name, pixels in inputs.items():
        image = Image.fromarray(pixels, "RGB" if pixels.ndim == 3 else "L")
        image.save(os.path.join(out, name))
        for target in (0.1, 0.4, 0.9):
            output = f"{name[:-4]}_{target}.png"
            easyocr_adjusted(image, target).save(os.path.join(out, output))
            cases.append(f"{name} {target} {output}")
    with open(os.path.join(out, "cases.txt"), "w") as manifest:
        manifest.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
