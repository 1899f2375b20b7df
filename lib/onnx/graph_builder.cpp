#include "onnx/graph_builder.h"

#include <onnx/onnx_pb.h>
#include <torch/torch.h>

#include "util/error.h"

namespace trainer::onnx_export {
namespace {

// The IR version each opset came out with (onnx/helper.py's VERSION_TABLE): a reader checks that
// the file's IR knows the opset it imports.
int64_t ir_version(int64_t opset) { return opset <= 14 ? 7 : 8; }

void set_shape(onnx::ValueInfoProto& info, const std::vector<Dim>& dims, int element_type) {
  onnx::TypeProto_Tensor* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(element_type);
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (const Dim& dim : dims) {
    onnx::TensorShapeProto_Dimension* out = shape->add_dim();
    if (const auto* size = std::get_if<int64_t>(&dim)) {
      out->set_dim_value(*size);
    } else {
      out->set_dim_param(std::get<std::string>(dim));
    }
  }
}

void set_attribute(onnx::AttributeProto& out, const Attribute& attribute) {
  out.set_name(attribute.name);
  if (const auto* i = std::get_if<int64_t>(&attribute.value)) {
    out.set_type(onnx::AttributeProto::INT);
    out.set_i(*i);
  } else if (const auto* f = std::get_if<float>(&attribute.value)) {
    out.set_type(onnx::AttributeProto::FLOAT);
    out.set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&attribute.value)) {
    out.set_type(onnx::AttributeProto::STRING);
    out.set_s(*s);
  } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&attribute.value)) {
    out.set_type(onnx::AttributeProto::INTS);
    for (const int64_t value : *ints) out.add_ints(value);
  } else {
    out.set_type(onnx::AttributeProto::FLOATS);
    for (const float value : std::get<std::vector<float>>(attribute.value)) out.add_floats(value);
  }
}

}  // namespace

GraphBuilder::GraphBuilder(int64_t opset, bool half)
    : opset_(opset), half_(half), model_(std::make_unique<onnx::ModelProto>()) {
  if (opset < kMinOpset || opset > kMaxOpset) {
    throw UserError("export: opset=" + std::to_string(opset) + " is not supported; use " + std::to_string(kMinOpset) +
                    " to " + std::to_string(kMaxOpset));
  }
  model_->set_ir_version(ir_version(opset));
  model_->set_producer_name("trainer");
  onnx::OperatorSetIdProto* import = model_->add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model_->mutable_graph()->set_name("trainer");
}

GraphBuilder::~GraphBuilder() = default;

std::string GraphBuilder::fresh(const std::string& hint) {
  const int count = used_names_[hint]++;
  return count == 0 ? hint : hint + "_" + std::to_string(count);
}

std::string GraphBuilder::input(const std::string& name, const std::vector<Dim>& dims) {
  onnx::ValueInfoProto* info = model_->mutable_graph()->add_input();
  info->set_name(fresh(name));
  set_shape(*info, dims, half_ ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT);
  return info->name();
}

void GraphBuilder::output(const std::string& value, const std::string& name, const std::vector<Dim>& dims) {
  // The node that makes `value` writes the graph output directly, so no Identity is needed.
  const std::string out = fresh(name);
  onnx::GraphProto* graph = model_->mutable_graph();
  for (onnx::NodeProto& node : *graph->mutable_node()) {
    for (std::string& output : *node.mutable_output()) {
      if (output == value) output = out;
    }
    for (std::string& input : *node.mutable_input()) {
      if (input == value) input = out;
    }
  }
  onnx::ValueInfoProto* info = graph->add_output();
  info->set_name(out);
  set_shape(*info, dims, half_ ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT);
}

std::string GraphBuilder::constant(const std::string& hint, const torch::Tensor& tensor) {
  return stored(hint, tensor, half_);
}

std::string GraphBuilder::floats(const std::string& hint, const std::vector<float>& values) {
  return stored(hint, torch::tensor(values, torch::kFloat), false);
}

std::string GraphBuilder::stored(const std::string& hint, const torch::Tensor& tensor, bool half) {
  onnx::TensorProto* out = model_->mutable_graph()->add_initializer();
  out->set_name(fresh(hint));
  for (const int64_t size : tensor.sizes()) out->add_dims(size);
  torch::Tensor data;
  if (tensor.is_floating_point()) {
    data = tensor.detach().to(torch::kCPU, half ? torch::kHalf : torch::kFloat).contiguous();
    out->set_data_type(half ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT);
  } else {
    data = tensor.detach().to(torch::kCPU, torch::kLong).contiguous();
    out->set_data_type(onnx::TensorProto::INT64);
  }
  out->set_raw_data(std::string(static_cast<const char*>(data.data_ptr()), data.nbytes()));
  return out->name();
}

std::string GraphBuilder::int64s(const std::string& hint, const std::vector<int64_t>& values) {
  return constant(hint, torch::tensor(values, torch::kLong));
}

std::string GraphBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                               const std::vector<Attribute>& attributes) {
  return node_outputs(op, inputs, attributes, 1).front();
}

std::vector<std::string> GraphBuilder::node_outputs(const std::string& op, const std::vector<std::string>& inputs,
                                                    const std::vector<Attribute>& attributes, int outputs) {
  onnx::NodeProto* node = model_->mutable_graph()->add_node();
  node->set_op_type(op);
  node->set_name(fresh(op));
  for (const std::string& input : inputs) node->add_input(input);
  std::vector<std::string> names;
  for (int i = 0; i < outputs; ++i) {
    names.push_back(fresh(node->name() + "_out"));
    node->add_output(names.back());
  }
  for (const Attribute& attribute : attributes) set_attribute(*node->add_attribute(), attribute);
  if (std::find(operators_.begin(), operators_.end(), op) == operators_.end()) operators_.push_back(op);
  return names;
}

void GraphBuilder::metadata(const std::string& key, const std::string& value) {
  onnx::StringStringEntryProto* entry = model_->add_metadata_props();
  entry->set_key(key);
  entry->set_value(value);
}

std::string GraphBuilder::serialize() const {
  std::string bytes;
  if (!model_->SerializeToString(&bytes)) throw std::runtime_error("ONNX: the model does not serialize");
  return bytes;
}

}  // namespace trainer::onnx_export
