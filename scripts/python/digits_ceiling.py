"""How well can a single glyph of the digits validation split be read at all? The OCR digits set
(`trainer data digits`) keeps every tenth glyph of OpenCV's digits.png for validation (500 glyphs,
each reused in many strings). This trains a small CNN on the 4,500 training glyphs alone (random
affine augmentation, the glyph classifier a string reader needs to beat) and prints, for several
seeds, its accuracy on the 500 validation glyphs, the digits.png cells of those it misreads, and
the string accuracy that accuracy allows for the set's 3-6-digit strings (acc ** length, lengths
uniform), i.e. a ceiling for the CRNN.
`crnn-vgg` classifies with the CRNN's own convolutional stack instead (EasyOCR's VGG at
output_channel 128 or 256, glyphs centred on a 32x32 canvas as in a 32-px line, features averaged
over height and max-pooled over width): can the CRNN's features read unseen glyphs at all?
`--elastic ALPHA SIGMA` adds Simard-style elastic distortion of each glyph before the affine one
(torchvision's ElasticTransform), `--weight-decay` sets AdamW's, `--first-seed` skips seeds.
`--sgd LR` trains with SGD (Nesterov momentum 0.9, peak LR `LR`) instead of AdamW (peak 2e-3), and
`--smoothing EPS` smooths the targets (label smoothing; the recognition recipe's CTC analogue is
`label_smoothing`). `--font-copies N` adds N copies of every digit printed in each installed DejaVu, Liberation and
MathJax font (two sizes, centred in a 20x20 cell like digits.png's) to the training glyphs: do
printed shapes teach what 450 handwritten glyphs per digit lack?
Usage: /usr/bin/python3 scripts/python/digits_ceiling.py [epochs] [seeds] [small|crnn-vgg|crnn-vgg-256]
       [--elastic ALPHA SIGMA] [--weight-decay WD] [--first-seed N] [--font-copies N] [--sgd LR]
       [--smoothing EPS]"""
import argparse
import glob

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from PIL import Image, ImageDraw, ImageFont

SOURCE = "/usr/share/doc/opencv-doc/examples/data/digits.png"


def glyphs():
    sheet = torchvision.io.read_image(SOURCE, torchvision.io.ImageReadMode.GRAY)[0].float() / 255.0
    train, val = ([], [], []), ([], [], [])
    for digit in range(10):
        for k in range(500):
            row, col = digit * 5 + k // 100, k % 100
            target = val if k % 10 == 9 else train
            target[0].append(sheet[row * 20:(row + 1) * 20, col * 20:(col + 1) * 20])
            target[1].append(digit)
            target[2].append(row * 100 + col)  # the cell number glyphs.csv and digits_errors.py use
    as_tensors = lambda split: (torch.stack(split[0]).unsqueeze(1), torch.tensor(split[1]), split[2])
    return as_tensors(train), as_tensors(val)


def font_glyphs():
    """Every digit in the installed DejaVu, Liberation and MathJax fonts at glyph heights 15 and 18 px, as (images, labels)."""
    files = sorted(glob.glob("/usr/share/fonts/truetype/dejavu/*.ttf") + glob.glob("/usr/share/fonts/truetype/liberation/*.ttf") +
                   glob.glob("/usr/share/fonts/opentype/mathjax/MathJax_*.otf"))
    files = [f for f in files if not any(skip in f for skip in ("Size", "Vector", "Win", "AMS", "Fraktur"))]
    images, labels = [], []
    for file in files:
        for height in (15, 18):
            font = ImageFont.truetype(file, 2 * height)
            for digit in range(10):
                canvas = Image.new("L", (80, 80), 0)
                ImageDraw.Draw(canvas).text((20, 10), str(digit), fill=255, font=font)
                box = canvas.getbbox()
                if box is None:
                    continue
                glyph = canvas.crop(box)
                glyph = glyph.resize((max(1, round(glyph.size[0] * height / glyph.size[1])), height), Image.BILINEAR)
                cell = Image.new("L", (20, 20), 0)
                cell.paste(glyph, ((20 - glyph.size[0]) // 2, (20 - height) // 2))
                images.append(torch.tensor(list(cell.getdata()), dtype=torch.float32).view(1, 20, 20) / 255.0)
                labels.append(digit)
    return torch.stack(images), torch.tensor(labels)


class CrnnVggClassifier(nn.Module):
    """EasyOCR's VGG_FeatureExtractor (norm only in its two BatchNorm layers), then a glyph head."""

    def __init__(self, output_channel):
        super().__init__()
        c = [output_channel // 8, output_channel // 4, output_channel // 2, output_channel]
        conv = lambda i, o: [nn.Conv2d(i, o, 3, 1, 1), nn.ReLU()]
        normed = lambda i, o: [nn.Conv2d(i, o, 3, 1, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
        self.features = nn.Sequential(
            *conv(1, c[0]), nn.MaxPool2d(2), *conv(c[0], c[1]), nn.MaxPool2d(2), *conv(c[1], c[2]),
            *conv(c[2], c[2]), nn.MaxPool2d((2, 1)), *normed(c[2], c[3]), *normed(c[3], c[3]),
            nn.MaxPool2d((2, 1)), nn.Conv2d(c[3], c[3], 2, 1, 0), nn.ReLU())
        self.head = nn.Linear(c[3], 10)

    def forward(self, x):
        x = nn.functional.pad((x - 0.5) / 0.5, (6, 6, 6, 6), value=-1.0)
        return self.head(self.features(x).mean(2).amax(2))


def model(kind):
    if kind.startswith("crnn-vgg"):
        return CrnnVggClassifier(256 if kind.endswith("256") else 128)
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1),
        nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1),
        nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 5 * 5, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 10))


def run(seed, epochs, train, val, options):
    torch.manual_seed(seed)
    net = model(options.model)
    augment = T.RandomAffine(degrees=10, translate=(0.1, 0.1), scale=(0.85, 1.15), shear=10)
    if options.elastic:
        augment = T.Compose([T.ElasticTransform(alpha=options.elastic[0], sigma=options.elastic[1]), augment])
    if options.sgd:
        optimizer = torch.optim.SGD(net.parameters(), lr=options.sgd, momentum=0.9, nesterov=True,
                                    weight_decay=options.weight_decay)
    else:
        optimizer = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=options.weight_decay)
    steps = epochs * (len(train[0]) // 64)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, options.sgd or 2e-3, total_steps=steps)
    for _ in range(epochs):
        net.train()
        order = torch.randperm(len(train[0]))
        for i in range(0, len(order) - 63, 64):
            idx = order[i:i + 64]
            x = torch.stack([augment(img) for img in train[0][idx]])
            loss = nn.functional.cross_entropy(net(x), train[1][idx], label_smoothing=options.smoothing)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    net.eval()
    with torch.no_grad():
        predicted = net(val[0]).argmax(1)
    wrong = [val[2][i] for i in (predicted != val[1]).nonzero().flatten().tolist()]
    return 1 - len(wrong) / len(val[1]), wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("epochs", type=int, nargs="?", default=30)
    parser.add_argument("seeds", type=int, nargs="?", default=3)
    parser.add_argument("model", nargs="?", default="small", choices=("small", "crnn-vgg", "crnn-vgg-256"))
    parser.add_argument("--elastic", type=float, nargs=2, metavar=("ALPHA", "SIGMA"))
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--font-copies", type=int, default=0)
    parser.add_argument("--sgd", type=float, default=0.0)
    parser.add_argument("--smoothing", type=float, default=0.0)
    options = parser.parse_args()
    torch.set_num_threads(2)
    train, val = glyphs()
    if options.font_copies:
        printed, digits = font_glyphs()
        print(f"adding {options.font_copies} x {len(digits)} printed digits to {len(train[1])} handwritten glyphs")
        train = (torch.cat([train[0]] + [printed] * options.font_copies),
                 torch.cat([train[1]] + [digits] * options.font_copies), train[2])
    for seed in range(options.first_seed, options.first_seed + options.seeds):
        accuracy, wrong = run(seed, options.epochs, train, val, options)
        strings = sum(accuracy ** length for length in range(3, 7)) / 4
        print(f"seed {seed}: glyph accuracy {accuracy:.4f} ({len(wrong)} of {len(val[1])} wrong, digits.png cells: {wrong}); "
              f"3-6-digit string accuracy it allows: {strings:.4f}")


if __name__ == "__main__":
    main()
