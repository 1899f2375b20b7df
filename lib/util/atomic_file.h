// Replacing a file so that readers and crashes see either the old content or the whole new one.
#pragma once
#include <filesystem>
#include <functional>
#include <string_view>

namespace trainer {

// Calls write(temporary) for a fresh temporary path in `path`'s folder, fsyncs the result (a
// full disk that only shows at fsync is an error too) and renames it over `path`, then fsyncs the
// folder. On any exception the temporary file is removed, `path` is left as it was, and the
// exception propagates; its own failures (fsync, rename) are UserErrors naming the file.
void replace_file_atomically(const std::filesystem::path& path,
                             const std::function<void(const std::filesystem::path& temporary)>& write);

// Removes the temporary files that replacements into `folder` left when their process died
// mid-write (kill -9, power loss). Only for a folder no other process is writing into (a locked
// run folder): a live writer's temporary would go too.
void remove_stale_temporaries(const std::filesystem::path& folder);
// The same for the temporaries of one file only, for a file no other process is replacing (its
// writers hold a lock), in a folder others may be writing into.
void remove_stale_temporaries_of(const std::filesystem::path& path);

// Replaces `path` with `bytes` in the same way; any failure is a UserError naming the file.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace trainer
