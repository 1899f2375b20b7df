#include "data/detect/label_cache.h"

namespace trainer {
namespace {

constexpr char kMagic[] = "trainer-label-cache";
constexpr uint32_t kFormatVersion = 2;

void put_record(CacheWriter& out, const ScannedImage& record) {
  out.put(record.key.image);
  out.put(record.key.image_stamp);
  out.put(record.key.label_stamp);
  out.put(record.image);
  out.put(uint8_t(record.labels.found));
  out.put(record.labels.duplicates);
  out.put(uint32_t(record.labels.boxes.size()));
  for (const YoloBox& box : record.labels.boxes) {
    out.put(box.cls);
    for (const float value : {box.cx, box.cy, box.w, box.h}) out.put(value);
  }
  out.put(uint32_t(record.labels.problems.size()));
  for (const std::string& problem : record.labels.problems) out.put(problem);
}

ScannedImage get_record(CacheReader& in) {
  ScannedImage record;
  record.key.image = in.get_string();
  record.key.image_stamp = in.get_stamp();
  record.key.label_stamp = in.get_stamp();
  record.image = in.get_checked_image();
  record.labels.found = in.get<uint8_t>() != 0;
  record.labels.duplicates = in.get<int64_t>();
  record.labels.boxes.resize(in.get_count());
  for (YoloBox& box : record.labels.boxes) {
    box.cls = in.get<int64_t>();
    for (float* value : {&box.cx, &box.cy, &box.w, &box.h}) *value = in.get<float>();
  }
  record.labels.problems.resize(in.get_count());
  for (std::string& problem : record.labels.problems) problem = in.get_string();
  return record;
}

std::string header(int64_t classes, size_t count) {
  CacheWriter out;
  out.put(std::string(kMagic));
  out.put(kFormatVersion);
  out.put(classes);
  out.put(max_image_pixels());  // an image over it was recorded as unreadable
  out.put(uint64_t(count));
  return out.bytes();
}

}  // namespace

std::optional<std::vector<ScannedImage>> read_label_cache(const std::filesystem::path& cache,
                                                          const std::vector<LabelCacheKey>& keys, int64_t classes) {
  const std::optional<std::string> payload = read_cache_payload(cache, header(classes, keys.size()));
  if (!payload) return std::nullopt;
  CacheReader in(*payload);
  std::vector<ScannedImage> records;
  records.reserve(keys.size());
  for (const LabelCacheKey& key : keys) {
    records.push_back(get_record(in));
    if (!in.ok() || !(records.back().key == key)) return std::nullopt;
  }
  if (!in.at_end()) return std::nullopt;
  return records;
}

void write_label_cache(const std::filesystem::path& cache, const std::vector<ScannedImage>& records, int64_t classes) {
  CacheWriter out;
  for (const ScannedImage& record : records) put_record(out, record);
  write_cache_file(cache, header(classes, records.size()), out.bytes());
}

}  // namespace trainer
