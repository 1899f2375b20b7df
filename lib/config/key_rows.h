// Builders for the rows of the key table (config/recipe_keys.cpp), so that each row reads as one
// declaration: `int_key("epochs", FIELD(schedule.epochs), 1).help("…").resumable()`. The builder of a
// type fills the parser, the printer and the accepted values; the chained calls add the rest.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "config/key_values.h"
#include "config/recipe_keys.h"
#include "util/text.h"

// The settings field a row reads and writes, as a path from Settings: FIELD(schedule.epochs). The lambda
// serves both the parser (Settings&) and the printer (const Settings&).
#define FIELD(path) \
  [](auto& settings) -> auto& { return settings.path; }

namespace trainer {

class KeyRow {
 public:
  explicit KeyRow(RecipeKey key) : key_(std::move(key)) {}
  KeyRow&& help(std::string text) && {
    key_.help = std::move(text);
    return std::move(*this);
  }
  KeyRow&& tasks(TaskMask tasks) && {
    key_.tasks = tasks;
    return std::move(*this);
  }
  KeyRow&& resumable() && {
    key_.resumable = true;
    return std::move(*this);
  }
  KeyRow&& values(std::string text) && {
    key_.values = std::move(text);
    return std::move(*this);
  }
  KeyRow&& default_text(std::string text) && {
    key_.default_text = std::move(text);
    return std::move(*this);
  }
  // A bare `key` on the command line means key=true (the key also takes true and false).
  KeyRow&& bare_means_true() && {
    key_.is_bool = true;
    return std::move(*this);
  }
  // '' is a value of its own, not the default (EasyOCR's symbol: '' is no symbols).
  KeyRow&& empty_is_value() && {
    key_.takes_empty = true;
    return std::move(*this);
  }
  // Takes a YAML sequence, or comma-separated items in one value.
  KeyRow&& list() && {
    key_.is_list = true;
    return std::move(*this);
  }
  // May name a file or folder: a resumed run finds a relative one from where the run started.
  // `exceptions` are values that name something else (data=fashion-mnist) even where such a file exists.
  KeyRow&& path(std::vector<std::string> exceptions = {}) && {
    key_.is_path = true;
    key_.path_exceptions = std::move(exceptions);
    return std::move(*this);
  }
  // Another tool's spelling with our meaning: accepted, with an info line naming our key.
  KeyRow&& same_as(ForeignTool tool, std::string name, std::string note = "") && {
    key_.foreign.push_back({std::move(name), tool, ForeignMeaning::same, std::move(note), {}, {}, {}});
    return std::move(*this);
  }
  // The same, with values of its own: `assign` sets our settings from them.
  KeyRow&& same_as(ForeignTool tool, std::string name, std::string note,
                   std::function<void(Settings&, const RecipeValue&)> assign) && {
    key_.foreign.push_back({std::move(name), tool, ForeignMeaning::same, std::move(note), {}, std::move(assign), {}});
    return std::move(*this);
  }
  // The spelling just added asks for nothing at `values` (Ultralytics' cos_lr: false): there it
  // sets nothing and is named in the info line of ignored keys.
  KeyRow&& inert_at(std::vector<std::string> values) && {
    key_.foreign.back().inert_values = std::move(values);
    return std::move(*this);
  }
  // Another tool's spelling of something like this key whose meaning differs: refused with `reason`,
  // except at `inert_values` (see ForeignSpelling), which ask for nothing.
  KeyRow&& differs(ForeignTool tool, std::string name, std::string reason,
                   std::vector<std::string> inert_values = {}) && {
    key_.foreign.push_back(
        {std::move(name), tool, ForeignMeaning::different, std::move(reason), std::move(inert_values), {}, {}});
    return std::move(*this);
  }
  // The tool spells this key as we do; `note` says what differs in its meaning (docs only: ours is read).
  KeyRow&& same_name(ForeignTool tool, std::string note = "") && {
    key_.foreign.push_back({key_.name, tool, ForeignMeaning::ours, std::move(note), {}, {}, {}});
    return std::move(*this);
  }
  RecipeKey take(KeySection section) && {
    key_.section = section;
    return std::move(key_);
  }

 private:
  RecipeKey key_;
};

inline KeyRow custom_key(std::string name, std::string values,
                         std::function<void(Settings&, const RecipeValue&)> assign,
                         std::function<std::string(const Settings&)> show) {
  RecipeKey key;
  key.name = std::move(name);
  key.values = std::move(values);
  key.assign = std::move(assign);
  key.show = std::move(show);
  return KeyRow(std::move(key));
}

template <typename Field>
KeyRow int_key(const std::string& name, Field field, int64_t min, int64_t max = kNoUpperBound) {
  return custom_key(
      name, int_range_text(min, max),
      [=](Settings& s, const RecipeValue& v) { field(s) = parse_int(name, v, min, max); },
      [=](const Settings& s) { return std::to_string(field(s)); });
}

// An optional integer: `unset_word` (auto or none) leaves it unset.
template <typename Field>
KeyRow optional_int_key(const std::string& name, Field field, int64_t min, const std::string& unset_word) {
  return custom_key(
      name, unset_word + " or " + int_range_text(min, kNoUpperBound),
      [=](Settings& s, const RecipeValue& v) {
        if (unset_word == "auto" ? is_auto(v) : is_none(v)) {
          field(s).reset();
        } else {
          field(s) = parse_int(name, v, min, kNoUpperBound);
        }
      },
      [=](const Settings& s) { return field(s) ? std::to_string(*field(s)) : unset_word; });
}

// A number or none (the key's other rule applies).
template <typename Field>
KeyRow optional_double_key(const std::string& name, Field field, double min, double max) {
  return custom_key(
      name, "none or " + double_range_text(min, max, {}),
      [=](Settings& s, const RecipeValue& v) {
        if (is_none(v)) {
          field(s).reset();
        } else {
          field(s) = parse_double(name, v, min, max);
        }
      },
      [=](const Settings& s) { return field(s) ? show_double(*field(s)) : std::string("none"); });
}

template <typename Field>
KeyRow double_key(const std::string& name, Field field, double min, double max, RangeEnds ends = {}) {
  return custom_key(
      name, double_range_text(min, max, ends),
      [=](Settings& s, const RecipeValue& v) { field(s) = parse_double(name, v, min, max, ends); },
      [=](const Settings& s) { return show_double(field(s)); });
}

template <typename Field>
KeyRow bool_key(const std::string& name, Field field) {
  return custom_key(
             name, "bool", [=](Settings& s, const RecipeValue& v) { field(s) = parse_bool(name, v); },
             [=](const Settings& s) { return std::string(field(s) ? "true" : "false"); })
      .bare_means_true();
}

template <typename Field>
KeyRow string_key(const std::string& name, Field field, bool allow_empty, std::string values) {
  KeyRow row = custom_key(
      name, std::move(values),
      [=](Settings& s, const RecipeValue& v) { field(s) = parse_string(name, v, allow_empty); },
      [=](const Settings& s) { return field(s).empty() ? std::string("none") : field(s); });
  return allow_empty ? std::move(row).empty_is_value() : std::move(row);
}

// Choices are named by their to_string(), in any case; `spellings` adds other words for them (true,
// false, none).
template <typename Enum, typename Field>
KeyRow enum_key(const std::string& name, Field field, std::vector<Enum> choices,
                std::vector<std::pair<std::string, Enum>> spellings = {}) {
  std::vector<std::pair<std::string, Enum>> words;
  std::vector<std::string> names;
  for (Enum choice : choices) {
    words.emplace_back(to_string(choice), choice);
    names.emplace_back(to_string(choice));
  }
  for (const auto& spelling : spellings) {
    words.push_back(spelling);
    names.push_back(spelling.first);
  }
  const std::string values = join(names, ", ");
  return custom_key(
      name, values,
      [=](Settings& s, const RecipeValue& v) {
        const std::string lowered = v.is_null ? "none" : to_lower(v.text);
        for (const auto& [word, choice] : words) {
          if (lowered == to_lower(word)) {
            field(s) = choice;
            return;
          }
        }
        fail_value(name, v, "one of " + values);
      },
      [=](const Settings& s) { return std::string(to_string(field(s))); });
}

// A list of items: a YAML sequence, comma-separated, or EasyOCR's '-'-separated form.
template <typename Field>
KeyRow string_list_key(const std::string& name, Field field, std::string values) {
  return custom_key(
             name, std::move(values),
             [=](Settings& s, const RecipeValue& v) {
               field(s) = split_list_items(v);
               for (const auto& item : field(s)) {
                 if (item.empty()) fail_value(name, v, "a list of non-empty names");
               }
             },
             [=](const Settings& s) { return show_items(field(s)); })
      .list();
}

template <typename Field>
KeyRow double_list_key(const std::string& name, Field field, double min, double max, std::string values) {
  return custom_key(
             name, std::move(values),
             [=](Settings& s, const RecipeValue& v) {
               field(s).clear();
               for (const auto& item : split_list_items(v))
                 field(s).push_back(parse_double(name, {item, false, v.where}, min, max));
             },
             [=](const Settings& s) { return show_items(field(s)); })
      .list();
}

}  // namespace trainer
