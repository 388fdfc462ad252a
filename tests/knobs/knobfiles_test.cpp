// KnobFiles over LocalFiles and over SFTP to a real sshd: an edit is backed up,
// verified, audited and written; a file changed since preview, a backup that
// does not read back and an audit entry that cannot be written each stop it.
#include "changedsince.h"
#include "filesfixture.h"
#include "knobfiles.h"
#include "localfiles.h"
#include "localtransport.h"
#include "sftpfiles.h"
#include "sshfixture.h"
#include "sshtransport.h"
#include "synchronousrun.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

using namespace opsdeck;
using knobs::KnobFiles;
using knobs::ScriptEdit;

namespace {

const QByteArray decodeScript = "#!/usr/bin/env bash\n"
                                "export SGLANG_SM120_MMA_TARGET_CTAS=512\n"
                                "export HF_TOKEN=   # filled in at deploy time\n"
                                "exec python3 -m sglang.launch_server --port 30002 \\\n"
                                "  --max-running-requests 64\n";

// Reads of `.bak` files come back with one byte changed: a backup that does
// not read back identical (a disk or a filesystem that lies).
class CorruptingFiles : public remote::RemoteFiles
{
public:
    explicit CorruptingFiles(remote::RemoteFiles *real) : m_real(real)
    {
        connect(m_real, &remote::RemoteFiles::fileFinished, this,
                [this](quint64 id, remote::RemoteFileResult result) {
                    if (m_backupReads.remove(id) && !result.data.isEmpty())
                        result.data[0] = char(result.data.at(0) ^ 1);
                    Q_EMIT fileFinished(id, result);
                });
    }
    QString hostName() const override { return m_real->hostName(); }
    quint64 read(const QByteArray &path, qint64 cap) override
    {
        const quint64 id = m_real->read(path, cap);
        if (path.endsWith(".bak"))
            m_backupReads.insert(id);
        return id;
    }
    quint64 stat(const QByteArray &path) override { return m_real->stat(path); }
    quint64 list(const QByteArray &path) override { return m_real->list(path); }
    quint64 write(const QByteArray &path, const QByteArray &data, uint mode) override
    {
        return m_real->write(path, data, mode);
    }

private:
    remote::RemoteFiles *m_real;
    QSet<quint64> m_backupReads;
};

struct AuditCall
{
    QString action;
    QString backupPath;
    QByteArray backupSha256;
    QString diff;
};

class KnobFilesTest : public testing::TestWithParam<QString>
{
protected:
    static void SetUpTestSuite()
    {
        s_sshd = new test::SshdProcess;
        ASSERT_TRUE(s_sshd->start()) << s_sshd->errorText().toStdString();
    }
    static void TearDownTestSuite()
    {
        delete s_sshd;
        s_sshd = nullptr;
    }
    void SetUp() override
    {
        ASSERT_TRUE(m_dir.isValid());
        if (GetParam() == u"local") {
            m_transport = std::make_unique<remote::LocalTransport>();
            m_files = std::make_unique<remote::LocalFiles>(QStringLiteral("gpu-1"));
        } else {
            auto ssh = std::make_unique<remote::SshTransport>(QStringLiteral("gpu-1"),
                                                              test::sshSettings(*s_sshd));
            m_files = std::make_unique<remote::SftpFiles>(ssh.get());
            m_transport = std::move(ssh);
        }
        m_knobFiles = std::make_unique<KnobFiles>(m_files.get(), m_transport.get());
        m_script = m_dir.filePath(QStringLiteral("serve_decode.sh"));
        ASSERT_TRUE(test::writeFile(m_script, decodeScript));
        ASSERT_EQ(::chmod(QFile::encodeName(m_script).constData(), 0750), 0);
    }

    KnobFiles::Plan plan(const ScriptEdit &edit, KnobFiles *files = nullptr)
    {
        std::optional<KnobFiles::Plan> result;
        (files ? files : m_knobFiles.get())->plan(m_script, edit, [&](const KnobFiles::Plan &p) {
            result = p;
        });
        EXPECT_TRUE(test::waitUntil([&] { return result.has_value(); }, std::chrono::seconds(30)));
        return result.value_or(KnobFiles::Plan{});
    }
    // `whileEditIsAudited`: run as the "edit" entry is being written.
    KnobFiles::Applied apply(const KnobFiles::Plan &plan, bool auditWorks = true,
                             KnobFiles *files = nullptr,
                             const std::function<void()> &whileEditIsAudited = {})
    {
        std::optional<KnobFiles::Applied> result;
        (files ? files : m_knobFiles.get())
            ->apply(
                plan,
                [&](const KnobFiles::Plan &p, const KnobFiles::Applied &state,
                    const QString &action, const KnobFiles::AuditDone &audited) {
                    m_audit.append({action, state.backupPath, state.backupSha256, p.diff});
                    if (action == u"edit" && whileEditIsAudited)
                        whileEditIsAudited();
                    // Answered later, as an auditor thread does.
                    QTimer::singleShot(0, [audited, auditWorks] {
                        audited(auditWorks, auditWorks
                                                ? QString()
                                                : QStringLiteral("audit.jsonl is a directory"));
                    });
                },
                [&](const KnobFiles::Applied &a) { result = a; });
        EXPECT_TRUE(test::waitUntil([&] { return result.has_value(); }, std::chrono::seconds(30)));
        return result.value_or(KnobFiles::Applied{});
    }
    QStringList backupsOnDisk() const
    {
        return QDir(m_dir.path())
            .entryList({QStringLiteral("serve_decode.sh.opsdeck-*.bak")}, QDir::Files);
    }

    static ScriptEdit setCtas(const QString &value)
    {
        ScriptEdit edit;
        edit.name = QStringLiteral("SGLANG_SM120_MMA_TARGET_CTAS");
        edit.value = value;
        return edit;
    }

    static test::SshdProcess *s_sshd;
    QTemporaryDir m_dir;
    QString m_script;
    QVector<AuditCall> m_audit;
    std::unique_ptr<remote::Transport> m_transport;
    std::unique_ptr<remote::RemoteFiles> m_files;
    std::unique_ptr<KnobFiles> m_knobFiles;
};

test::SshdProcess *KnobFilesTest::s_sshd = nullptr;

} // namespace

TEST_P(KnobFilesTest, AnEditIsBackedUpVerifiedAuditedThenWritten)
{
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    ASSERT_TRUE(planned.ok) << planned.error.toStdString();
    EXPECT_EQ(planned.line, 2);
    EXPECT_TRUE(planned.diff.contains(u"-export SGLANG_SM120_MMA_TARGET_CTAS=512\n"
                                      u"+export SGLANG_SM120_MMA_TARGET_CTAS=256\n"_qs))
        << planned.diff.toStdString();
    ASSERT_EQ(planned.changes.size(), 1);
    EXPECT_EQ(planned.changes.first().text(), u"~ SGLANG_SM120_MMA_TARGET_CTAS 512 → 256"_qs);
    EXPECT_EQ(test::readFile(m_script), decodeScript) << "a plan changes nothing";

    const KnobFiles::Applied applied = apply(planned);
    ASSERT_TRUE(applied.ok) << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), planned.after);
    struct stat st = test::statOf(QFile::encodeName(m_script));
    EXPECT_EQ(st.st_mode & 07777, 0750u) << "the script keeps its mode";
    ASSERT_EQ(backupsOnDisk().size(), 1);
    const QString backup = m_dir.filePath(backupsOnDisk().first());
    EXPECT_EQ(applied.backupPath, backup);
    EXPECT_EQ(test::readFile(backup), decodeScript);
    EXPECT_EQ(applied.backupSha256, KnobFiles::sha256(decodeScript));
    EXPECT_EQ(test::statOf(QFile::encodeName(backup)).st_mode & 07777, 0750u);
    ASSERT_EQ(m_audit.size(), 2);
    EXPECT_EQ(m_audit.at(0).action, u"edit"_qs);
    EXPECT_EQ(m_audit.at(0).backupPath, backup);
    EXPECT_EQ(m_audit.at(0).backupSha256, applied.backupSha256);
    EXPECT_EQ(m_audit.at(1).action, u"edited"_qs);
}

TEST_P(KnobFilesTest, AFileChangedSincePreviewIsNotTouched)
{
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    ASSERT_TRUE(planned.ok) << planned.error.toStdString();
    const QByteArray meanwhile = decodeScript + "export SOMEONE_ELSE=1\n";
    ASSERT_TRUE(test::writeFile(m_script, meanwhile));
    const KnobFiles::Applied applied = apply(planned);
    EXPECT_FALSE(applied.ok);
    EXPECT_TRUE(applied.error.contains(u"changed on disk since preview"_qs))
        << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), meanwhile);
    EXPECT_TRUE(backupsOnDisk().isEmpty());
    EXPECT_TRUE(m_audit.isEmpty());
}

// Another edit lands while this one's backup and "edit" entry are written
// (two consoles on one script): the script is checked again just before the
// write, so the other edit stays and this one fails, audited as edit-failed.
TEST_P(KnobFilesTest, AnEditThatLandsWhileTheEntryIsWrittenIsNeverOverwritten)
{
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    ASSERT_TRUE(planned.ok) << planned.error.toStdString();
    const QByteArray teammates = decodeScript + "export SOMEONE_ELSE=1\n";
    const KnobFiles::Applied applied =
        apply(planned, true, nullptr, [&] { ASSERT_TRUE(test::writeFile(m_script, teammates)); });
    EXPECT_FALSE(applied.ok);
    EXPECT_TRUE(applied.error.contains(u"changed on disk since preview"_qs))
        << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), teammates);
    ASSERT_EQ(m_audit.size(), 2);
    EXPECT_EQ(m_audit.at(1).action, u"edit-failed"_qs);
}

TEST_P(KnobFilesTest, AnAuditEntryThatCannotBeWrittenStopsTheEdit)
{
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    const KnobFiles::Applied applied = apply(planned, false);
    EXPECT_FALSE(applied.ok);
    EXPECT_TRUE(applied.error.contains(u"audit entry could not be written"_qs) &&
                applied.error.endsWith(u"nothing changed"_qs))
        << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), decodeScript);
}

TEST_P(KnobFilesTest, ABackupThatDoesNotReadBackIdenticalStopsTheEdit)
{
    CorruptingFiles lying(m_files.get());
    KnobFiles files(&lying, m_transport.get());
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")), &files);
    ASSERT_TRUE(planned.ok) << planned.error.toStdString();
    const KnobFiles::Applied applied = apply(planned, true, &files);
    EXPECT_FALSE(applied.ok);
    EXPECT_TRUE(applied.error.contains(u"did not read back identical"_qs))
        << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), decodeScript);
    EXPECT_TRUE(m_audit.isEmpty()) << "nothing was done that needs an entry";
}

// Every backup name of this second (and the next few) taken: the edit is
// refused, naming why, and no existing backup is written over.
TEST_P(KnobFilesTest, AnEditNeverWritesOverAnEarlierBackup)
{
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    ASSERT_TRUE(planned.ok) << planned.error.toStdString();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QStringList taken;
    for (int second = 0; second < 5; ++second) {
        const QString stamp = now.addSecs(second).toString(u"yyyyMMdd'T'HHmmss'Z'"_qs);
        for (int n = 1; n <= 20; ++n) {
            const QString name = u"%1.opsdeck-%2%3.bak"_qs.arg(
                m_script, stamp, n > 1 ? u"-%1"_qs.arg(n) : QString());
            ASSERT_TRUE(test::writeFile(name, "an earlier backup\n"));
            taken << name;
        }
    }
    const KnobFiles::Applied applied = apply(planned);
    EXPECT_FALSE(applied.ok);
    EXPECT_TRUE(applied.error.contains(u"no free backup name"_qs)) << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), decodeScript);
    for (const QString &name : std::as_const(taken))
        EXPECT_EQ(test::readFile(name), QByteArray("an earlier backup\n")) << name.toStdString();
}

// The engineer's own backups are found beside the script, and one of them
// is put back through the same plan, backup-first and audit path.
TEST_P(KnobFilesTest, AHandMadeBackupIsFoundAndRestored)
{
    const QByteArray base = "#!/usr/bin/env bash\n"
                            "exec python3 -m sglang.launch_server --port 30002 \\\n"
                            "  --max-running-requests 64\n";
    const QStringList handMade{u"serve_decode.sh.mmatune_base.bak"_qs, u"serve_decode.sh.bak"_qs,
                               u"serve_decode.sh.orig"_qs, u"serve_decode.sh~"_qs};
    for (const QString &name : handMade)
        ASSERT_TRUE(test::writeFile(m_dir.filePath(name), base));
    ASSERT_TRUE(test::writeFile(m_dir.filePath(u"serve_prefill.sh.bak"_qs), base));
    ASSERT_TRUE(test::writeFile(m_dir.filePath(u"serve_decode.sh.bak.d"_qs), base));

    std::optional<QVector<KnobFiles::Backup>> found;
    m_knobFiles->backups(m_script, [&](const QVector<KnobFiles::Backup> &b) { found = b; });
    ASSERT_TRUE(test::waitUntil([&] { return found.has_value(); }, std::chrono::seconds(30)));
    QStringList names;
    for (const KnobFiles::Backup &backup : *found) {
        names.append(backup.path.mid(backup.path.lastIndexOf(u'/') + 1));
        EXPECT_FALSE(backup.byOpsDeck);
        EXPECT_EQ(backup.sha256, KnobFiles::sha256(base));
        EXPECT_EQ(backup.size, base.size());
        ASSERT_EQ(backup.changes.size(), 2) << backup.path.toStdString();
        EXPECT_EQ(backup.changes.at(0).text(), u"+ export SGLANG_SM120_MMA_TARGET_CTAS=512"_qs);
    }
    names.sort();
    QStringList expected = handMade;
    expected.sort();
    EXPECT_EQ(names, expected);

    std::optional<KnobFiles::Plan> restore;
    m_knobFiles->planRestore(m_script, m_dir.filePath(handMade.first()),
                             [&](const KnobFiles::Plan &p) { restore = p; });
    ASSERT_TRUE(test::waitUntil([&] { return restore.has_value(); }, std::chrono::seconds(30)));
    ASSERT_TRUE(restore->ok) << restore->error.toStdString();
    EXPECT_EQ(restore->changes.size(), 2);
    const KnobFiles::Applied applied = apply(*restore);
    ASSERT_TRUE(applied.ok) << applied.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), base);
    EXPECT_EQ(test::readFile(applied.backupPath), decodeScript) << "what it replaced is kept";
}

TEST_P(KnobFilesTest, BashSaysWhetherItCanParseTheScript)
{
    std::optional<QString> said;
    m_knobFiles->syntaxCheck(m_script, [&](const QString &s) { said = s; });
    ASSERT_TRUE(test::waitUntil([&] { return said.has_value(); }, std::chrono::seconds(30)));
    EXPECT_TRUE(said->isEmpty()) << said->toStdString();
    ASSERT_TRUE(test::writeFile(m_script, "export A=1\nif then fi (\n"));
    said.reset();
    m_knobFiles->syntaxCheck(m_script, [&](const QString &s) { said = s; });
    ASSERT_TRUE(test::waitUntil([&] { return said.has_value(); }, std::chrono::seconds(30)));
    EXPECT_TRUE(said->contains(u"line 2: syntax error"_qs)) << said->toStdString();
}

INSTANTIATE_TEST_SUITE_P(Both, KnobFilesTest,
                         testing::Values(QStringLiteral("local"), QStringLiteral("ssh")),
                         [](const testing::TestParamInfo<QString> &info) {
                             return info.param.toStdString();
                         });

// A watched folder is only ever a folder: names that look like find's
// options (an inventory written by someone else) run nothing and delete nothing.
TEST(ChangedSince, FolderNamesAreNeverFindOptions)
{
    QTemporaryDir dir;
    const QString canary = dir.filePath(QStringLiteral("ran"));
    remote::LocalTransport local;
    const remote::CommandResult result = remote::runAndWait(
        local, knobs::ChangedSince::request({QStringLiteral("-exec"), QStringLiteral("touch"),
                                             canary, QStringLiteral(";"), dir.path()},
                                            QStringLiteral("1 hours ago")));
    const knobs::ChangedSince changed = knobs::ChangedSince::parse(result, QStringLiteral("local"));
    EXPECT_TRUE(changed.error.isEmpty()) << changed.error.toStdString();
    EXPECT_FALSE(QFile::exists(canary)) << "a folder name ran as a command";
    EXPECT_TRUE(changed.missing.contains(QStringLiteral("./-exec")))
        << changed.missing.join(u',').toStdString();
    // A file name with a newline is one file, not a forged record.
    ASSERT_TRUE(
        test::writeFile(dir.filePath(QStringLiteral("a\nfile\t4102444800\t999\tFORGED")), "x"));
    const knobs::ChangedSince again = knobs::ChangedSince::parse(
        remote::runAndWait(
            local, knobs::ChangedSince::request({dir.path()}, QStringLiteral("1 hours ago"))),
        QStringLiteral("local"));
    ASSERT_EQ(again.files.size(), 1);
    EXPECT_TRUE(
        again.files.first().path.endsWith(QStringLiteral("a\nfile\t4102444800\t999\tFORGED")));
    EXPECT_EQ(again.total, 1);
}

// A script that is a symbolic link is refused at the preview: no backup, no
// audit entry, nothing written through the link.
TEST_P(KnobFilesTest, AScriptThatIsASymbolicLinkIsRefusedBeforeAnything)
{
    const QString link = m_dir.filePath(QStringLiteral("serve_link.sh"));
    ASSERT_TRUE(QFile::link(m_script, link));
    const QString real = m_script;
    m_script = link;
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    m_script = real;
    EXPECT_FALSE(planned.ok);
    EXPECT_TRUE(planned.error.contains(QStringLiteral("is a symbolic link")))
        << planned.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), decodeScript);
    EXPECT_TRUE(backupsOnDisk().isEmpty());
}

// A script with a second name (a hard link) is refused at the preview: the
// atomic write would have put the new knob under one name only, and whatever
// starts the service through the other would keep the old value.
TEST_P(KnobFilesTest, AScriptWithASecondNameIsRefusedBeforeAnything)
{
    const QString other = m_dir.filePath(QStringLiteral("serve_decode_prod.sh"));
    ASSERT_EQ(::link(QFile::encodeName(m_script).constData(), QFile::encodeName(other).constData()),
              0);
    const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
    EXPECT_FALSE(planned.ok);
    EXPECT_TRUE(planned.error.contains(QStringLiteral("%1 has 2 names (hard links)").arg(m_script)))
        << planned.error.toStdString();
    EXPECT_EQ(test::readFile(m_script), decodeScript);
    EXPECT_EQ(test::readFile(other), decodeScript);
    EXPECT_TRUE(backupsOnDisk().isEmpty());
    EXPECT_TRUE(m_audit.isEmpty());
}

// A file named as one of OpsDeck's own (a workflow journal, an audit log, a
// backup) is no serve script: an edit would rewrite its lines as knobs.
TEST_P(KnobFilesTest, AFileNamedAsOneOfOpsDecksOwnIsNeverEdited)
{
    const QString real = m_script;
    for (const char *name : {"restart-1.journal", "audit.jsonl", "serve.sh.opsdeck-x.bak"}) {
        m_script = m_dir.filePath(QString::fromLatin1(name));
        ASSERT_TRUE(test::writeFile(m_script, decodeScript));
        const KnobFiles::Plan planned = plan(setCtas(QStringLiteral("256")));
        EXPECT_FALSE(planned.ok) << name;
        EXPECT_TRUE(
            planned.error.contains(QStringLiteral("is named as one of OpsDeck's own files")))
            << planned.error.toStdString();
        EXPECT_EQ(test::readFile(m_script), decodeScript);
    }
    m_script = real;
    EXPECT_TRUE(m_audit.isEmpty());
}
