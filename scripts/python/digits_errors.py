"""Which source glyphs does a reader get wrong? Reads `trainer predict` output for a digits split
(`trainer data digits`) and that split's labels.csv and glyphs.csv (each string's source cells in
OpenCV's digits.png, row * 100 + column), and prints the string accuracy and, per source glyph,
how often it was misread among its uses, worst first. A glyph misread in most of its uses is one
the reader cannot read in any form; a few such glyphs bound the string accuracy, since each is
reused in many strings. Substitutions are attributed to their glyph; strings whose length was
read wrong are counted apart. Standard library only.
Usage: build/trainer predict -q -w best.pt -s data/digits/val > predictions.txt
       python3 scripts/python/digits_errors.py predictions.txt data/digits/val [rows]"""
import collections
import csv
import sys


def read_predictions(path):
    predictions = {}
    with open(path) as lines:
        for line in lines:
            image, _, rest = line.rstrip("\n").partition(": ")
            predictions[image.rsplit("/", 1)[-1]] = rest.rsplit(" (", 1)[0]
    return predictions


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    predictions = read_predictions(sys.argv[1])
    split = sys.argv[2].rstrip("/")
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    with open(f"{split}/labels.csv") as f:
        words = {row["filename"]: row["words"] for row in csv.DictReader(f)}
    with open(f"{split}/glyphs.csv") as f:
        cells = {row["filename"]: [int(c) for c in row["cells"].split()] for row in csv.DictReader(f)}
    uses, misread = collections.Counter(), collections.Counter()
    wrong = length_wrong = 0
    for image, truth in words.items():
        if image not in predictions:
            sys.exit(f"{image} of {split}/labels.csv has no prediction in {sys.argv[1]}")
        read = predictions[image]
        uses.update(cells[image])
        if read == truth:
            continue
        wrong += 1
        if len(read) != len(truth):
            length_wrong += 1
            continue
        misread.update(cell for cell, expected, got in zip(cells[image], truth, read) if expected != got)
    print(f"{len(words) - wrong} of {len(words)} strings right ({1 - wrong / len(words):.2%}); "
          f"{wrong - length_wrong} wrong by substitutions only, {length_wrong} with a wrong length")
    print(f"{len(uses)} source glyphs, {len(misread)} misread at least once")
    print("cell  digit  misread/uses")
    for cell, count in misread.most_common(rows):
        print(f"{cell:4d}  {cell // 500:5d}  {count:3d}/{uses[cell]}")


if __name__ == "__main__":
    main()
