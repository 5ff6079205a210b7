// Disk: the only way engine code touches files.
//
// A Disk is a node's private storage, addressed by relative paths with '/' separators
// ("orders-0/00000000000000000000.log"). Directories exist implicitly in the simulator and are
// created on demand on real files; list(dir) returns the names directly inside dir, sorted.
//
// Durability contract (what both implementations promise and what recovery code may assume):
// - append/truncate change the file's contents at once for every reader on the node, but they are
//   durable only after fsync(path). A process crash keeps them (the OS page cache survives); a
//   power loss keeps only what was fsynced and may leave a torn tail of the unsynced part.
// - create, rename and remove are metadata operations and are durable when they return (as on a
//   journaling file system with a directory fsync after each). rename replaces the target
//   atomically, which is how checkpoint files are written: write a temp file, fsync, rename.
// - A full disk fails append with kDiskFull and changes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <span>

#include "engine/core/bytes.h"
#include "engine/core/file_slice.h"
#include "engine/core/shared_bytes.h"
#include "engine/core/status.h"

namespace gregor {

class Disk {
 public:
  virtual ~Disk() = default;

  // Creates an empty file if it does not exist; an existing file is left as it is.
  virtual Status create(const std::string& path) = 0;
  // Appends data at the end; returns the position where it landed.
  virtual Result<uint64_t> append(const std::string& path, ByteView data) = 0;
  // Appends the parts one after the other, as one append of their concatenation (all or nothing
  // when the disk is full). The default concatenates them; a disk that can gather overrides it.
  virtual Result<uint64_t> append_parts(const std::string& path, std::span<const ByteView> parts);
  // Reads up to len bytes at offset; fewer at the end of the file.
  virtual Result<Bytes> read(const std::string& path, uint64_t offset, size_t len) = 0;
  // The same bytes as read, but possibly shared with the disk's own cache instead of copied (the
  // simulated disk's page cache does so when they lie in one page). They never change once
  // returned, whatever is written to the file later. The default adopts what read returns.
  virtual Result<SharedBytes> read_shared(const std::string& path, uint64_t offset, size_t len);
  // The file at path held open for FileSlices (engine/core/file_slice.h) that a runtime sends
  // without reading them (sendfile); it stays readable through the handle after a rename or remove.
  // Null where the disk has no such files (the default; the simulator's disk): callers then read
  // bytes. Errors: the file cannot be opened.
  virtual Result<std::shared_ptr<const OpenFile>> open_shared(const std::string& path) {
    (void)path;
    return std::shared_ptr<const OpenFile>();
  }
  // Shrinks (or zero-extends) the file to size.
  virtual Status truncate(const std::string& path, uint64_t size) = 0;
  virtual Status fsync(const std::string& path) = 0;
  virtual Status rename(const std::string& from, const std::string& to) = 0;
  virtual Status remove(const std::string& path) = 0;
  virtual Result<uint64_t> size(const std::string& path) = 0;
  virtual bool exists(const std::string& path) = 0;
  // Names (files and sub-directories) directly inside dir ("" is the root), sorted.
  virtual Result<std::vector<std::string>> list(const std::string& dir) = 0;

  // Convenience: the whole file.
  Result<Bytes> read_all(const std::string& path);
  // Convenience: replace path's contents durably (temp file, fsync, rename).
  Status write_file_atomic(const std::string& path, ByteView data);
};

}  // namespace gregor
