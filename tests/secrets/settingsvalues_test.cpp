// opsdeck.conf's values as the app reads them (settingsvalues.h): a comma in a
// path kept (Qt's INI reader would split it into a list), and the plaintext
// fallback switched on only by true/yes/on/1, anything else off with a
// warning. $XDG_CONFIG_HOME points at a temp dir: never the real settings.
#include "apppaths.h"
#include "logcapture.h"
#include "secretstore.h"
#include "settingsvalues.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace opsdeck::secrets;
using namespace opsdeck::settings;
using namespace Qt::StringLiterals;

namespace {

// $XDG_CONFIG_HOME at a temp dir for the test's lifetime, with opsdeck.conf in it.
class ConfigHome
{
public:
    ConfigHome()
        : m_old(qgetenv("XDG_CONFIG_HOME")), m_had(qEnvironmentVariableIsSet("XDG_CONFIG_HOME"))
    {
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.path()));
    }
    ~ConfigHome() { m_had ? qputenv("XDG_CONFIG_HOME", m_old) : qunsetenv("XDG_CONFIG_HOME"); }
    ConfigHome(const ConfigHome &) = delete;
    ConfigHome &operator=(const ConfigHome &) = delete;

    QString file() const { return m_dir.filePath(u"opsdeck/opsdeck.conf"_s); }
    bool write(const QByteArray &text) const
    {
        QFile out(file());
        return QDir().mkpath(m_dir.filePath(u"opsdeck"_s)) && out.open(QIODevice::WriteOnly) &&
               out.write(text) == text.size();
    }

private:
    QTemporaryDir m_dir;
    QByteArray m_old;
    bool m_had;
};

} // namespace

TEST(SettingsValues, PlaintextFallbackIsOnOnlyForTrueYesOnOne)
{
    // A new file for each value: QSettings caches a file by path, and a
    // rewrite of the same size within the same second reads as unchanged.
    for (const char *word : {"true", "TRUE", "Yes", "on", "1", " on "}) {
        const ConfigHome home;
        ASSERT_EQ(opsdeck::settings::AppPaths::configFile(), home.file());
        ASSERT_TRUE(home.write("[secrets]\nplaintext_fallback=" + QByteArray(word) + '\n'));
        EXPECT_TRUE(SecretStore::Settings::fromQSettings().plaintextFallback) << word;
    }
    for (const char *word : {"false", "No", "off", "OFF", "0", ""}) {
        const ConfigHome home;
        ASSERT_TRUE(home.write("[secrets]\nplaintext_fallback=" + QByteArray(word) + '\n'));
        EXPECT_FALSE(SecretStore::Settings::fromQSettings().plaintextFallback) << word;
    }
    const ConfigHome home;
    ASSERT_TRUE(home.write("[secrets]\n"));
    EXPECT_FALSE(SecretStore::Settings::fromQSettings().plaintextFallback);
}

TEST(SettingsValues, AnythingElseIsOffWithAWarningNamingFileKeyAndValue)
{
    for (const char *word : {"garbage", "yes please", "yes,please", "2", "enabled"}) {
        const ConfigHome home; // a new file each time: see above
        ASSERT_TRUE(home.write("[secrets]\nplaintext_fallback=" + QByteArray(word) + '\n'));
        const opsdeck::test::LogCapture log;
        EXPECT_FALSE(SecretStore::Settings::fromQSettings().plaintextFallback) << word;
        const std::string text = log.text();
        EXPECT_NE(text.find(home.file().toStdString()), std::string::npos) << text;
        EXPECT_NE(text.find("[secrets] plaintext_fallback="), std::string::npos) << text;
        // Qt trims the blanks around a comma: "yes,please" as read.
        EXPECT_NE(text.find(word), std::string::npos) << text;
        EXPECT_NE(text.find("warn"), std::string::npos) << text;
    }
    // A valid value logs nothing.
    const ConfigHome home;
    ASSERT_TRUE(home.write("[secrets]\nplaintext_fallback=no\n"));
    const opsdeck::test::LogCapture log;
    EXPECT_FALSE(SecretStore::Settings::fromQSettings().plaintextFallback);
    EXPECT_EQ(log.text(), "");
}

TEST(SettingsValues, ACommaInThePlaintextFileIsKept)
{
    const ConfigHome home;
    ASSERT_TRUE(
        home.write("[secrets]\nplaintext_fallback=true\nplaintext_file=/tmp/x/my,secrets.json\n"));
    const SecretStore::Settings settings = SecretStore::Settings::fromQSettings();
    EXPECT_TRUE(settings.plaintextFallback);
    EXPECT_EQ(settings.plaintextFile, u"/tmp/x/my,secrets.json"_s);
    const SecretStore store(settings, nullptr);
    EXPECT_EQ(store.plaintextFilePath(), u"/tmp/x/my,secrets.json"_s);
}

// What Qt's INI reader does around the commas, as the header documents.
TEST(SettingsValues, BlanksAroundCommasAreDroppedUnlessQuoted)
{
    const ConfigHome home;
    ASSERT_TRUE(home.write("[s]\nlist=a , b ,c\nquoted=\"a , b\"\nplain=/x/y\nsemi=x;y\n"));
    const QSettings settings(home.file(), QSettings::IniFormat);
    EXPECT_EQ(settingsString(settings, u"s/list"_s), u"a,b,c"_s);
    EXPECT_EQ(settingsString(settings, u"s/quoted"_s), u"a , b"_s);
    EXPECT_EQ(settingsString(settings, u"s/plain"_s), u"/x/y"_s);
    EXPECT_EQ(settingsString(settings, u"s/semi"_s), u"x"_s);
    EXPECT_EQ(settingsString(settings, u"s/missing"_s), QString());
}
