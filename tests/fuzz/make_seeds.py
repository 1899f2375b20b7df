"""Seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/), small files of each format.

  /usr/bin/python3 tests/fuzz/make_seeds.py

Run once when a target is added (it rewrites its seeds, leaving the other files of the corpora);
the fuzzers grow the corpora from these (scripts/fuzz --merge adds only what reaches new code). The torch.save seeds come from the fixture generators the unit tests use
(scripts/python/*_fixture.py); Ultralytics' whole model is shrunk to three of its layers, each tensor
one element, so the pickle keeps its structure in a few kilobytes. The cache seeds
spell out data/detect/label_cache.cpp's layout (header, then records): they must follow its format
version, or the fuzzer no longer reaches the records.
"""
import collections
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import torch
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
sys.path.insert(0, os.path.join(ROOT, "scripts", "python"))


def put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data if isinstance(data, bytes) else data.encode())


def saved(value, **kwargs):
    buffer = io.BytesIO()
    torch.save(value, buffer, **kwargs)
    return buffer.getvalue()


def shrunk(model):
    """Three of its layers (a Conv, a C2f and the Detect head, which the readers look into), every
    parameter and buffer one element of its dtype, all sharing it: the readers take the scale and
    class count from the model's yaml, and a full-size tensor would cost the fuzzer milliseconds."""
    model.model = torch.nn.Sequential(*[model.model[i] for i in (0, 2, len(model.model) - 1)])
    one = {}
    for module in model.modules():
        for table in (module._parameters, module._buffers):
            for name, tensor in table.items():
                if tensor is None:
                    continue
                element = one.setdefault(tensor.dtype, torch.zeros(1, dtype=tensor.dtype))
                view = element if tensor.dim() else tensor.clone()
                table[name] = torch.nn.Parameter(view, requires_grad=False) if name in module._parameters else view
    return model


def torch_archive():
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/python/torch_pickle_fixture.py"), scratch], check=True)
        for name in sorted(os.listdir(scratch)):
            with open(os.path.join(scratch, name), "rb") as f:
                put("torch_archive", name, f.read())
    import ultralytics_checkpoint_fixture as ul
    released = ul.released()
    released["model"] = shrunk(released["model"])
    put("torch_archive", "ultralytics_released.pt", saved(released))
    last = ul.last()
    last["ema"], last["optimizer"] = shrunk(last["ema"]), None
    put("torch_archive", "ultralytics_last_p4.pt", saved(last, pickle_protocol=4))
    last["ema"].yaml["nc"] = 10 ** 12  # refused: a head of a trillion classes would be a memory bomb
    put("torch_archive", "ultralytics_nc_trillion.pt", saved(last, pickle_protocol=4))
    evil = {**ul.header("8.3.40"), "model": None, "ema": None, "train_args": ul.train_args()}
    evil["train_args"]["callbacks"] = ul.Evil(lambda: (os.system, ("true",)))
    put("torch_archive", "evil_system.pt", saved(evil))
    weights = collections.OrderedDict(w=torch.ones(2, 3), b=torch.zeros(2))
    ours = {"format_version": 1, "task": "classify", "model": weights, "ema": weights, "optimizer": {},
            "scaler": {}, "grads": {}, "rng": {"cpu": torch.zeros(8, dtype=torch.uint8)},
            "progress": {"step": torch.tensor(3)}, "epoch": 1, "micro_batch": 0, "updates": 3,
            "best_fitness": torch.tensor(0.5, dtype=torch.float64), "recipe": "model: resnet18\nepochs: 2\n"}
    put("torch_archive", "checkpoint.pt", saved(ours))
    put("torch_archive", "checkpoint_legacy.pt", saved(ours, _use_new_zipfile_serialization=False))


def safetensors_file(tensors, metadata=None):
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors():
    put("safetensors", "two.safetensors", safetensors_file(
        {"w": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)), "b": ("I64", [1], struct.pack("<q", 7))},
        {"format": "pt"}))
    put("safetensors", "dtypes.safetensors", safetensors_file(
        {"h": ("F16", [2], b"\x00\x3c\x00\x40"), "bf": ("BF16", [1], b"\x80\x3f"), "u": ("U8", [3], b"\x01\x02\x03"),
         "t": ("BOOL", [2], b"\x01\x00"), "e": ("F64", [0], b""), "s": ("I8", [], b"\x05")}))
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "written.safetensors")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/python/safetensors_fixture.py"), "write", path],
                       check=True)
        with open(path, "rb") as f:
            put("safetensors", "every_dtype.safetensors", f.read())


def recipe():
    for name in ("demo.yaml", "yolo.yaml", "crnn.yaml"):
        shutil.copy(os.path.join(ROOT, "configs", name), os.path.join(CORPUS, "recipe", name))
    put("recipe", "ultralytics.yaml", "task: detect\nmodel: yolov8n.pt\ndata: coco8.yaml\nepochs: 3\nimgsz: 64\n"
        "mosaic: 1.0\nclose_mosaic: 10\nval: true\nplots: false\n")
    put("recipe", "timm_easyocr.yaml", "model: resnet18\nlr: 0.1\nsched: cosine\nbatch_ratio: '0.5-0.5'\n"
        "select_data: a-b\nimgH: 32\nlang_char: None\n")
    put("recipe", "overrides.bin", "epochs: 1\n\0epochs=2\nbatch = 4\nlr0=0.01\namp\nmodel=yolov8n.yaml\n")
    put("recipe", "flow.bin", "{epochs: 1, augment: [a, b], names: &n [x, y], other: *n}\n\0task=classify\n")


def dataset_text():
    put("dataset_text", "data_list.yaml", b"\x00path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog]\n")
    put("dataset_text", "data_map.yaml", b"\x05path: \ntrain: [images/train]\nval: images/val\ntest:\n"
        b"nc: 2\nnames:\n  0: person\n  1: bicycle\ndownload: https://example.com/x.zip\n")
    put("dataset_text", "labels.txt", b"\x01\x02" + b"0 0.5 0.5 0.2 0.3\n1 0.1 0.1 0.05 0.05\n0 0.5 0.5 0.2 0.3\n"
        b"2 1.2 0.5 0.1 0.1\n1 nan 0 0 0\n\n1 0.999 0.5 0.01 0.2\n")
    put("dataset_text", "labels.csv", b"\x02filename,words\nword_1.png,Tiredness\nword_2.png,\"a, b\"\n\nx/3.jpg,\xc3\xa9t\xc3\xa9\n")
    images = struct.pack(">IIII", 0x803, 2, 3, 2) + bytes(range(12))
    labels = struct.pack(">II", 0x801, 3) + bytes([0, 9, 4])
    put("dataset_text", "idx_images", b"\x03" + images)
    put("dataset_text", "idx_images_gz", b"\x08" + gzip.compress(images, mtime=0))
    put("dataset_text", "idx_labels", b"\x04" + labels)
    put("dataset_text", "idx_labels_gz", b"\x09" + gzip.compress(labels, mtime=0))


def image_bytes(image, format, **kwargs):
    buffer = io.BytesIO()
    image.save(buffer, format=format, **kwargs)
    return buffer.getvalue()


def image():
    # The first byte: extension (bits 0-1: png, jpg, bmp, jpeg), channels (bit 2), reduction (bits 3-4).
    colour = Image.new("RGB", (12, 7))
    colour.putdata([(x * 20, y * 30, (x + y) * 9) for y in range(7) for x in range(12)])
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: turned a quarter
    put("image", "colour.png", b"\x04" + image_bytes(colour, "PNG"))
    put("image", "grey.png", b"\x00" + image_bytes(colour.convert("L"), "PNG"))
    put("image", "exif6.jpg", b"\x0d" + image_bytes(colour, "JPEG", quality=80, exif=exif.tobytes()))
    put("image", "progressive.jpeg", b"\x13" + image_bytes(colour, "JPEG", progressive=True))
    put("image", "grey.jpg", b"\x01" + image_bytes(colour.convert("L"), "JPEG"))
    put("image", "colour.bmp", b"\x06" + image_bytes(colour, "BMP"))
    put("image", "palette.png", b"\x04" + image_bytes(colour.convert("P"), "PNG"))


def label_cache_payload(records):
    def string(text):
        return struct.pack("<I", len(text)) + text.encode()
    out = b""
    for image, image_stamp, label_stamp, size, boxes, problems in records:
        out += string(image) + struct.pack("<qqqq", *image_stamp, *label_stamp)
        out += struct.pack("<iiBB", size[0], size[1], 3, image.endswith(".jpg"))
        out += struct.pack("<Bq", bool(boxes) or bool(problems), 0) + struct.pack("<I", len(boxes))
        for box in boxes:
            out += struct.pack("<qffff", *box)
        out += struct.pack("<I", len(problems)) + b"".join(string(p) for p in problems)
    return out


def caches():
    def header(classes, count):
        max_image_pixels = 178956970  # the default
        return struct.pack("<I", 19) + b"trainer-label-cache" + struct.pack("<Iqqq", 2, classes, max_image_pixels, count)
    # The keys tests/fuzz/caches.cpp expects.
    a = ("images/train/a.jpg", (1234, 1000000001), (56, 1000000002), (640, 480), [(0, .5, .5, .2, .3)],
         ["labels/train/a.txt:2: class 7 is not below 3"])
    b = ("images/train/b.png", (789, 1000000003), (-1, 0), (32, 32), [], [])
    # Even first byte: the target appends the checksum; odd: the file as written (checksum too).
    put("caches", "two_records", b"\x00" + header(3, 2) + label_cache_payload([a, b]))
    put("caches", "one_record", b"\x02" + header(80, 1) + label_cache_payload([a]))
    whole = header(3, 2) + label_cache_payload([a, b])
    checksum = 0xcbf29ce484222325
    for byte in whole:
        checksum = ((checksum ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    put("caches", "file_as_written", b"\x01" + whole + struct.pack("<Q", checksum))


if __name__ == "__main__":
    for target in ("torch_archive", "safetensors", "recipe", "dataset_text", "image", "caches"):
        os.makedirs(os.path.join(CORPUS, target), exist_ok=True)  # found inputs and regressions stay
        globals()[target]()
