#include "net/file_disk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gregor::net {
namespace {

Status os_error(const std::string& what, const std::string& path, int err) {
  StatusCode code = StatusCode::kIoError;
  if (err == ENOSPC || err == EDQUOT) code = StatusCode::kDiskFull;
  if (err == ENOENT) code = StatusCode::kNotFound;
  return Status::error(code, what + " " + path + ": " + std::strerror(err));
}

std::string parent_of(const std::string& p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos ? std::string() : p.substr(0, slash);
}

}  // namespace

class OpenFd final : public OpenFile {
 public:
  OpenFd(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  ~OpenFd() override { ::close(fd_); }
  OpenFd(const OpenFd&) = delete;
  OpenFd& operator=(const OpenFd&) = delete;

  Result<Bytes> read(uint64_t offset, size_t len) const override {
    Bytes out(len);
    size_t done = 0;
    while (done < len) {
      ssize_t n = ::pread(fd_, out.data() + done, len - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return os_error("read", name_, errno);
      }
      if (n == 0) return Status::error(StatusCode::kIoError, name_ + " ends before the slice it was read for");
      done += static_cast<size_t>(n);
    }
    return out;
  }
  int native_handle() const override { return fd_; }

 private:
  int fd_;
  std::string name_;
};

FileDisk::FileDisk(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  // Each component of the root in turn; failures surface on first use.
  for (size_t i = 1; i <= root_.size(); i++)
    if (i == root_.size() || root_[i] == '/') ::mkdir(root_.substr(0, i).c_str(), 0755);
}

FileDisk::~FileDisk() {
  fds_.clear();
  unlock_root();
}

Status FileDisk::lock_root() {
  GREGOR_ASSERT(lock_fd_ < 0);
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0) {
    if (errno != ENOENT) return os_error("stat", root_, errno);
    // Each missing component in turn (the constructor tried already; this names what failed).
    for (size_t i = 1; i <= root_.size(); i++) {
      if (i != root_.size() && root_[i] != '/') continue;
      const std::string part = root_.substr(0, i);
      if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return os_error("cannot create the data directory", part, errno);
    }
    if (::stat(root_.c_str(), &st) != 0) return os_error("stat", root_, errno);
  }
  if (!S_ISDIR(st.st_mode))
    return Status::error(StatusCode::kInvalidArgument, "the data directory " + root_ + " exists and is not a directory");
  const std::string lock_path = root_ + "/" + kLockFileName;
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return os_error("cannot create the lock file", lock_path, errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return Status::error(StatusCode::kIoError, "the data directory " + root_ +
                                                     " is in use by another process (it holds " + lock_path + ")");
    return os_error("cannot lock", lock_path, err);
  }
  lock_fd_ = fd;
  return Status::ok();
}

void FileDisk::unlock_root() {
  if (lock_fd_ < 0) return;
  ::close(lock_fd_);  // closing the only descriptor of the open file releases the flock
  lock_fd_ = -1;
}

std::string FileDisk::full(const std::string& path) const {
  GREGOR_ASSERT_MSG(path.find("..") == std::string::npos, "path escapes the disk root: " + path);
  return path.empty() ? root_ : root_ + "/" + path;
}

Status FileDisk::make_parent_dirs(const std::string& path) {
  std::string dir = parent_of(path);
  if (dir.empty()) return Status::ok();
  for (size_t i = 1; i <= dir.size(); i++) {
    if (i == dir.size() || dir[i] == '/') {
      std::string d = full(dir.substr(0, i));
      if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return os_error("mkdir", d, errno);
    }
  }
  return Status::ok();
}

Status FileDisk::sync_dir_of(const std::string& path) {
  std::string d = full(parent_of(path));
  int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return os_error("open dir", d, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return os_error("fsync dir", d, err);
  return Status::ok();
}

Result<std::shared_ptr<const OpenFd>> FileDisk::open_fd(const std::string& path) {
  auto it = fds_.find(path);
  if (it != fds_.end()) return it->second;
  int fd = ::open(full(path).c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return os_error("open", full(path), errno);
  // A log keeps a few files open; bound the cache so a node with many partitions cannot run out
  // of descriptors (a descriptor leaves when the last slice of it is sent).
  if (fds_.size() >= 256) fds_.erase(fds_.begin());
  auto open = std::make_shared<const OpenFd>(fd, full(path));
  fds_[path] = open;
  return open;
}

Result<int> FileDisk::fd_for(const std::string& path) {
  auto open = open_fd(path);
  if (!open) return open.status();
  return (*open)->native_handle();
}

Result<std::shared_ptr<const OpenFile>> FileDisk::open_shared(const std::string& path) {
  auto open = open_fd(path);
  if (!open) return open.status();
  return std::shared_ptr<const OpenFile>(*open);
}

void FileDisk::close_fd(const std::string& path) { fds_.erase(path); }

Status FileDisk::create(const std::string& path) {
  GREGOR_RETURN_IF_ERROR(make_parent_dirs(path));
  int fd = ::open(full(path).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return os_error("create", full(path), errno);
  ::close(fd);
  return sync_dir_of(path);
}

Result<uint64_t> FileDisk::append(const std::string& path, ByteView data) {
  return append_parts(path, std::span<const ByteView>(&data, 1));
}

// The parts are written where they land in the file, each straight from its own buffer (a leader
// appends a produced batch as its patched header and the rest of the request frame: no copy).
Result<uint64_t> FileDisk::append_parts(const std::string& path, std::span<const ByteView> parts) {
  auto fd = fd_for(path);
  if (!fd) return fd.status();
  off_t end = ::lseek(*fd, 0, SEEK_END);
  if (end < 0) return os_error("seek", full(path), errno);
  uint64_t at = static_cast<uint64_t>(end);
  for (ByteView data : parts) {
    size_t done = 0;
    while (done < data.size()) {
      // At most up to the next kAppendWindowBytes boundary of the file per call (see the header).
      const size_t window = static_cast<size_t>(kAppendWindowBytes - at % kAppendWindowBytes);
      ssize_t n = ::pwrite(*fd, data.data() + done, std::min(window, data.size() - done), static_cast<off_t>(at));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        // Leave the file as it was: a partial append is cut off again.
        if (::ftruncate(*fd, end) != 0) {
        }
        return os_error("write", full(path), err);
      }
      done += static_cast<size_t>(n);
      at += static_cast<uint64_t>(n);
    }
  }
  return static_cast<uint64_t>(end);
}

Result<Bytes> FileDisk::read(const std::string& path, uint64_t offset, size_t len) {
  auto fd = fd_for(path);
  if (!fd) return fd.status();
  Bytes out(len);
  size_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(*fd, out.data() + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("read", full(path), errno);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return out;
}

Status FileDisk::truncate(const std::string& path, uint64_t size) {
  auto fd = fd_for(path);
  if (!fd) return fd.status();
  if (::ftruncate(*fd, static_cast<off_t>(size)) != 0) return os_error("truncate", full(path), errno);
  return Status::ok();
}

Status FileDisk::fsync(const std::string& path) {
  auto fd = fd_for(path);
  if (!fd) return fd.status();
  if (::fdatasync(*fd) != 0) return os_error("fsync", full(path), errno);
  return Status::ok();
}

Status FileDisk::rename(const std::string& from, const std::string& to) {
  close_fd(from);
  close_fd(to);
  GREGOR_RETURN_IF_ERROR(make_parent_dirs(to));
  if (::rename(full(from).c_str(), full(to).c_str()) != 0) return os_error("rename", full(from), errno);
  return sync_dir_of(to);
}

Status FileDisk::remove(const std::string& path) {
  close_fd(path);
  if (::unlink(full(path).c_str()) != 0) {
    if (errno == EISDIR || errno == EPERM) {
      if (::rmdir(full(path).c_str()) != 0) return os_error("remove", full(path), errno);
    } else {
      return os_error("remove", full(path), errno);
    }
  }
  return sync_dir_of(path);
}

Result<uint64_t> FileDisk::size(const std::string& path) {
  struct stat st;
  if (::stat(full(path).c_str(), &st) != 0) return os_error("stat", full(path), errno);
  return static_cast<uint64_t>(st.st_size);
}

bool FileDisk::exists(const std::string& path) {
  struct stat st;
  return ::stat(full(path).c_str(), &st) == 0;
}

Result<std::vector<std::string>> FileDisk::list(const std::string& dir) {
  std::string d = full(dir);
  DIR* h = ::opendir(d.c_str());
  if (!h) {
    if (errno == ENOENT) return std::vector<std::string>{};
    return os_error("list", d, errno);
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(h)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(h);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace gregor::net
