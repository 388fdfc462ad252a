#include "remotepath.h"

#include <QRandomGenerator>

namespace opsdeck::remote {

QByteArray pathBaseName(const QByteArray &path)
{
    const qsizetype slash = path.lastIndexOf('/');
    return slash < 0 ? path : path.mid(slash + 1);
}

QByteArray pathDirName(const QByteArray &path)
{
    const qsizetype slash = path.lastIndexOf('/');
    return slash < 0    ? QByteArrayLiteral(".")
           : slash == 0 ? QByteArrayLiteral("/")
                        : path.left(slash);
}

QByteArray atomicTempPath(const QByteArray &path)
{
    QByteArray temp = pathDirName(path);
    temp += "/.";
    temp += pathBaseName(path);
    temp += ".opsdeck-";
    temp += QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    return temp;
}

} // namespace opsdeck::remote
