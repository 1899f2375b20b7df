#include "data/pixel_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "data/scan_cache.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/parallel.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "trainer-pixels 1";

// An exclusive flock(2) held for the object's lifetime; the kernel drops it however the process
// ends, so a builder killed mid-way never blocks the next one.
class BuildLock {
 public:
  explicit BuildLock(const fs::path& cache) {
    const fs::path file = cache.string() + ".lock";
    fd_ = ::open(file.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0) throw UserError("cannot create " + file.string() + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    spdlog::info("cache=disk: another process is building {}; waiting for it", cache.string());
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~BuildLock() { ::close(fd_); }
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;

 private:
  int fd_ = -1;
};

// Encodes a slice of images at a time on every core, then appends them in order, so the file
// is the same for any thread count and memory holds one slice.
void write_entries(const PixelCacheRequest& request, const std::function<cv::Mat(size_t)>& make,
                   PixelCacheWriter& writer) {
  const size_t count = request.images.size();
  const size_t slice = 64 * std::max<size_t>(1, std::thread::hardware_concurrency());
  auto reported = std::chrono::steady_clock::now();
  for (size_t first = 0; first < count; first += slice) {
    std::vector<EncodedImage> encoded(std::min(slice, count - first));
    parallel_for_each_index(encoded.size(), [&](size_t k) {
      cv::Mat image;
      try {
        image = make(first + k);
      } catch (const UserError& error) {
        spdlog::warn("cache=disk: {}; the loader reads the file instead", error.what());
      }
      encoded[k] = encode_for_cache(image, request.quality);
    });
    for (const EncodedImage& image : encoded) writer.add(image);
    if (std::chrono::steady_clock::now() - reported > std::chrono::seconds(10)) {
      spdlog::info("cache=disk: {} of {} images in {}", first + encoded.size(), count, request.file.string());
      reported = std::chrono::steady_clock::now();
    }
  }
}

void build(const PixelCacheRequest& request, const std::function<cv::Mat(size_t)>& make, uint64_t key) {
  spdlog::info("cache=disk: writing {} images ({}) to {}", request.images.size(), request.purpose,
               request.file.string());
  const auto start = std::chrono::steady_clock::now();
  replace_file_atomically(request.file, [&](const fs::path& temporary) {
    PixelCacheWriter writer(temporary);
    write_entries(request, make, writer);
    writer.finish(key);
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("cache=disk: {} written in {:.1f} s ({:.1f} MB)", request.file.string(), seconds,
               double(fs::file_size(request.file)) / 1e6);
}

}  // namespace

uint64_t pixel_cache_key(const PixelCacheRequest& request) {
  Fnv1a digest;
  digest.add(kFormat);
  digest.add(request.purpose);
  digest.add_value(int32_t(request.quality));
  digest.add_value(uint64_t(request.images.size()));
  for (const std::string& image : request.images) {
    const FileStamp stamp = stamp_of(image);
    digest.add(image);
    digest.add_value(stamp.size);
    digest.add_value(stamp.mtime_ns);
  }
  return digest.value();
}

fs::path pixel_cache_path(const fs::path& beside, const std::string& cache_dir, bool evaluation) {
  const fs::path folder = beside.has_filename() ? beside : beside.parent_path();
  const std::string suffix = evaluation ? ".eval.trainer-pixels" : ".trainer-pixels";
  if (cache_dir.empty()) return folder.string() + suffix;
  const uint64_t digest = fnv1a(fs::absolute(folder).lexically_normal().string());
  return fs::path(cache_dir) / fmt::format("{}-{:08x}{}", folder.filename().string(), digest >> 32, suffix);
}

std::shared_ptr<const PixelCacheFile> open_pixel_cache(const PixelCacheRequest& request,
                                                       const std::function<cv::Mat(size_t)>& make) {
  const uint64_t key = pixel_cache_key(request);
  if (auto cache = PixelCacheFile::open(request.file, key)) return cache;
  std::error_code error;
  const fs::path folder = request.file.parent_path();
  if (!folder.empty()) fs::create_directories(folder, error);  // "" is the working directory
  if (error) throw UserError("cache=disk: cannot create " + folder.string() + ": " + error.message());
  const BuildLock lock(request.file);
  // The process that held the lock may have built it meanwhile.
  if (auto cache = PixelCacheFile::open(request.file, key)) return cache;
  remove_stale_temporaries_of(request.file);  // a builder killed mid-write left its whole file
  build(request, make, key);
  if (auto cache = PixelCacheFile::open(request.file, key)) return cache;
  throw UserError("cache=disk: " + request.file.string() + " changed while it was being opened");
}

}  // namespace trainer
