"""The Python PyTorch side of scripts/bench-train: torchvision ResNet18 trained on Fashion-MNIST
with the same micro-batch, accumulation, optimizer (AdamW), clipping and thread count as the
trainer run it is compared with. Prints one line: images/s and peak RSS in MB."""
import argparse
import gzip
import resource
import time

import numpy as np
import torch
import torchvision


def read_idx(path, offset):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--accumulate", type=int, required=True)
    parser.add_argument("--samples", type=int, required=True)
    parser.add_argument("--threads", type=int, default=0, help="0: PyTorch's default thread count")
    parser.add_argument("--lr", type=float, default=0.001)
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    root = "/usr/share/datasets/fashion-mnist/"
    images = read_idx(root + "train-images-idx3-ubyte.gz", 16).reshape(-1, 1, 28, 28)[: args.samples]
    labels = read_idx(root + "train-labels-idx1-ubyte.gz", 8)[: args.samples]
    x_all = (torch.from_numpy(images.copy()).float() / 255.0 - 0.2860) / 0.3530
    y_all = torch.from_numpy(labels.copy()).long()

    model = torchvision.models.resnet18(num_classes=10)
    model.conv1 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    decay = [p for n, p in model.named_parameters() if p.ndim > 1]
    no_decay = [p for n, p in model.named_parameters() if p.ndim <= 1]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    model.train()
    start = time.perf_counter()
    micro_batches = (args.samples + args.batch - 1) // args.batch
    for group_start in range(0, micro_batches, args.accumulate):
        group = range(group_start, min(group_start + args.accumulate, micro_batches))
        group_samples = sum(min(args.batch, args.samples - m * args.batch) for m in group)
        for m in group:
            x = x_all[m * args.batch:(m + 1) * args.batch]
            y = y_all[m * args.batch:(m + 1) * args.batch]
            loss = torch.nn.functional.cross_entropy(model(x), y, reduction="sum") / group_samples
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"python threads={torch.get_num_threads()} images_per_second={args.samples / seconds:.1f} peak_memory_mb={peak_mb:.0f} seconds={seconds:.1f}")


if __name__ == "__main__":
    main()
