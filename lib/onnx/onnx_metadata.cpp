#include "onnx/onnx_metadata.h"

#include <onnx/onnx_pb.h>

#include <fstream>

#include "util/error.h"

namespace trainer::onnx_export {

namespace {

onnx::ModelProto read_model(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot open " + path.string());
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw UserError(path.string() + " is not an ONNX model (it does not parse)");
  return model;
}

}  // namespace

OnnxFileInfo read_onnx_file_info(const std::filesystem::path& path) {
  const onnx::ModelProto model = read_model(path);
  if (model.graph().input_size() != 1 ||
      model.graph().input(0).type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
    throw UserError(path.string() + ": OpenCV DNN runs fp32 ONNX files with one input; export it without half");
  }
  OnnxFileInfo info;
  for (const auto& entry : model.metadata_props()) info.metadata[entry.key()] = entry.value();
  const auto& shape = model.graph().input(0).type().tensor_type().shape();
  if (shape.dim_size() > 0) info.batch = shape.dim(0).dim_value();
  return info;
}

std::string with_input_shape(const std::filesystem::path& path, const std::vector<int64_t>& shape) {
  onnx::ModelProto model = read_model(path);
  onnx::TensorShapeProto* dims =
      model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->clear_dim();
  for (const int64_t size : shape) dims->add_dim()->set_dim_value(size);
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

}  // namespace trainer::onnx_export
