#include "remotepath.h"

#include <QRandomGenerator>
#include <algorithm>

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

namespace {

QByteArray tempPrefix(const QByteArray &path)
{
    QByteArray prefix(1, '.');
    prefix += pathBaseName(path);
    prefix += ".opsdeck-";
    return prefix;
}

} // namespace

QByteArray atomicTempPath(const QByteArray &path)
{
    QByteArray temp = pathDirName(path);
    temp += '/';
    temp += tempPrefix(path);
    temp += QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    return temp;
}

bool isAtomicTempName(const QByteArray &name, const QByteArray &path)
{
    const QByteArray prefix = tempPrefix(path);
    if (!name.startsWith(prefix))
        return false;
    const QByteArray random = name.mid(prefix.size());
    // 2^64 - 1 is "3w5e11264sgsf" in base 36: 13 digits at most.
    return !random.isEmpty() && random.size() <= 13 &&
           std::all_of(random.begin(), random.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); });
}

} // namespace opsdeck::remote
