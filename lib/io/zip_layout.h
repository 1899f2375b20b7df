// The layout of a zip archive checked before LibTorch's reader (miniz) extracts anything from it:
// miniz takes each record's size from the central directory and allocates it whole, and reads
// entries wherever their offsets point, so a hostile archive could claim terabytes or make
// entries share bytes (the overlapping layout of zip bombs). torch.save never writes either.
#pragma once
#include <string>

namespace trainer {

// Throws UserError naming `path` unless its central directory lies inside the file and each
// entry's local header and data lie before that directory, without overlapping another entry,
// stored (then as large as it says it is) or deflated (then at most deflate's 1032:1 larger).
// Zip64 sizes and offsets are read.
void check_zip_layout(const std::string& path);

}  // namespace trainer
