"""Python's side of tests/test_safetensors.cpp and tests/test_export.cpp. The safetensors
package is not installed, so files are parsed and written by hand (struct, json, numpy): an
independent reading of the format rather than our own code checked against itself.

  safetensors_fixture.py check FILE REFERENCE.pt METADATA_JSON
      parse FILE, check its layout (8-byte aligned header, tensors contiguous in header order,
      nothing after them), and that its tensors equal those of REFERENCE.pt (torch.load,
      weights_only=True) and its __metadata__ equals METADATA_JSON
  safetensors_fixture.py write OUT
      write a file by hand with known values of every dtype (see tests/test_safetensors.cpp)
  safetensors_fixture.py export FULL.pt FULL.safetensors HALF.pt HALF.safetensors IMAGE
      load FULL.pt into torchvision's resnet18(num_classes=2) strictly, check the other exports
      hold the same weights (fp16 where halved, integer buffers untouched), and print the eval-mode
      softmax of IMAGE as "probabilities P0 P1"
"""
import json
import struct
import sys

import numpy as np
import torch

NUMPY_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
                "I8": "i1", "U8": "u1", "BOOL": "?"}


def read_safetensors(path):
    """(header entries in file order, metadata, {name: tensor}, byte buffer)."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length].decode("utf-8"))
    buffer = data[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        raw = buffer[begin:end]
        if info["dtype"] == "BF16":
            tensor = torch.from_numpy(np.frombuffer(raw, dtype="<i2").copy()).view(torch.bfloat16)
        else:
            tensor = torch.from_numpy(np.frombuffer(raw, dtype=NUMPY_DTYPES[info["dtype"]]).copy())
        tensors[name] = tensor.reshape(info["shape"])
    return list(header.items()), metadata, tensors, (length, data[8:8 + length], buffer)


def check_layout(path):
    entries, _, _, (length, header_bytes, buffer) = read_safetensors(path)
    assert (8 + length) % 8 == 0, f"header length {length} leaves the data unaligned"
    text = header_bytes.decode("utf-8")
    assert text.startswith("{") and text.rstrip(" ").endswith("}"), "header padded with something but spaces"
    offset = 0
    for name, info in entries:
        begin, end = info["data_offsets"]
        assert begin == offset, f"{name}: begins at {begin}, expected {offset}"
        offset = end
    assert offset == len(buffer), f"{len(buffer) - offset} bytes after the last tensor"


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def check(path, reference_path, metadata_json):
    check_layout(path)
    _, metadata, tensors, _ = read_safetensors(path)
    reference = torch.load(reference_path, weights_only=True)
    assert sorted(tensors) == sorted(reference), f"names {sorted(tensors)} vs {sorted(reference)}"
    for name, expected in reference.items():
        assert same(tensors[name], expected), f"{name}: {tensors[name]!r} vs {expected!r}"
    expected_metadata = json.loads(metadata_json)
    assert metadata == expected_metadata, f"metadata {metadata} vs {expected_metadata}"
    print(f"ok: {len(tensors)} tensors")


def bf16_bytes(values):
    # float32 values exactly representable in bfloat16: their top two bytes.
    bits = np.array(values, dtype="<f4").view("<u4") >> 16
    return bits.astype("<u2").tobytes()


def write(out):
    tensors = [  # (name, dtype, shape, bytes)
        ("f64", "F64", [3], np.array([1.5, -2.25, 1e300], "<f8").tobytes()),
        ("f32", "F32", [2, 2], np.array([[1.5, -2.25], [3.0, float("inf")]], "<f4").tobytes()),
        ("f16", "F16", [3], np.array([0.5, -1.0, 65504.0], "<f2").tobytes()),
        ("bf16", "BF16", [2], bf16_bytes([1.5, -3.0])),
        ("i64", "I64", [2], np.array([2 ** 40, -(2 ** 62)], "<i8").tobytes()),
        ("i32", "I32", [1, 2], np.array([[-7, 2 ** 31 - 1]], "<i4").tobytes()),
        ("i16", "I16", [2], np.array([-300, 300], "<i2").tobytes()),
        ("i8", "I8", [2], np.array([-128, 127], "i1").tobytes()),
        ("u8", "U8", [3], np.array([0, 128, 255], "u1").tobytes()),
        ("bool", "BOOL", [3], np.array([True, False, True], "?").tobytes()),
        ("scalar", "F32", [], np.array(7.0, "<f4").tobytes()),
        ("empty", "F32", [0, 3], b""),
        ("gewicht.ä", "I8", [1], np.array([5], "i1").tobytes()),  # non-ASCII names are UTF-8
    ]
    # Data in the reverse of the header's order: readers must go by offsets, not by position.
    header = {"__metadata__": {"source": "python", "note": "hand-written"}}
    buffer = b""
    for name, dtype, shape, raw in reversed(tensors):
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(buffer), len(buffer) + len(raw)]}
        buffer += raw
    ordered = {"__metadata__": header["__metadata__"]}
    ordered.update({name: header[name] for name, *_ in tensors})
    # No padding, and non-ASCII kept raw: both are valid and a reader must take them.
    text = json.dumps(ordered, ensure_ascii=False).encode("utf-8")
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + buffer)


def export(full_pt, full_st, half_pt, half_st, image):
    import torchvision
    from torchvision.io import read_image

    full = torch.load(full_pt, weights_only=True)
    assert type(full) is dict and all(isinstance(v, torch.Tensor) for v in full.values()), type(full)
    assert not any(k.startswith(("module.", "_orig_mod.")) for k in full)
    model = torchvision.models.resnet18(num_classes=2)
    model.load_state_dict(full, strict=True)
    model.eval()

    half = torch.load(half_pt, weights_only=True)
    torchvision.models.resnet18(num_classes=2).load_state_dict(half, strict=True)
    for name, tensor in full.items():
        expected = tensor.half() if tensor.is_floating_point() else tensor
        assert same(half[name], expected), f"{half_pt}: {name}"
    assert half["bn1.num_batches_tracked"].dtype == torch.int64

    for path, reference in ((full_st, full), (half_st, half)):
        check_layout(path)
        _, metadata, tensors, _ = read_safetensors(path)
        assert sorted(tensors) == sorted(reference), path
        for name, expected in reference.items():
            assert same(tensors[name], expected), f"{path}: {name}"
        for key in ("format", "format_version", "task", "epoch", "source"):
            assert key in metadata, f"{path}: no metadata '{key}' in {metadata}"
        assert metadata["format"] == "pt" and metadata["task"] == "classify", metadata

    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    pixels = read_image(image).float() / 255.0
    with torch.no_grad():
        probabilities = torch.softmax(model(((pixels - mean) / std).unsqueeze(0)), 1)[0]
    print("probabilities", " ".join(f"{p:.8f}" for p in probabilities.tolist()))


def main(argv):
    command = argv[1]
    if command == "check":
        check(argv[2], argv[3], argv[4])
    elif command == "write":
        write(argv[2])
    elif command == "export":
        export(*argv[2:7])
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv)
