#include "testsupport.h"

#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace opsdeck::test {

QString binDir()
{
    return QStringLiteral(OPSDECK_BIN_DIR);
}

QString binPath(const QString &name)
{
    return binDir() + QLatin1Char('/') + name;
}

QString dataDir()
{
    return QStringLiteral(OPSDECK_TEST_DATA_DIR);
}

QString dataPath(const QString &relative)
{
    return dataDir() + QLatin1Char('/') + relative;
}

QByteArray readData(const QString &relative)
{
    QFile file(dataPath(relative));
    if (!file.open(QIODevice::ReadOnly)) {
        ADD_FAILURE() << "missing test data " << file.fileName().toStdString();
        return {};
    }
    return file.readAll();
}

bool waitUntil(const std::function<bool()> &condition, std::chrono::milliseconds deadline)
{
    return QTest::qWaitFor(condition, static_cast<int>(deadline.count()));
}

int freeTcpPort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

bool processAlive(qint64 pid)
{
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0)
        return false;
    // A zombie still answers kill(0); its state letter in /proc says it has
    // exited, unless other threads run on after its main thread exited.
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    bool zombie = false;
    int threads = 1;
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("State:", 0) == 0)
            zombie = line.find('Z') != std::string::npos;
        else if (line.rfind("Threads:", 0) == 0)
            threads = std::atoi(line.c_str() + 8);
    }
    return !zombie || threads > 1;
}

int stopProcess(QProcess &process, std::chrono::milliseconds deadline)
{
    if (process.state() == QProcess::NotRunning)
        return process.exitCode();
    process.terminate();
    if (!process.waitForFinished(static_cast<int>(deadline.count()))) {
        process.kill();
        process.waitForFinished(2000);
        return -1;
    }
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

QString writeInventory(const QTemporaryDir &dir, const QString &yaml)
{
    const QString path = dir.filePath(QStringLiteral("inventory.yaml"));
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::WriteOnly)) << path.toStdString();
    file.write(yaml.toUtf8());
    return path;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

int auditVerify(const QString &dataDir, QString *output)
{
    QProcess cli;
    cli.start(binPath(QStringLiteral("opsdeck-cli")),
              {QStringLiteral("audit"), QStringLiteral("--verify"), QStringLiteral("--data-dir"),
               dataDir});
    if (!cli.waitForFinished(30000)) {
        cli.kill();
        cli.waitForFinished(5000);
        return -1;
    }
    if (output)
        *output = QString::fromUtf8(cli.readAllStandardOutput() + cli.readAllStandardError());
    return cli.exitStatus() == QProcess::NormalExit ? cli.exitCode() : -1;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace opsdeck::test
