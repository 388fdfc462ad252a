#pragma once

#include <QString>
#include <chrono>
#include <functional>

class QProcess;
class QTemporaryDir;

namespace opsdeck::test {

/// Folder holding the built executables (`<build>/bin`).
QString binDir();
/// Absolute path of an executable in binDir(), e.g. binPath("opsdeck-sim").
QString binPath(const QString &name);
/// `tests/data` in the source tree: fixtures copied from ../shared with their origin.
QString dataDir();
QString dataPath(const QString &relative);
/// Reads a file from tests/data whole; fails the current test when it is missing.
QByteArray readData(const QString &relative);

/// Waits until `condition` holds or `deadline` passes, processing Qt events
/// meanwhile. Returns the last value of `condition`. Never a bare sleep.
bool waitUntil(const std::function<bool()> &condition, std::chrono::milliseconds deadline);

/// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
int freeTcpPort();

/// True when some process still has `pid` (kill(pid, 0) succeeds and it is not a zombie).
bool processAlive(qint64 pid);

/// Stops a child process for good: SIGTERM, a wait of up to `deadline`, then
/// SIGKILL and a bounded wait. Returns its exit code, -1 when it crashed or was
/// killed. Leaves its output unread for the caller's log.
int stopProcess(QProcess &process, std::chrono::milliseconds deadline);

/// Writes `yaml` to `inventory.yaml` in `dir` and returns its path; fails the
/// current test when the file cannot be written.
QString writeInventory(const QTemporaryDir &dir, const QString &yaml);

/// Writes `bytes` to `path` (replacing it); false when it could not.
bool writeFile(const QString &path, const QByteArray &bytes);
/// Runs `opsdeck-cli audit --verify --data-dir DIR` and returns its exit code
/// (-1 when it did not finish in 30 s); `output` gets what it printed.
int auditVerify(const QString &dataDir, QString *output = nullptr);
/// The whole of `path`; empty when it cannot be read.
QByteArray readFile(const QString &path);

} // namespace opsdeck::test
