#include "logchunk.h"

#include "shellquote.h"
#include "sshcommandline.h"

#include <QRegularExpression>

namespace opsdeck::remote {

namespace {

const QByteArray headerTag = QByteArrayLiteral("opsdeck-log ");

// The part a shell must expand, and where the quoted rest begins; -1 when
// `path` starts with `$` but not with a variable name.
qsizetype expandedPrefixLength(const QString &path)
{
    if (path.startsWith(u'~')) {
        // `~` or `~user`: the tilde-prefix ends at the first slash.
        static const QRegularExpression tilde(QStringLiteral("^~[A-Za-z0-9._-]*(?=/|$)"));
        const auto match = tilde.match(path);
        return match.hasMatch() ? match.capturedLength() : -1;
    }
    if (path.startsWith(u'$')) {
        static const QRegularExpression variable(
            QStringLiteral("^(\\$[A-Za-z_][A-Za-z0-9_]*|\\$\\{[A-Za-z_][A-Za-z0-9_]*\\})"));
        const auto match = variable.match(path);
        return match.hasMatch() ? match.capturedLength() : -1;
    }
    return 0;
}

} // namespace

QByteArray LogChunk::shellWord(const QString &path, QString *error)
{
    if (path.isEmpty()) {
        *error = QStringLiteral("no log path");
        return {};
    }
    if (path.contains(QChar(0))) {
        *error = QStringLiteral("log path '%1' holds a NUL character").arg(path);
        return {};
    }
    const qsizetype prefix = expandedPrefixLength(path);
    if (prefix < 0) {
        *error = QStringLiteral("log path '%1': only a leading ~, ~user, $NAME or ${NAME} is "
                                "expanded by the host's shell")
                     .arg(path);
        return {};
    }
    const QString expanded = path.left(prefix);
    const QString rest = path.mid(prefix);
    QByteArray word;
    // A variable is double-quoted so that its value is not split or globbed;
    // a tilde must stay unquoted to be expanded at all.
    if (expanded.startsWith(u'$'))
        word = '"' + expanded.toUtf8() + '"';
    else
        word = expanded.toUtf8();
    if (expanded.startsWith(u'~') && rest.startsWith(u'/')) {
        // The tilde-prefix ends at the first unquoted slash: a quoted one
        // would turn the expansion off.
        word += '/';
        if (rest.size() > 1)
            word += shell::singleQuoted(rest.mid(1).toUtf8());
    } else if (!rest.isEmpty()) {
        word += shell::singleQuoted(rest.toUtf8());
    }
    return word;
}

QString LogChunk::script(const QString &path, qint64 offset, const QByteArray &inode,
                         QString *error, qint64 firstReadBytes, qint64 maxBytes)
{
    const QByteArray word = shellWord(path, error);
    if (word.isEmpty())
        return {};
    // The inode is compared as text; only digits ever reach the script.
    QByteArray knownInode = inode;
    for (const char c : inode) {
        if (c < '0' || c > '9') {
            knownInode.clear();
            break;
        }
    }
    const QString text =
        QStringLiteral("f=%1\n"
                       "if [ ! -e \"$f\" ]; then echo 'opsdeck-log missing'; exit 0; fi\n"
                       "if [ ! -f \"$f\" ]; then echo 'opsdeck-log not-a-file'; exit 0; fi\n"
                       "if [ ! -r \"$f\" ]; then echo 'opsdeck-log unreadable'; exit 0; fi\n"
                       "st=$(stat -L -c '%s %i' -- \"$f\") || exit 3\n"
                       "set -- $st\n"
                       "size=$1; ino=$2; off=%2\n"
                       "if [ \"$off\" -lt 0 ]; then\n"
                       "  if [ \"$size\" -gt %3 ]; then off=$((size - %3)); else off=0; fi\n"
                       "elif [ \"$ino\" != '%4' ] || [ \"$size\" -lt \"$off\" ]; then off=0; fi\n"
                       "printf 'opsdeck-log data %s %s %s\\n' \"$size\" \"$ino\" \"$off\"\n"
                       "tail -c +$((off + 1)) -- \"$f\" | head -c %5\n");
    // One multi-argument arg(): a '%2' inside the path is not replaced again.
    return text.arg(QString::fromUtf8(word), QString::number(offset < 0 ? -1 : offset),
                    QString::number(firstReadBytes), QString::fromLatin1(knownInode),
                    QString::number(maxBytes));
}

LogChunk LogChunk::parse(const QByteArray &standardOutput)
{
    LogChunk chunk;
    qsizetype at = standardOutput.startsWith(headerTag) ? 0 : -1;
    if (at < 0) {
        const qsizetype found = standardOutput.indexOf(QByteArray('\n' + headerTag));
        if (found < 0)
            return chunk;
        at = found + 1;
    }
    const qsizetype end = standardOutput.indexOf('\n', at);
    if (end < 0)
        return chunk;
    const QList<QByteArray> fields =
        standardOutput.mid(at + headerTag.size(), end - at - headerTag.size()).split(' ');
    const QByteArray &kind = fields.value(0);
    if (kind == "missing") {
        chunk.kind = Kind::Missing;
    } else if (kind == "unreadable") {
        chunk.kind = Kind::Unreadable;
    } else if (kind == "not-a-file") {
        chunk.kind = Kind::NotAFile;
    } else if (kind == "data" && fields.size() == 4) {
        bool sizeOk = false;
        bool startOk = false;
        chunk.fileSize = fields[1].toLongLong(&sizeOk);
        chunk.inode = fields[2];
        chunk.start = fields[3].toLongLong(&startOk);
        if (!sizeOk || !startOk || chunk.start < 0)
            return LogChunk();
        chunk.kind = Kind::Data;
        chunk.bytes = standardOutput.mid(end + 1);
    }
    return chunk;
}

} // namespace opsdeck::remote
