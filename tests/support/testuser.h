#pragma once

#include <QByteArray>
#include <QString>

namespace opsdeck::test {

/// A throwaway local login for tests that need sshd to let in someone other
/// than this process's user: PAM password and keyboard-interactive logins, a
/// user without sudo rights, the benchmark's user whose shell does no start-up
/// work. Needs root (CI runs the tests as root).
///
/// create() makes the account with useradd unless it exists: no home
/// (`-M -d /nonexistent`; sshd logs in anyway), shell /bin/sh, password field
/// `*` (no password login, yet not "locked" for sshd's public keys).
/// setPassword() gives it one through chpasswd (on stdin, never in argv).
/// The destructor removes the account if create() made it (userdel), so a
/// password never outlives the test. Root is never touched: a name that is
/// uid 0 is refused.
class TestUser
{
public:
    explicit TestUser(QString name) : m_name(std::move(name)) {}
    TestUser(const TestUser &) = delete;
    TestUser &operator=(const TestUser &) = delete;
    ~TestUser();

    /// `opsdeck-<tag>-<pid>`: unique per test process, since ctest runs tests
    /// of one executable in parallel processes. At most 32 characters (useradd).
    static QString uniqueName(const QString &tag);
    /// 24 random letters and digits (QRandomGenerator::system()).
    static QByteArray randomPassword();

    /// False with errorText() when not root, or useradd failed.
    bool create();
    /// False with errorText() for root, an unknown user, or chpasswd failing.
    bool setPassword(const QByteArray &password);

    QString name() const { return m_name; }
    bool created() const { return m_created; }
    QString errorText() const { return m_error; }

private:
    QString m_name;
    bool m_created = false;
    QString m_error;
};

} // namespace opsdeck::test
