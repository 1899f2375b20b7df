"""Writes an ImageFolder of JPEG photographs for loader benchmarks (not for accuracy): this machine
has no photo data set offline, so each image is a random crop of one of the colour photographs
OpenCV's documentation ships (/usr/share/doc/opencv-doc/examples/data), resized to the requested
size, flipped at random, with its brightness moved by up to 20 % and sensor-like noise (sigma 3)
added so that enlarged crops keep a photograph's fine detail and JPEG size (an enlarged smooth
crop decodes faster than a real photograph of that size). The class is the source photograph.
Usage: /usr/bin/python3 scripts/python/photo_folder.py OUT [--train N] [--val N] [--size WxH]
       [--quality Q] [--seed S]"""
import argparse
import os
import random

import numpy as np
from PIL import Image

SOURCE = "/usr/share/doc/opencv-doc/examples/data"
PHOTOS = ["aero1.jpg", "apple.jpg", "baboon.jpg", "building.jpg", "fruits.jpg", "home.jpg", "leuvenA.jpg",
          "messi5.jpg", "orange.jpg", "squirrel_cls.jpg"]


def photo(source, size, rng):
    width, height = source.size
    target_aspect = size[0] / size[1]
    area = rng.uniform(0.4, 1.0) * width * height
    crop_w = min(width, int(round((area * target_aspect) ** 0.5)))
    crop_h = min(height, int(round(crop_w / target_aspect)))
    crop_w = min(crop_w, int(round(crop_h * target_aspect)))
    x, y = rng.randint(0, width - crop_w), rng.randint(0, height - crop_h)
    image = source.crop((x, y, x + crop_w, y + crop_h)).resize(size, Image.BICUBIC)
    if rng.random() < 0.5:
        image = image.transpose(Image.FLIP_LEFT_RIGHT)
    pixels = np.asarray(image, dtype=np.float32) * rng.uniform(0.8, 1.2)
    pixels += np.random.default_rng(rng.getrandbits(32)).normal(0.0, 3.0, pixels.shape)
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--train", type=int, default=2000)
    parser.add_argument("--val", type=int, default=200)
    parser.add_argument("--size", default="500x375", help="width x height of every image")
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    size = tuple(int(side) for side in args.size.split("x"))
    rng = random.Random(args.seed)
    sources = [Image.open(os.path.join(SOURCE, name)).convert("RGB") for name in PHOTOS]
    for split, count in (("train", args.train), ("val", args.val)):
        for i in range(count):
            label = i % len(PHOTOS)
            folder = os.path.join(args.out, split, os.path.splitext(PHOTOS[label])[0])
            os.makedirs(folder, exist_ok=True)
            photo(sources[label], size, rng).save(os.path.join(folder, f"{i:06d}.jpg"), quality=args.quality)


if __name__ == "__main__":
    main()
