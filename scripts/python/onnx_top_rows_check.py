"""Checks the top-k tail of an end-to-end YOLO's ONNX export against Ultralytics' postprocess.

usage: onnx_top_rows_check.py FILE.onnx PREDICTIONS.f32 BATCH CHANNELS ANCHORS

PREDICTIONS.f32 holds raw float32 [BATCH, CHANNELS, ANCHORS]: boxes (x1, y1, x2, y2) and class
scores, the value the file's metadata names `trainer_predictions`. python3-onnx 1.12 has no
reference evaluator and OpenCV 4.6 no TopK, so the nodes after that value are evaluated here one by
one with numpy (only the operators the tail uses), and the result is compared with
ultralytics/nn/modules/head.py's Detect.postprocess and get_topk_index, written in torch from that
source: the anchors of the k best best-class scores, then the k best (anchor, class) pairs among
them, rows (x1, y1, x2, y2, score, class).
"""
import sys

import numpy
import onnx
import torch
from onnx import numpy_helper


def attribute(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def top_k(x, k, axis):
    order = numpy.argsort(-x, axis=axis, kind="stable")
    index = numpy.take(order, numpy.arange(int(k[0])), axis=axis)
    return numpy.take_along_axis(x, index, axis=axis), index


def run(node, v):
    x = [v[name] if name else None for name in node.input]
    op = node.op_type
    if op == "Transpose":
        return [numpy.transpose(x[0], attribute(node, "perm"))]
    if op == "Slice":
        index = [slice(None)] * x[0].ndim
        index[int(x[3][0])] = slice(int(x[1][0]), int(x[2][0]))
        return [x[0][tuple(index)]]
    if op == "ReduceMax":
        return [x[0].max(axis=tuple(attribute(node, "axes")), keepdims=bool(attribute(node, "keepdims", 1)))]
    if op == "TopK":
        return list(top_k(x[0], x[1], attribute(node, "axis", -1)))
    if op == "Reshape":
        shape = [x[0].shape[i] if s == 0 else s for i, s in enumerate(x[1])]
        return [x[0].reshape(shape)]
    if op == "Expand":
        return [x[0] * numpy.ones(x[1], dtype=x[0].dtype)]
    if op == "GatherElements":
        return [numpy.take_along_axis(x[0], x[1], axis=attribute(node, "axis", 0))]
    if op == "Div":
        return [x[0] // x[1]]
    if op == "Mod":
        return [x[0] % x[1]]
    if op == "Cast":
        return [x[0].astype(numpy.float32)]
    if op == "Concat":
        return [numpy.concatenate(x, axis=attribute(node, "axis"))]
    raise AssertionError(f"operator {op} in the tail is not evaluated here")


def ultralytics_postprocess(preds, max_det, nc):
    """Detect.postprocess on (B, A, 4 + nc), as Ultralytics 8.4 writes it."""
    boxes, scores = preds.split([4, nc], dim=-1)
    batch_size, anchors, _ = scores.shape
    k = min(max_det, anchors)
    ori_index = scores.max(dim=-1)[0].topk(k)[1].unsqueeze(-1)
    scores = scores.gather(dim=1, index=ori_index.repeat(1, 1, nc))
    scores, index = scores.flatten(1).topk(k)
    idx = ori_index[torch.arange(batch_size)[..., None], index // nc]
    boxes = boxes.gather(dim=1, index=idx.repeat(1, 1, 4))
    return torch.cat([boxes, scores[..., None], (index % nc)[..., None].float()], dim=-1)


def main(path, raw, batch, channels, anchors):
    model = onnx.load(path)
    metadata = {p.key: p.value for p in model.metadata_props}
    start = metadata["trainer_predictions"]
    preds = numpy.fromfile(raw, dtype=numpy.float32).reshape(int(batch), int(channels), int(anchors))
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values[start] = preds
    reached = False
    for node in model.graph.node:  # topological order; the tail follows the predictions
        if not reached:
            reached = start in node.input
            if not reached:
                continue
        for name, value in zip(node.output, run(node, values)):
            values[name] = value
    out = values[model.graph.output[0].name]
    rows = out.shape[1]
    expected = ultralytics_postprocess(torch.from_numpy(preds).permute(0, 2, 1), rows, int(channels) - 4).numpy()
    assert out.shape == expected.shape, f"{out.shape} != {expected.shape}"
    assert numpy.allclose(out, expected, rtol=0, atol=0), f"largest difference {numpy.abs(out - expected).max()}"
    assert metadata.get("end2end") == "True", metadata.get("end2end")
    print(f"{path}: the tail gives Ultralytics' {out.shape} rows")


if __name__ == "__main__":
    main(*sys.argv[1:])
