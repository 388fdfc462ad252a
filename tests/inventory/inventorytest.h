#pragma once

#include "inventory.h"

#include <QByteArray>
#include <QString>
#include <gtest/gtest.h>
#include <string>

namespace opsdeck::inventory::test {

/// The name inline inventories are parsed under; errors carry it as `file`.
inline QString inlineFile()
{
    return QStringLiteral("inline.yaml");
}

/// Parses inline YAML; a leading newline is dropped so that the first line of
/// the raw string literal is line 1 of the document.
inline LoadResult parse(const char *text)
{
    QByteArray yaml(text);
    if (yaml.startsWith('\n'))
        yaml.remove(0, 1);
    return parseInventory(yaml, inlineFile());
}

inline std::string dump(const LoadResult &result)
{
    std::string text;
    for (const ValidationError &error : result.errors)
        text += "\n  " + error.toString().toStdString();
    return text.empty() ? std::string(" (no errors)") : text;
}

/// Checks every part of one error: place, field and a key word of the message.
inline ::testing::AssertionResult isError(const LoadResult &result, int index, int line, int column,
                                          const char *field, const char *word,
                                          const QString &file = inlineFile())
{
    if (index >= result.errors.size())
        return ::testing::AssertionFailure() << "no error #" << index << ":" << dump(result);
    const ValidationError &error = result.errors[index];
    if (error.file != file || error.line != line || error.column != column ||
        error.field != QString::fromUtf8(field) || !error.message.contains(QString::fromUtf8(word)))
        return ::testing::AssertionFailure()
               << "error #" << index << " is not " << line << ":" << column << ": " << field
               << ": ..." << word << "...:" << dump(result);
    return ::testing::AssertionSuccess();
}

} // namespace opsdeck::inventory::test
