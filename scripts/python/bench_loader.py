"""The Python side of scripts/bench-loader: torchvision's ImageFolder and DataLoader producing the
training batches trainer's classification loader produces from the same folder (random resized
crop of [1 - scale, 1] of the area, horizontal flip, optionally torchvision's RandAugment,
AutoAugment or TrivialAugmentWide after it as Ultralytics' classify trainer places it, ToTensor,
ImageNet normalisation), timed the same way: build the data set, let `warmup` batches through,
then time `batches` more.
Usage: /usr/bin/python3 scripts/python/bench_loader.py ROOT [--imgsz N] [--scale S] [--batch N]
       [--workers N] [--batches N] [--warmup N] [--auto-augment none|randaugment|autoaugment|trivialaugment]"""
import argparse
import os
import time

import torch
import torchvision
import torchvision.transforms as T


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("--imgsz", type=int, default=224)
    parser.add_argument("--scale", type=float, default=0.5)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--auto-augment", default="none", choices=("none", "randaugment", "autoaugment", "trivialaugment"))
    args = parser.parse_args()
    torch.manual_seed(0)
    policy = {"none": [], "randaugment": [T.RandAugment()], "autoaugment": [T.AutoAugment()],
              "trivialaugment": [T.TrivialAugmentWide()]}[args.auto_augment]
    transform = T.Compose([
        T.RandomResizedCrop(args.imgsz, scale=(1.0 - args.scale, 1.0)),
        T.RandomHorizontalFlip(),
        *policy,
        T.ToTensor(),
        T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
    ])
    build_start = time.perf_counter()
    data = torchvision.datasets.ImageFolder(os.path.join(args.root, "train"), transform=transform)
    build_seconds = time.perf_counter() - build_start
    wanted = args.warmup + args.batches
    if len(data) < wanted * args.batch:
        raise SystemExit(f"{len(data)} images make fewer than {wanted} batches of {args.batch}")
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                         drop_last=True)
    batches = iter(loader)
    for _ in range(args.warmup):
        next(batches)
    images = 0
    start = time.perf_counter()
    for _ in range(args.batches):
        images += next(batches)[0].shape[0]
    seconds = time.perf_counter() - start
    print(f"dataset_build_seconds={build_seconds:.3f} images={images} seconds={seconds:.3f} "
          f"images_per_second={images / seconds:.1f} workers={args.workers}")


if __name__ == "__main__":
    main()
