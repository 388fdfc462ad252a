#include "testuser.h"

#include <QCoreApplication>
#include <QProcess>
#include <QRandomGenerator>
#include <pwd.h>
#include <unistd.h>

namespace opsdeck::test {

namespace {

// Exit 0 within 30 s; stdin gets `input` and is closed.
bool run(const QString &program, const QStringList &arguments, QString &error,
         const QByteArray &input = {})
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForStarted(10000)) {
        error = QStringLiteral("%1 did not start: %2").arg(program, process.errorString());
        return false;
    }
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        error = QStringLiteral("%1 failed: %2")
                    .arg(program, QString::fromLocal8Bit(process.readAllStandardError()));
        return false;
    }
    return true;
}

} // namespace

TestUser::~TestUser()
{
    if (m_created) {
        QString ignored;
        // -f: also when a leftover session process of the test still runs as the user.
        run(QStringLiteral("userdel"), {QStringLiteral("-f"), m_name}, ignored);
    }
}

QString TestUser::uniqueName(const QString &tag)
{
    return QStringLiteral("opsdeck-%1-%2")
        .arg(tag)
        .arg(QCoreApplication::applicationPid())
        .left(32);
}

QByteArray TestUser::randomPassword()
{
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QByteArray password;
    for (int i = 0; i < 24; ++i)
        password += alphabet[QRandomGenerator::system()->bounded(62)];
    return password;
}

bool TestUser::create()
{
    if (::getuid() != 0) {
        m_error =
            QStringLiteral("creating the test user %1 needs root (CI runs as root)").arg(m_name);
        return false;
    }
    if (::getpwnam(m_name.toLocal8Bit().constData()))
        return true;
    m_created = run(QStringLiteral("useradd"),
                    {QStringLiteral("-M"), QStringLiteral("-d"), QStringLiteral("/nonexistent"),
                     QStringLiteral("-s"), QStringLiteral("/bin/sh"), QStringLiteral("-p"),
                     QStringLiteral("*"), m_name},
                    m_error);
    return m_created;
}

bool TestUser::setPassword(const QByteArray &password)
{
    const passwd *entry = ::getpwnam(m_name.toLocal8Bit().constData());
    if (!entry) {
        m_error = QStringLiteral("no user %1").arg(m_name);
        return false;
    }
    if (entry->pw_uid == 0) {
        m_error = QStringLiteral("%1 is uid 0: tests never set a password for root").arg(m_name);
        return false;
    }
    QByteArray line = m_name.toLocal8Bit() + ':' + password + '\n';
    const bool ok = run(QStringLiteral("chpasswd"), {}, m_error, line);
    line.fill('\0');
    return ok;
}

} // namespace opsdeck::test
