// The file semantics both transports share (remotefiles.h), run on
// LocalFiles and on SftpFiles against a real sshd: raw-byte names and
// contents, atomic writes that keep mode and owner, the read cap, and
// errors that name the host and the path.
#include "filesfixture.h"
#include "localfiles.h"
#include "sftpfiles.h"
#include "sshfixture.h"
#include "sshtransport.h"

#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <memory>
#include <unistd.h>

using opsdeck::remote::RemoteFileInfo;
using opsdeck::remote::RemoteFileResult;
using opsdeck::remote::RemoteFiles;
using opsdeck::test::callFiles;
using opsdeck::test::namesIn;
using opsdeck::test::SshdProcess;
using opsdeck::test::statOf;

namespace {

// Not valid UTF-8 (Latin-1 é, 0xff, a control byte): names are bytes.
const QByteArray oddName("caf\xe9-\xff\x01.bin");

QByteArray everyByte()
{
    QByteArray bytes;
    for (int i = 0; i < 256; ++i)
        bytes += char(i);
    return bytes + "\r\n\0tail" + QByteArray(3, '\0');
}

class FileSemantics : public testing::TestWithParam<QString>
{
protected:
    static void SetUpTestSuite()
    {
        s_sshd = new SshdProcess;
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
            m_files = std::make_unique<opsdeck::remote::LocalFiles>(QStringLiteral("test-host"));
        } else {
            m_transport = std::make_unique<opsdeck::remote::SshTransport>(
                QStringLiteral("test-host"), opsdeck::test::sshSettings(*s_sshd));
            m_files = std::make_unique<opsdeck::remote::SftpFiles>(m_transport.get());
        }
    }
    QByteArray path(const QByteArray &name) const
    {
        return QFile::encodeName(m_dir.path()) + '/' + name;
    }
    RemoteFileResult read(const QByteArray &p, qint64 cap = RemoteFiles::defaultReadCap)
    {
        return callFiles(*m_files, [&](RemoteFiles &f) { return f.read(p, cap); })
            .value_or(RemoteFileResult{});
    }
    RemoteFileResult write(const QByteArray &p, const QByteArray &data, uint mode = 0644)
    {
        return callFiles(*m_files, [&](RemoteFiles &f) { return f.write(p, data, mode); })
            .value_or(RemoteFileResult{});
    }

    static SshdProcess *s_sshd;
    QTemporaryDir m_dir;
    std::unique_ptr<opsdeck::remote::SshTransport> m_transport;
    std::unique_ptr<RemoteFiles> m_files; // declared last: goes before the transport
};

SshdProcess *FileSemantics::s_sshd = nullptr;

} // namespace

TEST_P(FileSemantics, NonUtf8NamesAndBytesPassThroughReadStatAndList)
{
    const QByteArray file = path(oddName);
    ASSERT_TRUE(opsdeck::test::writeBytes(file, everyByte()));
    ASSERT_EQ(namesIn(QFile::encodeName(m_dir.path())), QList<QByteArray>{oddName});

    const RemoteFileResult listed = callFiles(*m_files, [&](RemoteFiles &f) {
                                        return f.list(QFile::encodeName(m_dir.path()));
                                    }).value_or(RemoteFileResult{});
    ASSERT_TRUE(listed.ok) << listed.errorText.toStdString();
    ASSERT_EQ(listed.entries.size(), 1);
    EXPECT_EQ(listed.entries.first().name, oddName);
    EXPECT_EQ(listed.entries.first().type, RemoteFileInfo::Type::File);
    EXPECT_EQ(listed.entries.first().size, everyByte().size());
    EXPECT_EQ(listed.info.type, RemoteFileInfo::Type::Directory);

    const RemoteFileResult got = read(file);
    ASSERT_TRUE(got.ok) << got.errorText.toStdString();
    EXPECT_EQ(got.data, everyByte());
    EXPECT_FALSE(got.truncated);

    const RemoteFileResult stat = callFiles(*m_files, [&](RemoteFiles &f) {
                                      return f.stat(file);
                                  }).value_or(RemoteFileResult{});
    ASSERT_TRUE(stat.ok) << stat.errorText.toStdString();
    EXPECT_EQ(stat.info.name, oddName);
    EXPECT_EQ(stat.info.size, everyByte().size());
    EXPECT_EQ(stat.info.uid, ::getuid());
    EXPECT_EQ(stat.info.modifiedMsecs / 1000, statOf(file).st_mtim.tv_sec);

    // A write under the odd name keeps it byte for byte.
    const RemoteFileResult written = write(file, "new\xff");
    ASSERT_TRUE(written.ok) << written.errorText.toStdString();
    EXPECT_EQ(read(file).data, "new\xff");
    EXPECT_EQ(namesIn(QFile::encodeName(m_dir.path())), QList<QByteArray>{oddName});
}

TEST_P(FileSemantics, AtomicWriteReplacesTheFileAndKeepsModeAndOwner)
{
    ASSERT_EQ(::getuid(), 0u) << "keeping another owner needs root (CI runs as root)";
    const QByteArray file = path("serve_decode.sh");
    ASSERT_TRUE(opsdeck::test::writeFile(QFile::decodeName(file), "OLD=1\n"));
    ASSERT_EQ(::chmod(file.constData(), 0640), 0);
    ASSERT_EQ(::chown(file.constData(), 65534, 65533), 0); // nobody, and a group we are not in
    const ino_t oldInode = statOf(file).st_ino;

    const RemoteFileResult written = write(file, "NEW=2\n", 0600);
    ASSERT_TRUE(written.ok) << written.errorText.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(QFile::decodeName(file)), "NEW=2\n");
    const struct stat after = statOf(file);
    EXPECT_EQ(after.st_mode & 07777, 0640u) << "the old mode, not newFileMode";
    EXPECT_EQ(after.st_uid, 65534u);
    EXPECT_EQ(after.st_gid, 65533u);
    EXPECT_NE(after.st_ino, oldInode) << "a new file renamed into place, not an in-place rewrite";
    EXPECT_EQ(written.info.permissions, 0640u);
    EXPECT_EQ(written.info.size, 6);
    // No temp file is left beside it.
    EXPECT_EQ(namesIn(QFile::encodeName(m_dir.path())), QList<QByteArray>{"serve_decode.sh"});
}

TEST_P(FileSemantics, NewFileGetsTheRequestedMode)
{
    const QByteArray file = path("fresh.env");
    const RemoteFileResult written = write(file, "A=1\n", 0600);
    ASSERT_TRUE(written.ok) << written.errorText.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(QFile::decodeName(file)), "A=1\n");
    EXPECT_EQ(statOf(file).st_mode & 07777, 0600u);
    EXPECT_EQ(statOf(file).st_uid, ::getuid());
    EXPECT_EQ(namesIn(QFile::encodeName(m_dir.path())), QList<QByteArray>{"fresh.env"});
}

TEST_P(FileSemantics, ReadsAreCapped)
{
    const QByteArray file = path("big.log");
    ASSERT_TRUE(opsdeck::test::writeFile(QFile::decodeName(file), QByteArray(1000, 'x')));
    const RemoteFileResult capped = read(file, 100);
    ASSERT_TRUE(capped.ok) << capped.errorText.toStdString();
    EXPECT_EQ(capped.data, QByteArray(100, 'x'));
    EXPECT_TRUE(capped.truncated);
    EXPECT_EQ(capped.info.size, 1000);
    const RemoteFileResult exact = read(file, 1000);
    EXPECT_EQ(exact.data.size(), 1000);
    EXPECT_FALSE(exact.truncated) << "exactly the cap is the whole file";
}

TEST_P(FileSemantics, ErrorsNameTheHostAndThePath)
{
    const QByteArray missing = path("no-such-file");
    const RemoteFileResult result = read(missing);
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("test-host")))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(QString::fromUtf8(missing)))
        << result.errorText.toStdString();
    EXPECT_TRUE(result.errorText.contains(QStringLiteral("No such file")))
        << result.errorText.toStdString();

    const RemoteFileResult directory = read(QFile::encodeName(m_dir.path()));
    EXPECT_FALSE(directory.ok);
    EXPECT_TRUE(directory.errorText.contains(QStringLiteral("read")))
        << directory.errorText.toStdString();

    const RemoteFileResult noDir = write(path("no-dir/file"), "x");
    EXPECT_FALSE(noDir.ok);
    EXPECT_TRUE(noDir.errorText.contains(QStringLiteral("no-dir/file")))
        << noDir.errorText.toStdString();
}

TEST_P(FileSemantics, WriteThroughASymlinkIsRefusedAndListShowsTheLink)
{
    const QByteArray target = path("real.sh");
    const QByteArray link = path("link.sh");
    ASSERT_TRUE(opsdeck::test::writeFile(QFile::decodeName(target), "real\n"));
    ASSERT_EQ(::symlink(target.constData(), link.constData()), 0);
    const RemoteFileResult written = write(link, "through\n");
    EXPECT_FALSE(written.ok);
    EXPECT_TRUE(written.errorText.contains(QStringLiteral("link.sh")))
        << written.errorText.toStdString();
    EXPECT_EQ(opsdeck::test::readFile(QFile::decodeName(target)), "real\n");
    EXPECT_TRUE(S_ISLNK(statOf(link).st_mode)) << "the link is still a link";

    const RemoteFileResult listed = callFiles(*m_files, [&](RemoteFiles &f) {
                                        return f.list(QFile::encodeName(m_dir.path()));
                                    }).value_or(RemoteFileResult{});
    ASSERT_TRUE(listed.ok) << listed.errorText.toStdString();
    ASSERT_EQ(listed.entries.size(), 2);
    EXPECT_EQ(listed.entries.at(0).name, "link.sh");
    EXPECT_EQ(listed.entries.at(0).type, RemoteFileInfo::Type::Symlink);
    EXPECT_EQ(listed.entries.at(1).name, "real.sh");
    // stat follows the link.
    const RemoteFileResult stat = callFiles(*m_files, [&](RemoteFiles &f) {
                                      return f.stat(link);
                                  }).value_or(RemoteFileResult{});
    EXPECT_EQ(stat.info.type, RemoteFileInfo::Type::File);
}

INSTANTIATE_TEST_SUITE_P(Both, FileSemantics,
                         testing::Values(QStringLiteral("local"), QStringLiteral("ssh")),
                         [](const testing::TestParamInfo<QString> &info) {
                             return info.param.toStdString();
                         });
