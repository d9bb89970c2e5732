#include "packing/packed_file.h"

#include <cpuinfo.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "edgemt/version.h"
#include "memory/mapped_file.h"

#ifndef EDGEMT_KERNEL_BUILD_ID
#error "EDGEMT_KERNEL_BUILD_ID (the XNNPACK build's fingerprint) comes from runtime/CMakeLists.txt"
#endif

namespace edgemt {
namespace {

// Bump when what EdgeMT hands XNNPACK to pack changes (how fused layers are
// stacked, which weights a layer id covers) or when the layout below does.
constexpr uint32_t kFormat = 1;
constexpr char kMagic[8] = {'E', 'M', 'T', 'P', 'A', 'C', 'K', '\x01'};
constexpr size_t kDataAlignment = 4096;   // the data starts on a page
constexpr size_t kEntryAlignment = 128;   // each packed operator (XNNPACK needs <= 128)
constexpr size_t kMaxKeyBytes = 4096;

struct FileHeader {
  char magic[8];
  uint32_t format;
  uint32_t key_bytes;    // the key text follows the header
  uint64_t entry_count;  // then the entry table
  uint64_t data_offset;  // then the packed data, page aligned
  uint64_t data_bytes;
  uint64_t file_bytes;
  uint64_t table_hash;   // Fingerprint64 of the key text and the entry table
  uint64_t header_hash;  // Fingerprint64 of the bytes above
};

struct FileEntry {
  uint64_t layer;
  uint32_t seed;
  uint32_t reserved;
  uint64_t offset;  // from the data's start
  uint64_t size;
  uint64_t hash;    // Fingerprint64 of its packed bytes
};

uint64_t HeaderHash(const FileHeader& header) { return Fingerprint64(&header, offsetof(FileHeader, header_hash)); }

std::string Hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016" PRIx64, value);
  return text;
}

// The CPU as XNNPACK sees it when it chooses kernels (and so the layout).
std::string CpuDescription() {
#if defined(__EMSCRIPTEN__)
  return "wasm";  // XNNPACK's WebAssembly kernels are chosen when it is built
#else
  if (!cpuinfo_initialize()) return "unknown";
  std::string text = Hex(Fingerprint64(&cpuinfo_isa, sizeof(cpuinfo_isa)));
  for (uint32_t i = 0; i < cpuinfo_get_uarchs_count(); ++i)
    text += " uarch " + std::to_string(static_cast<unsigned>(cpuinfo_get_uarch(i)->uarch));
  return text;
#endif
}

const char* ArchName() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm";
#elif defined(__wasm32__)
  return "wasm32";
#else
  return "other";
#endif
}

Status Unusable(const std::string& path, const std::string& why) {
  return Status(StatusCode::kInvalidModel, "packed cache " + path + " is not used: " + why);
}

Status WriteFailed(const std::string& path, const std::string& why) {
  return Status(StatusCode::kResourceExhausted, "cannot write packed cache " + path + ": " + why);
}

bool WriteAll(int fd, const void* data, size_t size, uint64_t offset) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

uint64_t RoundUp(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

}  // namespace

std::string PackedFileKey(const std::string& model_identity) {
  return "edgemt packed weights " + std::to_string(kFormat) + "; edgemt " + std::string(Version()) +
         "; kernels " EDGEMT_KERNEL_BUILD_ID "; arch " + ArchName() + "; cpu " + CpuDescription() + "; model " +
         model_identity;
}

std::string PackedFilePath(const std::string& dir, const std::string& key) {
  return dir + "/" + Hex(Fingerprint64(key.data(), key.size())) + ".packed";
}

Status LoadPackedCache(const std::string& path, const std::string& key, PackedWeights* store) {
  MappedFile file = MapReadOnly(path);
  switch (file.failure) {
    case MappedFile::Failure::kNone:
    case MappedFile::Failure::kEmpty:  // truncated, below
      break;
    case MappedFile::Failure::kOpen:
      if (file.error == ENOENT || file.error == ENOTDIR) return Status(StatusCode::kNotFound, "no packed cache " + path);
      return Unusable(path, std::strerror(file.error));
    case MappedFile::Failure::kNotRegular:
      return Unusable(path, "not a regular file");
    case MappedFile::Failure::kMap:
      return Unusable(path, std::string("cannot map it: ") + std::strerror(file.error));
  }
  const uint64_t file_bytes = file.size;
  if (file_bytes < sizeof(FileHeader)) return Unusable(path, "truncated (" + std::to_string(file_bytes) + " bytes)");
  const uint8_t* base = file.data.get();

  FileHeader header;
  std::memcpy(&header, base, sizeof(header));
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0) return Unusable(path, "not a packed cache file");
  if (header.header_hash != HeaderHash(header)) return Unusable(path, "its header is corrupt");
  if (header.format != kFormat)
    return Unusable(path, "format " + std::to_string(header.format) + ", this runtime writes " + std::to_string(kFormat));
  if (header.file_bytes != file_bytes)
    return Unusable(path, "truncated or extended (" + std::to_string(file_bytes) + " bytes, the header says " +
                              std::to_string(header.file_bytes) + ")");
  // Every size below is bounded by the file's, so no sum overflows.
  const uint64_t table_offset = sizeof(FileHeader) + header.key_bytes;
  if (header.key_bytes > kMaxKeyBytes || header.entry_count > file_bytes / sizeof(FileEntry) ||
      table_offset + header.entry_count * sizeof(FileEntry) > header.data_offset ||
      header.data_offset % kDataAlignment != 0 || header.data_offset > file_bytes ||
      header.data_bytes != file_bytes - header.data_offset)
    return Unusable(path, "its layout is inconsistent");
  const uint64_t table_bytes = header.key_bytes + header.entry_count * sizeof(FileEntry);
  if (Fingerprint64(base + sizeof(FileHeader), static_cast<size_t>(table_bytes)) != header.table_hash)
    return Unusable(path, "its entry table is corrupt");
  if (std::string_view(reinterpret_cast<const char*>(base + sizeof(FileHeader)), header.key_bytes) != key)
    return Unusable(path, "it was made for another model file, EdgeMT, XNNPACK build or CPU");
  const uint8_t* data = base + header.data_offset;

  std::vector<PackedWeights::Entry> entries(static_cast<size_t>(header.entry_count));
  for (size_t i = 0; i < entries.size(); ++i) {
    FileEntry entry;
    std::memcpy(&entry, base + table_offset + i * sizeof(FileEntry), sizeof(entry));
    if (entry.offset % kEntryAlignment != 0 || entry.offset > header.data_bytes ||
        entry.size > header.data_bytes - entry.offset)
      return Unusable(path, "entry " + std::to_string(i) + " lies outside the data");
    // Reads every packed byte once: the pages are then resident for the first translation.
    if (Fingerprint64(data + entry.offset, static_cast<size_t>(entry.size)) != entry.hash)
      return Unusable(path, "the packed weights of entry " + std::to_string(i) + " are corrupt");
    entries[i] = PackedWeights::Entry{entry.layer, entry.seed, data + entry.offset, static_cast<size_t>(entry.size)};
  }
  if (!store->AdoptMapped(std::move(file.data), entries))
    return Unusable(path, "the model's weights were packed already, or it has more entries than the model has layers");
  return Status::Ok();
}

Status WritePackedCache(const std::string& path, const std::string& key, const PackedWeights& store) {
  const std::vector<PackedWeights::Entry> entries = store.Snapshot();
  if (key.size() > kMaxKeyBytes) return WriteFailed(path, "the key is too long");
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return WriteFailed(path, "cannot create the directory: " + std::string(std::strerror(errno)));

  FileHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.format = kFormat;
  header.key_bytes = static_cast<uint32_t>(key.size());
  header.entry_count = entries.size();
  std::vector<uint8_t> table(key.begin(), key.end());
  uint64_t data_bytes = 0;
  for (const PackedWeights::Entry& entry : entries) {
    const FileEntry record{entry.layer, entry.seed, 0, data_bytes, entry.size, Fingerprint64(entry.data, entry.size)};
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&record);
    table.insert(table.end(), bytes, bytes + sizeof(record));
    data_bytes = RoundUp(data_bytes + entry.size, kEntryAlignment);
  }
  header.data_offset = RoundUp(sizeof(FileHeader) + table.size(), kDataAlignment);
  header.data_bytes = data_bytes;
  header.file_bytes = header.data_offset + data_bytes;
  header.table_hash = Fingerprint64(table.data(), table.size());

  header.header_hash = HeaderHash(header);

  std::string temporary = path + ".tmp.XXXXXX";
  const int fd = mkstemp(&temporary[0]);
  if (fd < 0) return WriteFailed(path, std::strerror(errno));
  fchmod(fd, 0644);
  bool written = WriteAll(fd, &header, sizeof(header), 0) && WriteAll(fd, table.data(), table.size(), sizeof(header));
  uint64_t offset = 0;
  for (size_t i = 0; written && i < entries.size(); ++i) {
    written = WriteAll(fd, entries[i].data, entries[i].size, header.data_offset + offset);
    offset = RoundUp(offset + entries[i].size, kEntryAlignment);
  }
  // The padding stays zero (a hole); the length is the header's.
  written = written && ftruncate(fd, static_cast<off_t>(header.file_bytes)) == 0 && fsync(fd) == 0;
  const int write_errno = errno;
  written = close(fd) == 0 && written;
  if (!written || rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = written ? errno : write_errno;
    unlink(temporary.c_str());
    return WriteFailed(path, std::strerror(error));
  }
  return Status::Ok();
}

}  // namespace edgemt
