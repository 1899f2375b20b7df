"""Checks exported ONNX files with Debian's python3-onnx, the way a consumer's tools would.

usage: onnx_check.py FILE...   (exit 0 when every file passes; each failure is printed)

Per file: onnx.checker.check_model(full_check=True) (which also runs strict shape inference),
shape inference again with check_type and strict_mode, every node output given a type by it, the
declared output shape equal to the inferred one, and the metadata a deployed copy needs.
"""
import ast
import sys

import onnx
from onnx import shape_inference


def dims(value):
    return [d.dim_param if d.HasField("dim_param") else d.dim_value for d in value.type.tensor_type.shape.dim]


def check(path):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    inferred = shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    typed = {v.name for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    untyped = [o for n in inferred.graph.node for o in n.output if o not in typed]
    assert not untyped, f"outputs without an inferred type: {untyped[:5]}"
    declared = {o.name: dims(o) for o in model.graph.output}
    for value in inferred.graph.value_info:
        if value.name in declared and dims(value) != declared[value.name]:
            raise AssertionError(f"{value.name}: declared {declared[value.name]}, inferred {dims(value)}")
    metadata = {p.key: p.value for p in model.metadata_props}
    task = metadata.get("task")
    needed = {"task", "batch", "imgsz", "channels", "trainer_recipe"}
    needed |= {"charset"} if task == "ocr" else {"names"}
    needed |= {"stride"} if task == "detect" else set()
    missing = needed - metadata.keys()
    assert not missing, f"metadata without {sorted(missing)}"
    if task != "ocr":
        names = ast.literal_eval(metadata["names"])  # as Ultralytics reads it
        assert isinstance(names, dict) and list(names) == list(range(len(names))), metadata["names"]
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"{path}: ok (opset {model.opset_import[0].version}, ir {model.ir_version}, {task}, "
          f"in {dims(model.graph.input[0])}, out {declared}, ops {' '.join(ops)})")


def main():
    failed = 0
    for path in sys.argv[1:]:
        try:
            check(path)
        except Exception as error:  # report every file, then fail
            failed += 1
            print(f"{path}: FAILED: {type(error).__name__}: {error}")
    sys.exit(1 if failed or len(sys.argv) < 2 else 0)


if __name__ == "__main__":
    main()
