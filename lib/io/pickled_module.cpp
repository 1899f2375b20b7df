#include "io/pickled_module.h"

#include <optional>
#include <unordered_set>

#include "util/error.h"

namespace trainer {
namespace {

// An object's __dict__ when BUILD gave it one (plain objects pickle their __dict__ as state).
std::optional<c10::impl::GenericDict> state_dict_of(const c10::IValue& value) {
  const PickledObject* object = pickled_object(value);
  if (object == nullptr || !object->state.isGenericDict()) return std::nullopt;
  c10::impl::GenericDict state = object->state.toGenericDict();
  if (*state.keyType() != *c10::StringType::get()) return std::nullopt;
  return state;
}

// The module's `_parameters` or `_buffers` (an OrderedDict of name -> tensor or None).
void add_tensors(const c10::impl::GenericDict& state, const char* field, const std::string& prefix,
                 const std::unordered_set<std::string>& skipped, const std::string& origin, NamedTensors& out) {
  if (!state.contains(field)) return;
  const c10::IValue& tensors = state.at(field);
  if (!tensors.isGenericDict()) throw UserError(origin + ": module " + prefix + " has a " + field + " that is no dict");
  for (const auto& entry : tensors.toGenericDict()) {
    const std::string name = entry.key().toStringRef();
    if (entry.value().isNone() || skipped.count(name) != 0) continue;
    if (!entry.value().isTensor()) {
      throw UserError(origin + ": " + prefix + name + " in " + field + " is a " + entry.value().tagKind() +
                      ", not a tensor");
    }
    out.emplace_back(prefix + name, entry.value().toTensor().detach());
  }
}

void walk(const c10::IValue& module, const std::string& prefix, const std::string& origin, int depth,
          NamedTensors& out) {
  const std::optional<c10::impl::GenericDict> state = state_dict_of(module);
  if (!state || !is_pickled_module(module)) {
    throw UserError(origin + ": " + (prefix.empty() ? "the model" : prefix) + " is not a pickled torch.nn.Module");
  }
  if (depth > 100) throw UserError(origin + ": modules nested more than 100 deep");
  std::unordered_set<std::string> non_persistent;
  if (state->contains("_non_persistent_buffers_set") && state->at("_non_persistent_buffers_set").isList()) {
    for (const c10::IValue& name : state->at("_non_persistent_buffers_set").toListRef()) {
      if (name.isString()) non_persistent.insert(name.toStringRef());
    }
  }
  add_tensors(*state, "_parameters", prefix, {}, origin, out);
  add_tensors(*state, "_buffers", prefix, non_persistent, origin, out);
  if (!state->contains("_modules")) return;
  const c10::IValue& children = state->at("_modules");
  if (!children.isGenericDict()) throw UserError(origin + ": module " + prefix + " has _modules that is no dict");
  for (const auto& child : children.toGenericDict()) {
    if (child.value().isNone()) continue;
    walk(child.value(), prefix + child.key().toStringRef() + ".", origin, depth + 1, out);
  }
}

}  // namespace

bool is_pickled_module(const c10::IValue& value) {
  const std::optional<c10::impl::GenericDict> state = state_dict_of(value);
  return state && state->contains("_parameters") && state->contains("_modules");
}

NamedTensors pickled_state_dict(const c10::IValue& module, const std::string& origin) {
  NamedTensors tensors;
  walk(module, "", origin, 0, tensors);
  return tensors;
}

c10::IValue pickled_attribute(const c10::IValue& object, const std::string& name) {
  const std::optional<c10::impl::GenericDict> state = state_dict_of(object);
  return state && state->contains(name) ? state->at(name) : c10::IValue();
}

}  // namespace trainer
