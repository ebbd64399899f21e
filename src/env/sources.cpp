#include "env/sources.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <tuple>
#include <utility>

namespace benchledger::env::detail {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

Root::Root(std::filesystem::path root)
    : m_root(std::move(root)), m_live(m_root.lexically_normal() == "/") {}

std::filesystem::path Root::path(std::string_view relative) const {
  while (!relative.empty() && relative.front() == '/') relative.remove_prefix(1);
  return m_root / std::filesystem::path(relative);
}

bool Root::exists(std::string_view relative) const {
  std::error_code ec;
  return std::filesystem::exists(path(relative), ec);
}

std::optional<std::string> Root::read(std::string_view relative, std::size_t max_bytes) const {
  // POSIX read, not std::ifstream: /proc and /sys files report a size of 0, and a read error
  // must become "unknown", not an exception.
  const std::string file = path(relative).string();
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::string out;
  std::array<char, 8192> buffer{};
  bool ok = true;
  while (out.size() < max_bytes) {
    const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), max_bytes - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      ok = false;
      break;
    }
    if (n == 0) break;
    out.append(buffer.data(), static_cast<std::size_t>(n));
  }
  std::ignore = ::close(fd);  // read-only: nothing to lose if close fails
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::string> Root::read_line(std::string_view relative) const {
  auto text = read(relative, 64 * 1024);
  if (!text) return std::nullopt;
  std::string line = trim(std::string_view(*text).substr(0, text->find('\n')));
  if (line.empty()) return std::nullopt;
  return line;
}

std::optional<std::int64_t> Root::read_int(std::string_view relative) const {
  auto line = read_line(relative);
  if (!line) return std::nullopt;
  return parse_int(*line);
}

std::string trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return std::string(text);
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  const std::string t = trim(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  const std::string t = trim(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> count_cpu_list(std::string_view text) {
  const std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  std::int64_t count = 0;
  for (std::string_view part : split(t, ',')) {
    const std::size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      if (!parse_int(part)) return std::nullopt;
      ++count;
      continue;
    }
    const auto first = parse_int(part.substr(0, dash));
    const auto last = parse_int(part.substr(dash + 1));
    if (!first || !last || *last < *first || *first < 0) return std::nullopt;
    count += *last - *first + 1;
  }
  return count;
}

std::optional<std::int64_t> parse_cache_size(std::string_view text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  std::int64_t multiplier = 1;
  switch (std::toupper(static_cast<unsigned char>(t.back()))) {
    case 'K':
      multiplier = 1024;
      break;
    case 'M':
      multiplier = 1024 * 1024;
      break;
    case 'G':
      multiplier = 1024 * 1024 * 1024;
      break;
    default:
      break;
  }
  if (multiplier != 1) t.pop_back();
  const auto value = parse_int(t);
  if (!value || *value < 0) return std::nullopt;
  return *value * multiplier;
}

std::vector<CpuinfoBlock> parse_cpuinfo(std::string_view text) {
  std::vector<CpuinfoBlock> blocks;
  CpuinfoBlock current;
  for (std::string_view line : split(text, '\n')) {
    if (trim(line).empty()) {
      if (!current.empty()) blocks.push_back(std::move(current));
      current.clear();
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    current.emplace(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
  }
  if (!current.empty()) blocks.push_back(std::move(current));
  return blocks;
}

std::map<std::string, std::string, std::less<>> parse_os_release(std::string_view text) {
  // Shell-like assignments (os-release(5)): values may be in double or single quotes, with
  // backslash escapes inside double quotes.
  std::map<std::string, std::string, std::less<>> fields;
  for (std::string_view line : split(text, '\n')) {
    const std::string l = trim(line);
    if (l.empty() || l.front() == '#') continue;
    const std::size_t eq = l.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string key = l.substr(0, eq);
    std::string_view raw = std::string_view(l).substr(eq + 1);
    std::string value;
    if (!raw.empty() && (raw.front() == '"' || raw.front() == '\'')) {
      const char quote = raw.front();
      raw.remove_prefix(1);
      bool closed = false;
      for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == quote) {
          closed = true;
          break;
        }
        if (quote == '"' && c == '\\' && i + 1 < raw.size()) {
          value.push_back(raw[++i]);
          continue;
        }
        value.push_back(c);
      }
      if (!closed) continue;
    } else {
      value = std::string(raw);
    }
    fields[key] = value;
  }
  return fields;
}

std::optional<std::int64_t> parse_meminfo_total(std::string_view text) {
  for (std::string_view line : split(text, '\n')) {
    if (line.substr(0, 9) != "MemTotal:") continue;
    std::string rest = trim(line.substr(9));
    if (rest.size() < 3 || rest.substr(rest.size() - 2) != "kB") return std::nullopt;
    const auto kib = parse_int(rest.substr(0, rest.size() - 2));
    if (!kib || *kib <= 0) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::optional<std::vector<double>> parse_loadavg(std::string_view text) {
  const std::string trimmed = trim(text);
  const std::vector<std::string_view> fields = split(trimmed, ' ');
  if (fields.size() < 3) return std::nullopt;
  std::vector<double> loads;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto value = parse_double(fields[i]);
    if (!value || *value < 0) return std::nullopt;
    loads.push_back(*value);
  }
  return loads;
}

std::vector<CgroupLine> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupLine> lines;
  for (std::string_view line : split(text, '\n')) {
    if (trim(line).empty()) continue;
    const std::size_t first = line.find(':');
    if (first == std::string_view::npos) continue;
    const std::size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    CgroupLine parsed;
    parsed.hierarchy = std::string(line.substr(0, first));
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    if (!controllers.empty()) {
      for (std::string_view c : split(controllers, ',')) parsed.controllers.emplace_back(c);
    }
    parsed.path = trim(line.substr(second + 1));
    lines.push_back(std::move(parsed));
  }
  return lines;
}

std::optional<double> parse_cpu_max(std::string_view text) {
  const std::string trimmed = trim(text);
  const std::vector<std::string_view> fields = split(trimmed, ' ');
  if (fields.empty() || fields[0] == "max") return std::nullopt;
  const auto quota = parse_int(fields[0]);
  // The period defaults to 100 ms when the file gives only the quota.
  const auto period =
      fields.size() > 1 ? parse_int(fields[1]) : std::optional<std::int64_t>(100000);
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<std::string> hypervisor_from_cpuid_signature(std::string_view signature) {
  // The vendor signatures hypervisors put in CPUID leaf 0x40000000 (EBX, ECX, EDX), named as
  // systemd-detect-virt names them (src/basic/virt.c).
  static const std::array<std::pair<std::string_view, std::string_view>, 10> k_signatures{{
      {"KVMKVMKVM", "kvm"},
      {"Linux KVM Hv", "kvm"},
      {"TCGTCGTCGTCG", "qemu"},
      {"VMwareVMware", "vmware"},
      {"Microsoft Hv", "microsoft"},
      {"XenVMMXenVMM", "xen"},
      {"bhyve bhyve ", "bhyve"},
      {"QNXQVMBSQG", "qnx"},
      {"ACRNACRNACRN", "acrn"},
      {"SRESRESRESRE", "sre"},
  }};
  std::string_view sig = signature;
  while (!sig.empty() && (sig.back() == '\0' || sig.back() == ' ')) sig.remove_suffix(1);
  for (const auto& [prefix, name] : k_signatures) {
    std::string_view p = prefix;
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
    if (sig == p) return std::string(name);
  }
  return std::nullopt;
}

std::optional<std::string> hypervisor_from_dmi(std::string_view text) {
  // systemd-detect-virt's DMI vendor table: the start of product_name, sys_vendor,
  // board_vendor or bios_vendor.
  static const std::array<std::pair<std::string_view, std::string_view>, 17> k_vendors{{
      {"KVM", "kvm"},
      {"OpenStack", "kvm"},
      {"KubeVirt", "kvm"},
      {"Amazon EC2", "amazon"},
      {"QEMU", "qemu"},
      {"VMware", "vmware"},
      {"VMW", "vmware"},
      {"innotek GmbH", "oracle"},
      {"VirtualBox", "oracle"},
      {"Oracle Corporation", "oracle"},
      {"Xen", "xen"},
      {"Bochs", "bochs"},
      {"Parallels", "parallels"},
      {"BHYVE", "bhyve"},
      {"Hyper-V", "microsoft"},
      {"Apple Virtualization", "apple"},
      {"Google Compute Engine", "google"},
  }};
  const std::string t = trim(text);
  for (const auto& [prefix, name] : k_vendors) {
    if (std::string_view(t).substr(0, prefix.size()) == prefix) return std::string(name);
  }
  return std::nullopt;
}

std::optional<std::string> container_from_cgroup(std::string_view proc_cgroup) {
  for (const CgroupLine& line : parse_proc_cgroup(proc_cgroup)) {
    const std::string path = lower(line.path);
    if (path.find("/docker/") != std::string::npos || path.find("/docker-") != std::string::npos)
      return "docker";
    if (path.find("/libpod-") != std::string::npos ||
        path.find("/libpod_parent") != std::string::npos)
      return "podman";
    if (path.find("/kubepods") != std::string::npos) return "kubernetes";
    if (path.find("/lxc/") != std::string::npos || path.find("/lxc.payload") != std::string::npos)
      return "lxc";
  }
  return std::nullopt;
}

}  // namespace benchledger::env::detail
