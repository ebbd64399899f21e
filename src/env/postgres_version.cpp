#include "env/postgres_version.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>
#include <memory>
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

}  // namespace

std::string postgres_server_version(const std::string& dsn, std::chrono::milliseconds timeout) {
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

  if (PQsendQuery(connection.get(), "SELECT version()") != 1)
    throw std::runtime_error(reason(connection.get()));
  while (PQflush(connection.get()) == 1) wait_for(connection.get(), POLLOUT, deadline, timeout);
  std::string version;
  bool have_version = false;
  while (true) {
    while (PQisBusy(connection.get()) == 1) {
      wait_for(connection.get(), POLLIN, deadline, timeout);
      if (PQconsumeInput(connection.get()) != 1) throw std::runtime_error(reason(connection.get()));
    }
    Result result(PQgetResult(connection.get()));
    if (!result) break;
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
      throw std::runtime_error(one_line(PQresultErrorMessage(result.get())));
    if (!have_version && PQntuples(result.get()) == 1 && PQnfields(result.get()) == 1 &&
        PQgetisnull(result.get(), 0, 0) == 0) {
      version = PQgetvalue(result.get(), 0, 0);
      have_version = true;
    }
  }
  if (!have_version) throw std::runtime_error("SELECT version() returned no row");
  return version;
}

}  // namespace benchledger::env::detail
