"""How well can a single glyph of the digits validation split be read at all? The OCR digits set
(`trainer data digits`) keeps every tenth glyph of OpenCV's digits.png for validation (500 glyphs,
each reused in many strings). This trains a small CNN on the 4,500 training glyphs alone (random
affine augmentation, the glyph classifier a string reader needs to beat) and prints its accuracy
on the 500 validation glyphs, several seeds, and the string accuracy that accuracy allows for the
set's 3-6-digit strings (acc ** length, lengths uniform), i.e. a ceiling for the CRNN.
Usage: /usr/bin/python3 scripts/python/digits_ceiling.py [epochs] [seeds]"""
import sys

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T

SOURCE = "/usr/share/doc/opencv-doc/examples/data/digits.png"


def glyphs():
    sheet = torchvision.io.read_image(SOURCE, torchvision.io.ImageReadMode.GRAY)[0].float() / 255.0
    train, val = ([], []), ([], [])
    for digit in range(10):
        for k in range(500):
            row, col = digit * 5 + k // 100, k % 100
            cell = sheet[row * 20:(row + 1) * 20, col * 20:(col + 1) * 20]
            target = val if k % 10 == 9 else train
            target[0].append(cell)
            target[1].append(digit)
    as_tensors = lambda split: (torch.stack(split[0]).unsqueeze(1), torch.tensor(split[1]))
    return as_tensors(train), as_tensors(val)


def model():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
        nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1),
        nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 5 * 5, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))


def run(seed, epochs, train, val):
    torch.manual_seed(seed)
    net = model()
    augment = T.RandomAffine(degrees=10, translate=(0.1, 0.1), scale=(0.85, 1.15), shear=10)
    optimizer = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=5e-4)
    steps = epochs * (len(train[0]) // 64)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, 2e-3, total_steps=steps)
    for _ in range(epochs):
        net.train()
        order = torch.randperm(len(train[0]))
        for i in range(0, len(order) - 63, 64):
            idx = order[i:i + 64]
            x = torch.stack([augment(img) for img in train[0][idx]])
            loss = nn.functional.cross_entropy(net(x), train[1][idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    net.eval()
    with torch.no_grad():
        predicted = net(val[0]).argmax(1)
    wrong = (predicted != val[1]).nonzero().flatten().tolist()
    return 1 - len(wrong) / len(val[1]), wrong


def main():
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    torch.set_num_threads(2)
    train, val = glyphs()
    for seed in range(seeds):
        accuracy, wrong = run(seed, epochs, train, val)
        strings = sum(accuracy ** length for length in range(3, 7)) / 4
        print(f"seed {seed}: glyph accuracy {accuracy:.4f} ({len(wrong)} of {len(val[1])} wrong: {wrong}); "
              f"3-6-digit string accuracy it allows: {strings:.4f}")


if __name__ == "__main__":
    main()
