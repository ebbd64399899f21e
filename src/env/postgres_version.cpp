#include "env/postgres_version.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "env/sources.hpp"

namespace benchledger::env::detail {

namespace {

using Clock = std::chrono::steady_clock;

struct ConnectionCloser {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;
using Result = std::unique_ptr<PGresult, ResultClearer>;

// libpq's message on one line: it splits its reasons with newlines and tabs.
std::string one_line(const char* text) {
  std::string message;
  for (const char* c = text; *c != '\0'; ++c) {
    const bool space = *c == '\n' || *c == '\t' || *c == '\r';
    if (space && (message.empty() || message.back() == ' ')) continue;
    message.push_back(space ? ' ' : *c);
  }
  return trim(message);
}

std::string reason(PGconn* connection) {
  std::string message = one_line(PQerrorMessage(connection));
  return message.empty() ? "unknown libpq error" : message;
}

// Waits until the connection's socket is ready for `events` or the deadline passes.
void wait_for(PGconn* connection, short events, Clock::time_point deadline,
              std::chrono::milliseconds timeout) {
  const int fd = PQsocket(connection);
  if (fd < 0) throw std::runtime_error("no connection socket: " + reason(connection));
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    const std::string too_late = "no answer within " + std::to_string(timeout.count()) + " ms";
    if (left <= 0) throw std::runtime_error(too_late);
    pollfd pfd{fd, events, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready > 0) return;
    if (ready == 0) throw std::runtime_error(too_late);
    if (errno != EINTR) throw std::runtime_error("poll failed");
  }
}

// One query for everything a run records about the server. inet_server_addr() is null over a
// Unix-domain socket.
constexpr const char* k_facts_query =
    "SELECT version(), current_setting('shared_buffers'), current_setting('synchronous_commit'), "
    "current_setting('fsync'), current_setting('max_connections'), current_setting('wal_level'), "
    "current_setting('work_mem'), coalesce(host(inet_server_addr()), '')";
constexpr int k_facts_columns = 8;

}  // namespace

bool is_local_server_address(const std::string& address) {
  if (address.empty()) return true;
  in_addr v4{};
  in6_addr v6{};
  const bool is_v4 = ::inet_pton(AF_INET, address.c_str(), &v4) == 1;
  const bool is_v6 = !is_v4 && ::inet_pton(AF_INET6, address.c_str(), &v6) == 1;
  if (!is_v4 && !is_v6) return false;
  if (is_v4 && (ntohl(v4.s_addr) >> 24) == 127) return true;
  if (is_v6 && IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return false;
  bool found = false;
  for (const ifaddrs* at = list; at != nullptr && !found; at = at->ifa_next) {
    if (at->ifa_addr == nullptr) continue;
    if (is_v4 && at->ifa_addr->sa_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(at->ifa_addr);
      found = in->sin_addr.s_addr == v4.s_addr;
    } else if (is_v6 && at->ifa_addr->sa_family == AF_INET6) {
      const auto* in = reinterpret_cast<const sockaddr_in6*>(at->ifa_addr);
      found = std::memcmp(&in->sin6_addr, &v6, sizeof v6) == 0;
    }
  }
  ::freeifaddrs(list);
  return found;
}

PostgresFacts postgres_server_facts(const std::string& dsn, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  // libpq's own connect_timeout (whole seconds, at least 2) backs up the deadline below; it
  // comes after dbname so that it overrides a value in the DSN.
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
  const std::string connect_timeout = std::to_string(seconds < 2 ? 2 : seconds);
  const char* const keywords[] = {"dbname", "connect_timeout", nullptr};
  const char* const values[] = {dsn.c_str(), connect_timeout.c_str(), nullptr};
  Connection connection(PQconnectStartParams(keywords, values, 1));
  if (!connection) throw std::runtime_error("out of memory");
  // Only src/cli prints: silence libpq's default notice printer.
  PQsetNoticeProcessor(
      connection.get(), [](void*, const char*) {}, nullptr);
  if (PQstatus(connection.get()) == CONNECTION_BAD)
    throw std::runtime_error(reason(connection.get()));

  PostgresPollingStatusType state = PGRES_POLLING_WRITING;
  while (state != PGRES_POLLING_OK) {
    if (state == PGRES_POLLING_FAILED) throw std::runtime_error(reason(connection.get()));
    wait_for(connection.get(), state == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline,
             timeout);
    state = PQconnectPoll(connection.get());
  }

  if (PQsendQuery(connection.get(), k_facts_query) != 1)
    throw std::runtime_error(reason(connection.get()));
  while (PQflush(connection.get()) == 1) wait_for(connection.get(), POLLOUT, deadline, timeout);
  std::optional<PostgresFacts> facts;
  while (true) {
    while (PQisBusy(connection.get()) == 1) {
      wait_for(connection.get(), POLLIN, deadline, timeout);
      if (PQconsumeInput(connection.get()) != 1) throw std::runtime_error(reason(connection.get()));
    }
    Result result(PQgetResult(connection.get()));
    if (!result) break;
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
      throw std::runtime_error(one_line(PQresultErrorMessage(result.get())));
    if (!facts && PQntuples(result.get()) == 1 && PQnfields(result.get()) == k_facts_columns) {
      const auto column = [&](int i) -> std::optional<std::string> {
        if (PQgetisnull(result.get(), 0, i) != 0) return std::nullopt;
        return std::string(PQgetvalue(result.get(), 0, i));
      };
      PostgresFacts& f = facts.emplace();
      f.version = column(0).value_or("");
      f.settings.shared_buffers = column(1);
      f.settings.synchronous_commit = column(2);
      f.settings.fsync = column(3);
      f.settings.max_connections = column(4);
      f.settings.wal_level = column(5);
      f.settings.work_mem = column(6);
      f.settings.same_host = is_local_server_address(column(7).value_or(""));
    }
  }
  if (!facts || facts->version.empty())
    throw std::runtime_error("SELECT version() returned no row");
  return *facts;
}

}  // namespace benchledger::env::detail
