"""GFLOPs of one image through an exported ONNX model, counted the way Ultralytics' model.info()
counts them (thop's multiply-accumulates of convolutions and linear layers, times 2), from the
shapes onnx's shape inference gives. Batch-norm is folded into the convolutions by the export,
as in Ultralytics' fused figure; attention's matrix products are counted too (thop misses them,
being functional calls), and everything elementwise (activations, additions, softmax) is not.

usage: onnx_gflops.py FILE...   (prints "FILE GFLOPS" per file)
"""
import sys

import onnx
from onnx import numpy_helper, shape_inference


def shape_of(values, name):
    value = values[name]
    return [d.dim_value for d in value.type.tensor_type.shape.dim]


def product(numbers):
    result = 1
    for number in numbers:
        result *= number
    return result


def multiply_accumulates(path):
    model = shape_inference.infer_shapes(onnx.load(path), data_prop=True)
    graph = model.graph
    values = {v.name: v for v in list(graph.value_info) + list(graph.input) + list(graph.output)}
    weights = {t.name: numpy_helper.to_array(t).shape for t in graph.initializer}
    total = 0
    for node in graph.node:
        if node.op_type == "Conv":
            out = shape_of(values, node.output[0])
            kernel = weights.get(node.input[1]) or shape_of(values, node.input[1])
            total += product(out) * product(kernel[1:])  # each output: C_in / groups x kh x kw
        elif node.op_type in ("MatMul", "Gemm"):
            out = shape_of(values, node.output[0])
            first = weights.get(node.input[0]) or shape_of(values, node.input[0])
            transposed = node.op_type == "Gemm" and any(a.name == "transA" and a.i for a in node.attribute)
            inner = first[-2] if transposed else first[-1]
            total += product(out) * inner
    batch = shape_of(values, graph.input[0].name)[0] or 1
    return total / batch


def main(paths):
    for path in paths:
        print(f"{path} {2 * multiply_accumulates(path) / 1e9:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
