"""Rewrites an fp16 ONNX export as the same graph in fp32, for tests/test_onnx_export.cpp: OpenCV
DNN (the only ONNX runtime here) reads fp32 files only, so the fp16 file's own values are run in
fp32 arithmetic and compared with LibTorch's fp32 outputs.

usage: onnx_half_as_float.py IN.onnx OUT.onnx [IN.onnx OUT.onnx ...]

Fails unless the file is an fp16 one: its input and output FLOAT16, and its weights too (all but a
few small fp32 constants the operators require, such as Resize's scales). Each FLOAT16 initializer becomes FLOAT holding exactly its fp16 values; the graph's value types
become FLOAT; nothing else changes.
"""
import sys

import numpy
import onnx
from onnx import numpy_helper

FLOAT16, FLOAT = onnx.TensorProto.FLOAT16, onnx.TensorProto.FLOAT


def as_float(source, target):
    model = onnx.load(source)
    graph = model.graph
    floating = [t for t in graph.initializer if t.data_type == FLOAT16]
    fp32_values = sum(numpy.prod(t.dims) for t in graph.initializer if t.data_type == FLOAT)
    fp16_values = sum(numpy.prod(t.dims) for t in floating)
    assert fp16_values > 100 * fp32_values, f"{source}: {fp32_values} fp32 values, {fp16_values} fp16: not an fp16 file"
    for value in list(graph.input) + list(graph.output):
        assert value.type.tensor_type.elem_type == FLOAT16, f"{source}: {value.name} is not fp16"
        value.type.tensor_type.elem_type = FLOAT
    for tensor in floating:
        values = numpy_helper.to_array(tensor).astype(numpy.float32)
        tensor.CopyFrom(numpy_helper.from_array(values, tensor.name))
    for value in graph.value_info:
        if value.type.tensor_type.elem_type == FLOAT16:
            value.type.tensor_type.elem_type = FLOAT
    onnx.save(model, target)


def main(arguments):
    assert arguments and len(arguments) % 2 == 0, __doc__
    for source, target in zip(arguments[::2], arguments[1::2]):
        as_float(source, target)


if __name__ == "__main__":
    main(sys.argv[1:])
